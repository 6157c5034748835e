package conformance

// Request-reply with the unmodified Go client: the requester's Request() blocks until the
// responder's reply (SEND_REPLY_MESSAGE, code 324) is pushed back by the broker with
// PUSH_REPLY_MESSAGE_TO_CLIENT to the client named in REPLY_TO_CLIENT. The Go client's
// CreateReplyMessage puts the reply body into properties (a client bug), so the reply is
// matched by its correlation id, not its body.

import (
	"context"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

func TestConformance_Broker_RequestReply(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Req")
	pg := unique("RPG")
	requester, err := producer.NewDefaultProducer(producer.WithGroupName(pg), producer.WithInstanceName(unique("req")),
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{c.nsAddr()})))
	if err != nil {
		t.Fatal(err)
	}
	if err := requester.Start(); err != nil {
		t.Fatal(err)
	}
	defer requester.Shutdown()
	responder := newProducer(t, c.nsAddr())
	// create the topic and wait for the requester's producer heartbeat (the broker pushes
	// replies on that channel)
	if _, err := requester.SendSync(context.Background(), primitive.NewMessage(topic, []byte("warm"))); err != nil {
		t.Fatal(err)
	}
	w := newWire(t, c.broker.Addr())
	eventually(t, 10*time.Second, "requester heartbeat", func() bool {
		return w.call(protocol.CodeGetProducerConnectionList, &protocol.GetProducerConnectionListRequestHeader{ProducerGroup: pg}, nil).ResponseCode() == protocol.ResSuccess
	})
	replied := make(chan string, 4)
	startPushConsumer(t, c.nsAddr(), unique("RCG"), topic, all, func(_ context.Context, ms ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		for _, m := range ms {
			if string(m.Body) == "warm" {
				continue
			}
			reply, err := consumer.CreateReplyMessage(m, []byte("pong"))
			if err != nil {
				t.Errorf("create reply: %v", err)
				continue
			}
			if _, err := responder.SendSync(context.Background(), reply); err != nil {
				t.Errorf("send reply: %v", err)
				continue
			}
			replied <- m.GetProperty(primitive.PropertyCorrelationID)
		}
		return consumer.ConsumeSuccess, nil
	})
	req := primitive.NewMessage(topic, []byte("ping"))
	reply, err := requester.Request(context.Background(), 20*time.Second, req)
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	corr := <-replied
	if reply.GetProperty(primitive.PropertyCorrelationID) != corr || reply.GetProperty(primitive.PropertyMsgType) != "reply" {
		t.Fatalf("reply %v does not match correlation id %s", reply.GetProperties(), corr)
	}
	if reply.Topic != "DefaultCluster_REPLY_TOPIC" {
		t.Fatalf("reply topic %q", reply.Topic)
	}
}
