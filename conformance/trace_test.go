package conformance

// Message trace with the unmodified Go client: with traceTopicEnable the broker creates
// RMQ_SYS_TRACE_TOPIC and answers sends with TRACE_ON=true, so the producer's trace
// dispatcher publishes a trace record for every message, keyed by its msgId.

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/server/broker"
)

type passAll struct{}

func (passAll) MatchByConsumeQueue(int64) bool { return true }
func (passAll) MatchByCommitLog([]byte) bool   { return true }

func TestConformance_Broker_MessageTrace(t *testing.T) {
	c := startCluster(t, func(o *broker.Options) { o.TraceTopicEnable = true })
	topic := unique("Traced")
	p := newProducer(t, c.nsAddr(), producer.WithTrace(&primitive.TraceConfig{
		GroupName: unique("TraceG"), Access: primitive.Local, NamesrvAddrs: []string{c.nsAddr()},
	}))
	res, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte("traced body")))
	if err != nil {
		t.Fatal(err)
	}
	const traceTopic = "RMQ_SYS_TRACE_TOPIC"
	st := c.broker.Store()
	var traceBody string
	eventually(t, 30*time.Second, "a trace record naming the message", func() bool {
		r := st.GetMessage("trace-check", traceTopic, 0, 0, 32, passAll{})
		if r == nil {
			return false
		}
		defer r.Release()
		for _, b := range r.Buffers {
			rec, err := message.DecodeRecord(b)
			if err == nil && strings.Contains(string(rec.Body), res.MsgID) {
				traceBody = string(rec.Body)
				return true
			}
		}
		return false
	})
	if !strings.Contains(traceBody, topic) {
		t.Fatalf("trace record does not name the topic: %q", traceBody)
	}
}
