package conformance

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
)

func newProducer(t *testing.T, ns string, opts ...producer.Option) interface {
	SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
	SendAsync(context.Context, func(context.Context, *primitive.SendResult, error), ...*primitive.Message) error
	SendOneWay(context.Context, ...*primitive.Message) error
	Shutdown() error
} {
	t.Helper()
	all := append([]producer.Option{producer.WithGroupName(unique("PG")), producer.WithInstanceName(unique("p")),
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{ns})), producer.WithRetry(2)}, opts...)
	p, err := producer.NewDefaultProducer(all...)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown() })
	return p
}

// received collects messages a consumer callback saw, keyed by body.
type received struct {
	mu   sync.Mutex
	msgs map[string]*primitive.MessageExt
	n    int
}

func newReceived() *received { return &received{msgs: map[string]*primitive.MessageExt{}} }

func (r *received) add(ms ...*primitive.MessageExt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range ms {
		r.msgs[string(m.Body)] = m
		r.n++
	}
}

func (r *received) count() (distinct, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.msgs), r.n
}

func TestConformance_Broker_SendAndPushConsume(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("T")
	p := newProducer(t, c.nsAddr())
	const n = 20
	sent := map[string]*primitive.SendResult{}
	for i := 0; i < n; i++ {
		m := primitive.NewMessage(topic, []byte(fmt.Sprintf("msg-%d", i)))
		m.WithTag("TagA")
		m.WithKeys([]string{fmt.Sprintf("k%d", i)})
		m.WithProperty("custom", "v")
		res, err := p.SendSync(context.Background(), m)
		if err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		if res.Status != primitive.SendOK {
			t.Fatalf("send %d: status %v", i, res.Status)
		}
		sent[string(m.Body)] = res
	}
	got := newReceived()
	pc, err := consumer.NewPushConsumer(consumer.WithGroupName(unique("CG")), consumer.WithInstance(unique("c")),
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{c.nsAddr()})),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.Subscribe(topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "*"}, func(_ context.Context, ms ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		got.add(ms...)
		return consumer.ConsumeSuccess, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := pc.Start(); err != nil {
		t.Fatal(err)
	}
	defer pc.Shutdown()
	eventually(t, 30*time.Second, "all messages consumed", func() bool { d, _ := got.count(); return d == n })
	for body, res := range sent {
		m := got.msgs[body]
		if m.GetTags() != "TagA" || m.GetProperty("custom") != "v" || m.MsgId != res.MsgID || m.OffsetMsgId != res.OffsetMsgID {
			t.Fatalf("message %s: tags %q custom %q msgId %s/%s offsetMsgId %s/%s", body, m.GetTags(), m.GetProperty("custom"), m.MsgId, res.MsgID, m.OffsetMsgId, res.OffsetMsgID)
		}
		if m.GetProperty("CLUSTER") != "DefaultCluster" {
			t.Fatalf("CLUSTER property missing: %v", m.GetProperties())
		}
	}
}
