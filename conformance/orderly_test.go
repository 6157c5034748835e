package conformance

// Ordered consumption with the unmodified Go client: messages of one order share a
// queue (hash selector on the sharding key); orderly consumers lock their queues with
// LOCK_BATCH_MQ; a second consumer joining mid-stream triggers a rebalance, and every
// order's steps must still be seen in sequence (a step may be redelivered, never skipped
// or reordered).

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
)

type orderTracker struct {
	mu      sync.Mutex
	maxStep map[string]int
	bad     []string
}

func (o *orderTracker) see(order string, step int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	max, ok := o.maxStep[order]
	if !ok {
		max = -1
	}
	if step > max+1 {
		o.bad = append(o.bad, fmt.Sprintf("%s: step %d after %d", order, step, max))
	}
	if step > max {
		o.maxStep[order] = step
	}
}

func (o *orderTracker) complete(orders, steps int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.maxStep) != orders {
		return false
	}
	for _, m := range o.maxStep {
		if m != steps-1 {
			return false
		}
	}
	return true
}

func TestConformance_Broker_OrderlyAcrossRebalance(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Order")
	p := newProducer(t, c.nsAddr(), producer.WithQueueSelector(producer.NewHashQueueSelector()))
	if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte("warm:0"))); err != nil {
		t.Fatal(err)
	}
	const orders, steps = 8, 12
	tr := &orderTracker{maxStep: map[string]int{}}
	handler := func(_ context.Context, ms ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		for _, m := range ms {
			order, step, ok := strings.Cut(string(m.Body), ":")
			if !ok || order == "warm" {
				continue
			}
			n, _ := strconv.Atoi(step)
			tr.see(order, n)
			time.Sleep(2 * time.Millisecond)
		}
		return consumer.ConsumeSuccess, nil
	}
	group := unique("OG")
	opts := []consumer.Option{consumer.WithConsumerOrder(true)}
	startPushConsumer(t, c.nsAddr(), group, topic, all, handler, opts...)
	send := func(from, to int) {
		for s := from; s < to; s++ {
			for o := 0; o < orders; o++ {
				m := primitive.NewMessage(topic, []byte(fmt.Sprintf("order%d:%d", o, s)))
				m.WithShardingKey(fmt.Sprintf("order%d", o))
				if _, err := p.SendSync(context.Background(), m); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	send(0, steps/2)
	startPushConsumer(t, c.nsAddr(), group, topic, all, handler, opts...) // rebalance mid-stream
	send(steps/2, steps)
	eventually(t, 90*time.Second, "every order complete", func() bool { return tr.complete(orders, steps) })
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.bad) > 0 {
		t.Fatalf("out of order: %v", tr.bad)
	}
}
