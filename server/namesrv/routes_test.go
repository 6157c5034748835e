package namesrv

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// Two live brokers registering one brokerName and brokerId (a copied broker.conf) are
// logged: Java replaces the address silently and the route flips between them. An address
// that stopped registering long ago is a move, logged as before.
func TestRegister_DuplicateBrokerIdLogged(t *testing.T) {
	var log bytes.Buffer
	rt := NewRouteTable(zerolog.New(&log))
	now := time.Unix(1700000000, 0)
	rt.now = func() time.Time { return now }
	w := &protocol.TopicConfigSerializeWrapper{TopicConfigTable: map[string]protocol.TopicConfig{
		"T": {TopicName: "T", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6}}}
	rt.Register("C", "10.0.0.1:10911", "broker-a", 1, "", w, nil, nil)
	now = now.Add(10 * time.Second)
	rt.Register("C", "10.0.0.2:10911", "broker-a", 1, "", w, nil, nil)
	if n := strings.Count(log.String(), "two live brokers register the same brokerName and brokerId"); n != 1 {
		t.Fatalf("%d warnings:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), `"old":"10.0.0.1:10911","new":"10.0.0.2:10911"`) {
		t.Fatalf("addresses not named:\n%s", log.String())
	}
	// the master moves: its old address last registered 2 minutes ago
	log.Reset()
	rt.Register("C", "10.0.0.3:10911", "broker-a", 0, "", w, nil, nil)
	now = now.Add(2 * time.Minute)
	rt.Register("C", "10.0.0.4:10911", "broker-a", 0, "", w, nil, nil)
	if strings.Contains(log.String(), "two live brokers") || !strings.Contains(log.String(), "master address changed") {
		t.Fatalf("a moved master:\n%s", log.String())
	}
	if r := rt.Route("T"); r == nil || r.BrokerDatas[0].BrokerAddrs[0] != "10.0.0.4:10911" {
		t.Fatalf("route %+v", r)
	}
}
