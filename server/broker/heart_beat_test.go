package broker

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// A heartbeat declaring thousands of new consumer groups (each auto-creating the group and
// its %RETRY% topic) neither stalls the event loop nor takes long: it runs on the client
// pool, topics.json is written in the background a few times, not once per group.
func TestHeartBeat_ThousandsOfGroups_LoopKeepsServing(t *testing.T) {
	b := newTestBroker(t, func(o *Options) { o.EventLoops = 1 })
	const groups = 3000
	var sb strings.Builder
	sb.WriteString(`{"clientID":"many","producerDataSet":[],"consumerDataSet":[`)
	for i := 0; i < groups; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"groupName":"HBG%d","consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","subscriptionDataSet":[{"topic":"T","subString":"*","tagsSet":[],"codeSet":[],"subVersion":1,"expressionType":"TAG","classFilterMode":false}],"unitMode":false}`, i)
	}
	sb.WriteString(`]}`)
	hb := protocol.NewRequest(protocol.CodeHeartBeat)
	hb.Body = []byte(sb.String())

	cl := remoting.NewClient(remoting.ClientOptions{DialTimeout: time.Second})
	defer cl.Close()
	other := remoting.NewClient(remoting.ClientOptions{DialTimeout: time.Second})
	defer other.Close()
	addr := b.ListenAddrs()[0]
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		resp, err := cl.Invoke(context.Background(), addr, hb, 60*time.Second)
		if err == nil && resp.Code != int32(protocol.ResSuccess) {
			err = fmt.Errorf("code %d %q", resp.Code, resp.Remark)
		}
		done <- err
	}()
	var worst time.Duration
	for served := 0; ; served++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("heartbeat with %d new groups answered in %v; %d requests on the same loop meanwhile, slowest %v",
				groups, time.Since(start), served, worst)
			if worst > time.Second {
				t.Fatalf("another connection waited %v during the heartbeat", worst)
			}
			if _, ok := b.topics.Get(meta.RetryTopic(fmt.Sprintf("HBG%d", groups-1))); !ok {
				t.Fatal("the last group's %RETRY% topic was not created")
			}
			return
		default:
		}
		req := protocol.NewRequest(protocol.CodeGetMaxOffset)
		(&protocol.GetMaxOffsetRequestHeader{Topic: "T", QueueID: 0}).Encode(&req.Ext)
		t0 := time.Now()
		if _, err := other.Invoke(context.Background(), addr, req, 5*time.Second); err != nil {
			t.Fatalf("other connection during the heartbeat: %v", err)
		}
		worst = max(worst, time.Since(t0))
		time.Sleep(time.Millisecond) // pace the probe, not a synchronisation
	}
}
