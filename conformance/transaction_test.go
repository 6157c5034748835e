package conformance

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
)

// txListener decides local transactions by message body and counts check-backs.
type txListener struct {
	mu      sync.Mutex
	execute map[string]primitive.LocalTransactionState // default: commit
	check   map[string]primitive.LocalTransactionState // default: unknown
	checked map[string]int
}

func newTxListener() *txListener {
	return &txListener{execute: map[string]primitive.LocalTransactionState{}, check: map[string]primitive.LocalTransactionState{},
		checked: map[string]int{}}
}

func (l *txListener) ExecuteLocalTransaction(m *primitive.Message) primitive.LocalTransactionState {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.execute[string(m.Body)]; ok {
		return s
	}
	return primitive.CommitMessageState
}

func (l *txListener) CheckLocalTransaction(m *primitive.MessageExt) primitive.LocalTransactionState {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.checked[string(m.Body)]++
	if s, ok := l.check[string(m.Body)]; ok {
		return s
	}
	return primitive.UnkonwnState
}

func (l *txListener) checks(body string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checked[body]
}

// txBodyCounter counts consumed messages by body.
type txBodyCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (b *txBodyCounter) consume(_ context.Context, ms ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range ms {
		b.n[string(m.Body)]++
	}
	return consumer.ConsumeSuccess, nil
}

func (b *txBodyCounter) get(body string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n[body]
}

// txCluster shortens the check schedule: a round every second, half messages older
// than one second are checked.
func txCluster(t *testing.T, mutate func(*broker.Options)) *cluster {
	return startCluster(t, func(o *broker.Options) {
		o.TransactionCheckInterval = time.Second
		o.TransactionTimeOut = time.Second
		if mutate != nil {
			mutate(o)
		}
	})
}

type txProducer interface {
	SendMessageInTransaction(context.Context, *primitive.Message) (*primitive.TransactionSendResult, error)
	Shutdown() error
}

// newTxProducer starts an unmodified Go transaction producer with its own group and
// instance name (so its client's group is the one checks are routed by, E.18).
func newTxProducer(t *testing.T, ns string, l primitive.TransactionListener) (txProducer, string) {
	t.Helper()
	group := unique("TPG")
	p, err := producer.NewTransactionProducer(l, producer.WithGroupName(group), producer.WithInstanceName(unique("tp")),
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{ns})), producer.WithRetry(2))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown() })
	return p, group
}

func sendTx(t *testing.T, p txProducer, topic, body string, want primitive.LocalTransactionState) {
	t.Helper()
	res, err := p.SendMessageInTransaction(context.Background(), primitive.NewMessage(topic, []byte(body)))
	if err != nil {
		t.Fatalf("send %s: %v", body, err)
	}
	if res.Status != primitive.SendOK || res.State != want || len(res.OffsetMsgID) != 32 {
		t.Fatalf("send %s: status %v state %v offsetMsgId %q", body, res.Status, res.State, res.OffsetMsgID)
	}
}

// txStored counts the messages stored in a topic's queues.
func txStored(c *cluster, topic string) int64 {
	var n int64
	for q := int32(0); q < 16; q++ {
		n += c.broker.Store().MaxOffsetInQueue(topic, q)
	}
	return n
}

// txSettled reports that the check service has passed every half message and op message
// the broker holds: every transaction is resolved and none will be checked again. It
// reads the CID_RMQ_SYS_TRANS offsets over the wire, as an admin tool would.
func txSettled(c *cluster, w *wire) bool {
	st := c.broker.Store()
	half, op := st.MaxOffsetInQueue(meta.TopicTransHalf, 0), st.MaxOffsetInQueue(meta.TopicTransOpHalf, 0)
	return half > 0 && txGroupOffset(w, meta.TopicTransHalf) == half && txGroupOffset(w, meta.TopicTransOpHalf) == op
}

func txGroupOffset(w *wire, topic string) int64 {
	resp := w.call(protocol.CodeQueryConsumerOffset, &protocol.QueryConsumerOffsetRequestHeader{
		ConsumerGroup: broker.TransCheckGroup, Topic: topic, QueueID: 0}, nil)
	var h protocol.QueryConsumerOffsetResponseHeader
	if resp.Code != int32(protocol.ResSuccess) || h.Decode(resp.Ext) != nil {
		return -1
	}
	return h.Offset
}

// txScenario sends one transactional message whose local transaction ends in exec and
// whose check-back answers check, optionally restarting the broker right after the half
// message is stored, then a committed sentinel. It returns once the check service has
// settled, with the consumer's counts.
func txScenario(t *testing.T, exec, check primitive.LocalTransactionState, restart bool) (l *txListener, got *txBodyCounter, stored int64) {
	c := txCluster(t, func(o *broker.Options) {
		if restart {
			// Before the producer's next heartbeat registers it again, rounds find no
			// channel and only count checks: keep the message from being discarded.
			o.TransactionCheckMax = 1000
		}
	})
	w := newWire(t, c.broker.Addr())
	topic := unique("TTx")
	l = newTxListener()
	l.execute["tx"] = exec
	l.check["tx"] = check
	p, _ := newTxProducer(t, c.nsAddr(), l)
	sendTx(t, p, topic, "tx", exec)
	if restart {
		c.restartBroker()
		w = newWire(t, c.broker.Addr())
	}
	got = &txBodyCounter{n: map[string]int{}}
	startPushConsumer(t, c.nsAddr(), unique("CG"), topic, all, got.consume)
	sendTx(t, p, topic, "sentinel", primitive.CommitMessageState)
	// Both transactions (tx and the sentinel) resolved: each commit or rollback writes one op
	// message. Without this the check service can look settled between sending a check
	// and the producer's END_TRANSACTION answer (oneway), before the commit is stored: a CI
	// run counted 1 message stored for a checked-back commit it then consumed.
	eventually(t, 45*time.Second, "both transactions resolved and the check service settled", func() bool {
		return c.broker.Store().MaxOffsetInQueue(meta.TopicTransOpHalf, 0) >= 2 && txSettled(c, w)
	})
	eventually(t, 20*time.Second, "the sentinel consumed", func() bool { return got.get("sentinel") == 1 })
	return l, got, txStored(c, topic)
}

func TestConformance_Transaction_CommitDeliversOnce(t *testing.T) {
	l, got, stored := txScenario(t, primitive.CommitMessageState, primitive.UnkonwnState, false)
	eventually(t, 10*time.Second, "the committed message consumed", func() bool { return got.get("tx") >= 1 })
	if n := got.get("tx"); n != 1 || stored != 2 {
		t.Fatalf("committed message consumed %d times, %d messages stored; want 1 and 2 (with the sentinel)", n, stored)
	}
	if n := l.checks("tx"); n != 0 {
		t.Fatalf("a committed transaction was checked back %d times", n)
	}
}

func TestConformance_Transaction_RollbackDeliversNothing(t *testing.T) {
	l, got, stored := txScenario(t, primitive.RollbackMessageState, primitive.UnkonwnState, false)
	if n := got.get("tx"); n != 0 || stored != 1 {
		t.Fatalf("rolled-back message consumed %d times, %d messages stored; want 0 and 1 (the sentinel)", n, stored)
	}
	if n := l.checks("tx"); n != 0 {
		t.Fatalf("a rolled-back transaction was checked back %d times", n)
	}
}

func TestConformance_Transaction_UnknownThenCheckCommit(t *testing.T) {
	l, got, stored := txScenario(t, primitive.UnkonwnState, primitive.CommitMessageState, false)
	eventually(t, 10*time.Second, "the checked-back message consumed", func() bool { return got.get("tx") >= 1 })
	if n := got.get("tx"); n != 1 || stored != 2 {
		t.Fatalf("checked-back commit consumed %d times, %d messages stored; want 1 and 2", n, stored)
	}
	if n := l.checks("tx"); n < 1 {
		t.Fatal("CheckLocalTransaction was never called")
	}
}

func TestConformance_Transaction_UnknownThenCheckRollback(t *testing.T) {
	l, got, stored := txScenario(t, primitive.UnkonwnState, primitive.RollbackMessageState, false)
	if n := got.get("tx"); n != 0 || stored != 1 {
		t.Fatalf("checked-back rollback consumed %d times, %d messages stored; want 0 and 1", n, stored)
	}
	if n := l.checks("tx"); n < 1 {
		t.Fatal("CheckLocalTransaction was never called")
	}
}

func TestConformance_Transaction_CheckAcrossBrokerRestart(t *testing.T) {
	for _, c := range []struct {
		name  string
		check primitive.LocalTransactionState
		want  int
	}{{"commit", primitive.CommitMessageState, 1}, {"rollback", primitive.RollbackMessageState, 0}} {
		t.Run(c.name, func(t *testing.T) {
			l, got, stored := txScenario(t, primitive.UnkonwnState, c.check, true)
			if c.want == 1 {
				eventually(t, 10*time.Second, "the checked-back message consumed", func() bool { return got.get("tx") >= 1 })
			}
			if n := got.get("tx"); n != c.want || stored != int64(c.want+1) {
				t.Fatalf("consumed %d times, %d messages stored; want %d and %d", n, stored, c.want, c.want+1)
			}
			if n := l.checks("tx"); n < 1 {
				t.Fatal("CheckLocalTransaction was never called after the restart")
			}
		})
	}
}
