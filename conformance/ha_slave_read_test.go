package conformance

// Reading from the slave with an in-process Skyrocket pair and the unmodified Go client
// (issue 9, ha-facts.md §8): with slaveReadEnable the master's pull answer suggests the
// group's whichBrokerWhenConsumeSlowly (1) once the consumer is behind what fits in memory,
// and the Go push consumer follows it to the slave; without slaveReadEnable the suggestion
// is 0 and every pull stays on the master. Then a push consumer that goes on from the
// slave while the master is down, and back to the master once it restarts, without losing
// or re-reading committed progress.

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
)

const slaveReadQueues = 4 // createRoutedTopic's

// slaveReadPair is an ASYNC_MASTER and its slave where any backlog counts as "behind what
// fits in memory" (accessMessageInMemoryMaxRatio=0, store.Config's -1), slaveReadEnable as
// given on both (Java reads the flag on whichever broker answers the pull).
func slaveReadPair(t *testing.T, slaveRead bool) *haPair {
	return startHAPair(t, broker.RoleAsyncMaster, func(m, s *broker.Options) {
		for _, o := range []*broker.Options{m, s} {
			o.SlaveReadEnable = slaveRead
			o.Store.AccessMessageInMemoryMaxRatio = -1
		}
	})
}

// rawPullSuggestion pulls queue 0 of topic from offset 0 over the raw wire and returns the
// answer's suggestWhichBrokerId, once the pull finds messages (a slave learns the topic
// within its metadata sync period).
func rawPullSuggestion(t *testing.T, s *side, addr, group, topic string) int64 {
	t.Helper()
	var r *protocol.Command
	eventually(t, 10*time.Second, "a raw pull from "+addr+" to find messages", func() bool {
		r = s.call(t, addr, pull(group, topic, 0, 0))
		return r.Code == int32(protocol.ResSuccess)
	})
	var h protocol.PullMessageResponseHeader
	if err := h.Decode(r.Ext); err != nil {
		t.Fatalf("%s: raw pull from %s: header %v: %v", s.name, addr, r.Ext, err)
	}
	return h.SuggestWhichBrokerID
}

// consumeCountingBrokers sends n messages, consumes them with a Go push consumer and
// returns how many messages the master and the slave served to it (msgGetTotalTodayNow).
func consumeCountingBrokers(t *testing.T, p *haPair, topic string, n int) (fromMaster, fromSlave int64) {
	t.Helper()
	mw, sw := newWire(t, p.master.opts.ListenAddr), newWire(t, p.slave.opts.ListenAddr)
	sent := sendLoad(t, newProducer(t, p.ns.Addr()), topic, "backlog", n, primitive.SendOK)
	p.waitCaughtUp(10 * time.Second)
	m0, s0 := msgGetTotal(t, mw), msgGetTotal(t, sw)
	got := newReceived()
	startPushConsumer(t, p.ns.Addr(), unique("CGSlaveRead"), topic, all, collect(got))
	eventually(t, 30*time.Second, "every message consumed", func() bool {
		d, _ := got.count()
		return d >= n
	})
	got.mu.Lock()
	for _, b := range sent {
		if _, ok := got.msgs[b]; !ok {
			got.mu.Unlock()
			t.Fatalf("message %q... not consumed", b[:30])
		}
	}
	got.mu.Unlock()
	return msgGetTotal(t, mw) - m0, msgGetTotal(t, sw) - s0
}

func TestHA_SlaveRead_MasterSuggestsSlaveAndGoClientFollows(t *testing.T) {
	p := slaveReadPair(t, true)
	topic := unique("TSlaveRead")
	createRoutedTopic(t, newWire(t, p.master.opts.ListenAddr), p.ns.Addr(), topic)
	const n = 400
	fromMaster, fromSlave := consumeCountingBrokers(t, p, topic, n)
	t.Logf("slaveReadEnable, every backlog too large for memory: the master served %d messages to the Go push consumer, the slave %d", fromMaster, fromSlave)
	// The first pull of each queue goes to the master (at most 8 messages: the on-disk
	// transfer limit); its answer sends the client to brokerId 1, and the slave, with the
	// same settings, keeps it there.
	if fromSlave < n-slaveReadQueues*8 || fromMaster > slaveReadQueues*8 {
		t.Fatalf("master served %d, slave %d of %d messages: want all but the first pull per queue from the slave", fromMaster, fromSlave, n)
	}

	// The raw answers: both brokers suggest whichBrokerWhenConsumeSlowly (1).
	s := newSide(t, "skyrocket", p.ns.Addr(), p.master.opts.ListenAddr)
	group := unique("CGSlaveReadRaw")
	if id := rawPullSuggestion(t, s, p.master.opts.ListenAddr, group, topic); id != 1 {
		t.Fatalf("the master suggests brokerId %d to a consumer behind, want 1 (whichBrokerWhenConsumeSlowly)", id)
	}
	if id := rawPullSuggestion(t, s, p.slave.opts.ListenAddr, group, topic); id != 1 {
		t.Fatalf("the slave suggests brokerId %d to a consumer behind, want 1", id)
	}
}

func TestHA_SlaveRead_DisabledMasterSuggestsZero(t *testing.T) {
	p := slaveReadPair(t, false)
	topic := unique("TNoSlaveRead")
	createRoutedTopic(t, newWire(t, p.master.opts.ListenAddr), p.ns.Addr(), topic)
	const n = 200
	fromMaster, fromSlave := consumeCountingBrokers(t, p, topic, n)
	t.Logf("slaveReadEnable=false, every backlog too large for memory: the master served %d messages, the slave %d", fromMaster, fromSlave)
	if fromSlave != 0 || fromMaster < n {
		t.Fatalf("master served %d, slave %d of %d messages: want every one from the master", fromMaster, fromSlave, n)
	}
	s := newSide(t, "skyrocket", p.ns.Addr(), p.master.opts.ListenAddr)
	group := unique("CGNoSlaveReadRaw")
	if id := rawPullSuggestion(t, s, p.master.opts.ListenAddr, group, topic); id != 0 {
		t.Fatalf("the master without slaveReadEnable suggests brokerId %d, want 0", id)
	}
	// A slave without slaveReadEnable serves the pull and sends the client back to 0.
	if id := rawPullSuggestion(t, s, p.slave.opts.ListenAddr, group, topic); id != 0 {
		t.Fatalf("the slave without slaveReadEnable suggests brokerId %d, want 0", id)
	}
}

// deliveryCounts counts how often each body was delivered.
type deliveryCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (d *deliveryCounts) add(ms ...*primitive.MessageExt) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range ms {
		d.n[string(m.Body)]++
	}
}

// has reports whether every body in want was delivered.
func (d *deliveryCounts) has(want []string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, b := range want {
		if d.n[b] == 0 {
			return false
		}
	}
	return true
}

// twice is the number of bodies delivered more than once and the extra deliveries.
func (d *deliveryCounts) twice() (bodies, extra int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.n {
		if c > 1 {
			bodies++
			extra += c - 1
		}
	}
	return bodies, extra
}

// committed is the group's committed offset per queue on the broker behind w (-1 where
// none) and their sum.
func committed(t *testing.T, w *wire, group, topic string) ([]int64, int64) {
	t.Helper()
	offs := make([]int64, slaveReadQueues)
	var sum int64
	for q := range offs {
		r := w.call(protocol.CodeQueryConsumerOffset, &protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: int32(q)}, nil)
		var h protocol.QueryConsumerOffsetResponseHeader
		offs[q] = -1
		if r.ResponseCode() == protocol.ResSuccess && h.Decode(r.Ext) == nil {
			offs[q] = h.Offset
			sum += h.Offset
		}
	}
	return offs, sum
}

// queueEnds is each queue's max offset on the broker behind w.
func queueEnds(t *testing.T, w *wire, topic string) []int64 {
	t.Helper()
	ends := make([]int64, slaveReadQueues)
	for q := range ends {
		r := w.call(protocol.CodeGetMaxOffset, &protocol.GetMaxOffsetRequestHeader{Topic: topic, QueueID: int32(q)}, nil)
		var h protocol.GetMaxOffsetResponseHeader
		if r.ResponseCode() != protocol.ResSuccess || h.Decode(r.Ext) != nil {
			t.Fatalf("GET_MAX_OFFSET %s/%d: %v %q", topic, q, r.ResponseCode(), r.Remark)
		}
		ends[q] = h.Offset
	}
	return ends
}

// TestHA_PushConsumer_ResumesOnMasterAfterRestart: the default setup (SYNC_MASTER, no
// slaveReadEnable). A Go push consumer is consuming when the master stops; it goes on from
// the slave (once its 30 s route refresh drops the master) with its offsets in memory (the
// Go client commits to brokerId 0 only); the master restarts, more messages are sent, the
// consumer gets them all and the master ends with the whole progress committed.
//
// One redelivery path is the Go client's own and is allowed, bounded, only when it is seen
// to happen: a rebalance that asks a broker for the group's consumers before the client's
// heartbeat (every 30 s) has reached it gets SYSTEM_ERROR "no consumer for this group", as
// from Java's broker; the Go client ignores the response code, reads the empty body as an
// empty list, drops every queue and takes them up again 20 s later from the committed
// offsets, so what it had pulled and not yet committed is delivered again (Java's client
// treats the error as "no list" and keeps its queues).
func TestHA_PushConsumer_ResumesOnMasterAfterRestart(t *testing.T) {
	topic, group := unique("THAResume"), unique("CGHAResume")
	refusals := &lineCounter{needles: [][]byte{[]byte("getConsumerGroupInfo failed"), []byte(`"group":"` + group + `"`)}}
	p := startHAPair(t, broker.RoleSyncMaster, func(m, s *broker.Options) {
		m.Logger = zerolog.New(refusals).Level(zerolog.WarnLevel)
		s.Logger = zerolog.New(refusals).Level(zerolog.WarnLevel)
	})
	mw := newWire(t, p.master.opts.ListenAddr)
	createRoutedTopic(t, mw, p.ns.Addr(), topic)
	prod := newProducer(t, p.ns.Addr())
	probeSendOK(t, prod, unique("THAResumeProbe"), 20*time.Second)
	const n1, n2 = 200, 200
	sent := sendLoad(t, prod, topic, "before", n1, primitive.SendOK)

	// The consumer takes the first 60 deliveries, then holds the next at a gate (its
	// flow control then stops its pulls) until the master is down.
	got := &deliveryCounts{n: map[string]int{}}
	gate := make(chan struct{})
	var openOnce sync.Once
	open := func() { openOnce.Do(func() { close(gate) }) }
	t.Cleanup(open)
	var taken, held int
	var mu sync.Mutex
	startPushConsumer(t, p.ns.Addr(), group, topic, all,
		func(_ context.Context, ms ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			mu.Lock()
			wait := taken >= 60
			if wait {
				held += len(ms)
			} else {
				taken += len(ms)
			}
			mu.Unlock()
			if wait {
				<-gate
			}
			got.add(ms...)
			return consumer.ConsumeSuccess, nil
		},
		consumer.WithPullBatchSize(4), consumer.WithPullThresholdForTopic(8), consumer.WithPullThresholdForQueue(2))
	// Committed progress on the master before it stops (the client persists every 5 s).
	var before int64
	eventually(t, 20*time.Second, "progress committed on the master", func() bool {
		_, before = committed(t, mw, group, topic)
		return before >= 40
	})
	// The slave must know the topic to serve it once the master is gone.
	tw := time.Now()
	eventually(t, 10*time.Second, "the topic on the slave", func() bool {
		_, ok := p.slave.broker.TopicConfig(topic)
		return ok
	})
	t.Logf("the topic was on the slave %v after the commit wait", time.Since(tw).Round(time.Millisecond))
	t0 := time.Now()
	refusedBefore := refusals.count() // the consumer's first rebalance may precede its heartbeat: nothing pulled yet
	p.master.stopBroker()
	mu.Lock()
	t.Logf("master stopped with %d offsets committed on it; %d delivered, %d held at the gate", before, taken, held)
	mu.Unlock()
	open()
	eventually(t, 45*time.Second, "the first messages consumed, the rest from the slave", func() bool { return got.has(sent) })
	t.Logf("all %d messages consumed %v after the master stopped", n1, time.Since(t0).Round(time.Millisecond))

	t1 := time.Now()
	p.master.startBroker()
	mw = newWire(t, p.master.opts.ListenAddr)
	if offs, sum := committed(t, mw, group, topic); sum < before {
		t.Fatalf("the restarted master holds offsets %v (sum %d), less than the %d committed before it stopped", offs, sum, before)
	}
	// A new producer: the old one's cached route has no master until its 30 s refresh.
	prod = newProducer(t, p.ns.Addr())
	probes := 0
	eventually(t, 35*time.Second, "SEND_OK on the topic from the restarted master", func() bool {
		probes++
		res, err := prod.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("probe-%d", probes))))
		return err == nil && res.Status == primitive.SendOK
	})
	t.Logf("the producer sends to the restarted master after %d probes, %v after the restart", probes, time.Since(t1).Round(time.Millisecond))
	sent = append(sent, sendLoad(t, prod, topic, "after", n2, primitive.SendOK)...)
	eventually(t, 30*time.Second, "the messages sent after the restart consumed", func() bool { return got.has(sent) })
	var offs, ends []int64
	eventually(t, 20*time.Second, "the whole progress committed on the restarted master", func() bool {
		offs, _ = committed(t, mw, group, topic)
		ends = queueEnds(t, mw, topic)
		return slices.Equal(offs, ends)
	})
	t.Logf("committed offsets on the master %v = the queue ends", offs)
	bodies, extra := got.twice()
	t.Logf("%d messages consumed in %v in all; %d delivered more than once (%d extra deliveries); the master's committed offsets reached the queue ends",
		n1+n2, time.Since(t0).Round(time.Millisecond), bodies, extra)
	// The Go client keeps its offsets in memory while commits fail and pulls from them, as
	// Java's RemoteBrokerOffsetStore does: nothing is read again, unless a rebalance was
	// refused the consumer list (see above); then at most what the client held pulled and
	// uncommitted per queue (its pull threshold plus one batch) comes again.
	if n := refusals.count() - refusedBefore; n > 0 {
		const bound = 4 * (2 + 4) // queues × (pullThresholdForQueue + pullBatchSize)
		t.Logf("%d GET_CONSUMER_LIST_BY_GROUP refused before the client's heartbeat reached the broker: up to %d extra deliveries allowed", n, bound)
		if extra > bound {
			t.Fatalf("%d messages delivered more than once (%d extra deliveries, more than the %d a dropped queue set can hold)", bodies, extra, bound)
		}
	} else if extra != 0 {
		t.Fatalf("%d messages delivered more than once (%d extra deliveries)", bodies, extra)
	}
}

// lineCounter counts log events (zerolog writes one per Write) that hold every needle.
type lineCounter struct {
	needles [][]byte
	n       atomic.Int64
}

func (l *lineCounter) Write(p []byte) (int, error) {
	for _, nd := range l.needles {
		if !bytes.Contains(p, nd) {
			return len(p), nil
		}
	}
	l.n.Add(1)
	return len(p), nil
}

func (l *lineCounter) count() int64 { return l.n.Load() }
