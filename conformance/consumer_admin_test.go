package conformance

// The consumer-admin codes mqadmin and the dashboard use, driven over the raw wire against
// a broker with an unmodified Go push consumer attached: connections, consume stats,
// running info and consumer status relayed to the client, reset offset pushed to the
// client, who consumes a topic, topic stats, and message query by key and by offset msgId.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

type wire struct {
	t    *testing.T
	cl   *remoting.Client
	addr string
}

func newWire(t *testing.T, addr string) *wire {
	cl := remoting.NewClient(remoting.ClientOptions{})
	t.Cleanup(cl.Close)
	return &wire{t: t, cl: cl, addr: addr}
}

func (w *wire) call(code protocol.RequestCode, h interface{ Encode(*protocol.Ext) }, body []byte) *protocol.Command {
	w.t.Helper()
	req := protocol.NewRequest(code)
	if h != nil {
		h.Encode(&req.Ext)
	}
	req.Body = body
	resp, err := w.cl.Invoke(context.Background(), w.addr, req, 15*time.Second)
	if err != nil {
		w.t.Fatalf("%v: %v", code, err)
	}
	return resp
}

// stdJSON decodes a fastjson-dialect body into v.
func stdJSON(t *testing.T, body []byte, v any) {
	t.Helper()
	std, err := compat.NormalizeJSON(body)
	if err != nil {
		t.Fatalf("normalize %s: %v", body, err)
	}
	if err := json.Unmarshal(std, v); err != nil {
		t.Fatalf("decode %s: %v", std, err)
	}
}

func TestConformance_Broker_ConsumerAdmin(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Adm")
	p := newProducer(t, c.nsAddr())
	var firstID string
	for i := 0; i < 8; i++ {
		m := primitive.NewMessage(topic, []byte(fmt.Sprintf("adm-%d", i)))
		m.WithKeys([]string{fmt.Sprintf("key-%d", i)})
		res, err := p.SendSync(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			firstID = res.OffsetMsgID
		}
	}
	group := unique("AG")
	got := newReceived()
	startPushConsumer(t, c.nsAddr(), group, topic, all, collect(got))
	eventually(t, 30*time.Second, "consumed", func() bool { d, _ := got.count(); return d == 8 })
	w := newWire(t, c.broker.Addr())

	// GET_CONSUMER_CONNECTION_LIST
	r := w.call(protocol.CodeGetConsumerConnectionList, &protocol.GetConsumerConnectionListRequestHeader{ConsumerGroup: group}, nil)
	var cc struct {
		ConnectionSet []struct {
			ClientID string `json:"clientId"`
			Language string `json:"language"`
			Version  int    `json:"version"`
		} `json:"connectionSet"`
		ConsumeType       string                     `json:"consumeType"`
		MessageModel      string                     `json:"messageModel"`
		SubscriptionTable map[string]json.RawMessage `json:"subscriptionTable"`
	}
	stdJSON(t, r.Body, &cc)
	if len(cc.ConnectionSet) != 1 || cc.ConnectionSet[0].Language != "GO" || cc.ConsumeType != "CONSUME_PASSIVELY" || cc.MessageModel != "CLUSTERING" || cc.SubscriptionTable[topic] == nil {
		t.Fatalf("consumer connection: %s", r.Body)
	}
	clientID := cc.ConnectionSet[0].ClientID
	if r := w.call(protocol.CodeGetConsumerConnectionList, &protocol.GetConsumerConnectionListRequestHeader{ConsumerGroup: "nobody"}, nil); r.ResponseCode() != protocol.ResConsumerNotOnline {
		t.Fatalf("offline group: %v", r.ResponseCode())
	}

	// GET_CONSUME_STATS: after the consumer persisted its offsets, lag is 0.
	eventually(t, 20*time.Second, "offsets committed", func() bool {
		r := w.call(protocol.CodeGetConsumeStats, &protocol.GetConsumeStatsRequestHeader{ConsumerGroup: group, Topic: topic}, nil)
		var cs struct {
			OffsetTable map[string]struct{ BrokerOffset, ConsumerOffset int64 } `json:"offsetTable"`
		}
		stdJSON(t, r.Body, &cs)
		var broker, consumer int64
		for k, v := range cs.OffsetTable {
			if _, _, _, err := compat.ParseMessageQueueKey(k); err != nil {
				t.Fatalf("consume stats key %q: %v", k, err)
			}
			broker += v.BrokerOffset
			consumer += v.ConsumerOffset
		}
		return broker == 8 && consumer == 8
	})

	// GET_CONSUMER_RUNNING_INFO is relayed to the Go client. (The Go client answers with an
	// empty body and "json marshal error: ... NaN" until its consume statistics have a
	// sample: a client bug, so the relay is checked by the client's own answer.)
	var last *protocol.Command
	eventually(t, 30*time.Second, "running info from the client", func() bool {
		last = w.call(protocol.CodeGetConsumerRunningInfo, &protocol.GetConsumerRunningInfoRequestHeader{ConsumerGroup: group, ClientID: clientID}, nil)
		return last.ResponseCode() == protocol.ResSuccess && strings.Contains(string(last.Body), "PROP_CLIENT_VERSION")
	})
	if r := w.call(protocol.CodeGetConsumerRunningInfo, &protocol.GetConsumerRunningInfoRequestHeader{ConsumerGroup: group, ClientID: "ghost"}, nil); r.ResponseCode() != protocol.ResSystemError ||
		r.Remark != fmt.Sprintf("The Consumer <%s> <ghost> not online", group) {
		t.Fatalf("ghost client: %v %q", r.ResponseCode(), r.Remark)
	}

	// INVOKE_BROKER_TO_GET_CONSUMER_STATUS relays GET_CONSUMER_STATUS_FROM_CLIENT.
	r = w.call(protocol.CodeInvokeBrokerToGetConsumerStatus, &protocol.GetConsumerStatusRequestHeader{Topic: topic, Group: group}, nil)
	var st struct {
		ConsumerTable map[string]map[string]int64 `json:"consumerTable"`
	}
	stdJSON(t, r.Body, &st)
	if len(st.ConsumerTable[clientID]) == 0 {
		t.Fatalf("consumer status: %s", r.Body)
	}

	// QUERY_TOPIC_CONSUME_BY_WHO, GET_TOPIC_STATS_INFO, GET_PRODUCER_CONNECTION_LIST
	r = w.call(protocol.CodeQueryTopicConsumeByWho, &protocol.QueryTopicConsumeByWhoRequestHeader{Topic: topic}, nil)
	if !strings.Contains(string(r.Body), `"`+group+`"`) {
		t.Fatalf("consume by who: %s", r.Body)
	}
	r = w.call(protocol.CodeGetTopicStatsInfo, &protocol.GetTopicStatsInfoRequestHeader{Topic: topic}, nil)
	var ts struct {
		OffsetTable map[string]struct{ MaxOffset, MinOffset, LastUpdateTimestamp int64 } `json:"offsetTable"`
	}
	stdJSON(t, r.Body, &ts)
	var sum int64
	for _, v := range ts.OffsetTable {
		sum += v.MaxOffset
	}
	if len(ts.OffsetTable) != 4 || sum != 8 {
		t.Fatalf("topic stats: %s", r.Body)
	}

	// QUERY_MESSAGE by key, VIEW_MESSAGE_BY_ID by offset msgId.
	now := time.Now().UnixMilli()
	r = w.call(protocol.CodeQueryMessage, &protocol.QueryMessageRequestHeader{Topic: topic, Key: "key-3", MaxNum: 32, BeginTimestamp: 0, EndTimestamp: now + 1000}, nil)
	if r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("query by key: %v %q", r.ResponseCode(), r.Remark)
	}
	found := false
	_ = message.WalkRecords(r.Body, func(rec *message.Record) bool {
		if string(rec.Body) == "adm-3" {
			found = true
		}
		return true
	})
	if !found {
		t.Fatal("query by key did not return the message")
	}
	if r := w.call(protocol.CodeQueryMessage, &protocol.QueryMessageRequestHeader{Topic: topic, Key: "no-such-key", MaxNum: 32, EndTimestamp: now + 1000}, nil); r.ResponseCode() != protocol.ResQueryNotFound ||
		r.Remark != "can not find message, maybe time range not correct" {
		t.Fatalf("query missing key: %v %q", r.ResponseCode(), r.Remark)
	}
	host, off, err := message.DecodeOffsetMsgID(firstID)
	if err != nil || host.String() != c.broker.Addr() {
		t.Fatalf("offset msgId %s: %v %v", firstID, host, err)
	}
	r = w.call(protocol.CodeViewMessageById, &protocol.ViewMessageRequestHeader{Offset: off}, nil)
	rec, err := message.DecodeRecord(r.Body)
	if err != nil || string(rec.Body) != "adm-0" {
		t.Fatalf("view by id: %v %q", err, rec.Body)
	}
	if r := w.call(protocol.CodeViewMessageById, &protocol.ViewMessageRequestHeader{Offset: off + 3}, nil); r.ResponseCode() != protocol.ResSystemError {
		t.Fatalf("view by a bad offset: %v", r.ResponseCode())
	}

	// INVOKE_BROKER_TO_RESET_OFFSET to the beginning: the Go consumer consumes everything again.
	before, _ := got.count()
	_, total := got.count()
	_ = before
	r = w.call(protocol.CodeInvokeBrokerToResetOffset, &protocol.ResetOffsetRequestHeader{Topic: topic, Group: group, Timestamp: 0, IsForce: true}, nil)
	if r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("reset offset: %v %q", r.ResponseCode(), r.Remark)
	}
	eventually(t, 60*time.Second, "messages consumed again after the reset", func() bool { _, n := got.count(); return n >= total+8 })
}
