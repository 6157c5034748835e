package conformance

import (
	"context"
	"testing"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// startPushConsumer starts an unmodified Go push consumer on topic; it is shut down at
// the end of the test (or earlier by calling the returned stop).
func startPushConsumer(t *testing.T, ns, group, topic string, sel consumer.MessageSelector,
	fn func(context.Context, ...*primitive.MessageExt) (consumer.ConsumeResult, error), opts ...consumer.Option) (stop func()) {
	t.Helper()
	all := append([]consumer.Option{consumer.WithGroupName(group), consumer.WithInstance(unique("c")),
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{ns})),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset)}, opts...)
	pc, err := consumer.NewPushConsumer(all...)
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.Subscribe(topic, sel, fn); err != nil {
		t.Fatal(err)
	}
	if err := pc.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			_ = pc.Shutdown()
		}
	}
	t.Cleanup(stop)
	return stop
}

// collect is a consume callback that records into r and succeeds.
func collect(r *received) func(context.Context, ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
	return func(_ context.Context, ms ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		r.add(ms...)
		return consumer.ConsumeSuccess, nil
	}
}

var all = consumer.MessageSelector{Type: consumer.TAG, Expression: "*"}

func newPullConsumer(t *testing.T, ns, group string, opts ...consumer.Option) rocketmq.PullConsumer {
	t.Helper()
	all := append([]consumer.Option{consumer.WithGroupName(group), consumer.WithInstance(unique("pc")),
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{ns}))}, opts...)
	pc, err := rocketmq.NewPullConsumer(all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Shutdown() })
	return pc
}
