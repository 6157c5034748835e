package conformance

// A Go push consumer that stays up while the broker restarts must resume consuming:
// its connections break, it reconnects on its next pull and heartbeat, and the broker
// (same store, same port) serves it from its committed offsets.

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
)

func TestConformance_Broker_PushConsumerSurvivesBrokerRestart(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Survive")
	p := newProducer(t, c.nsAddr())
	for i := 0; i < 8; i++ {
		if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("before-%d", i)))); err != nil {
			t.Fatal(err)
		}
	}
	got := newReceived()
	startPushConsumer(t, c.nsAddr(), unique("SG"), topic, all, collect(got))
	eventually(t, 30*time.Second, "messages before the restart", func() bool { d, _ := got.count(); return d == 8 })
	c.restartBroker()
	for i := 0; i < 8; i++ {
		var err error
		for a := 0; a < 30; a++ {
			if _, err = p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("after-%d", i)))); err == nil {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 90*time.Second, "messages after the restart, same consumer", func() bool {
		got.mu.Lock()
		defer got.mu.Unlock()
		for i := 0; i < 8; i++ {
			if got.msgs[fmt.Sprintf("after-%d", i)] == nil {
				return false
			}
		}
		return true
	})
}
