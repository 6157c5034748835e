package conformance

// Issue 3 scenarios with the unmodified Go client: send modes, splitting and
// broadcasting, tag filtering, pull consumers, consume-from positions, offsets across
// consumer restarts, auto-created topics, large and compressed bodies, broker restart.

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

func TestConformance_Broker_AsyncOnewayBatch(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Modes")
	p := newProducer(t, c.nsAddr())
	// warm the route with one sync send
	if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte("sync-0"))); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var asyncErr atomic.Value
	for i := 0; i < 10; i++ {
		wg.Add(1)
		err := p.SendAsync(context.Background(), func(_ context.Context, r *primitive.SendResult, err error) {
			defer wg.Done()
			if err != nil || r.Status != primitive.SendOK {
				asyncErr.Store(fmt.Sprintf("%v %v", r, err))
			}
		}, primitive.NewMessage(topic, []byte(fmt.Sprintf("async-%d", i))))
		if err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if v := asyncErr.Load(); v != nil {
		t.Fatalf("async send: %v", v)
	}
	for i := 0; i < 10; i++ {
		if err := p.SendOneWay(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("oneway-%d", i)))); err != nil {
			t.Fatal(err)
		}
	}
	var batch []*primitive.Message
	for i := 0; i < 10; i++ {
		m := primitive.NewMessage(topic, []byte(fmt.Sprintf("batch-%d", i)))
		m.WithTag("B")
		m.WithKeys([]string{fmt.Sprintf("bk%d", i)})
		batch = append(batch, m)
	}
	res, err := p.SendSync(context.Background(), batch...)
	if err != nil || res.Status != primitive.SendOK {
		t.Fatalf("batch: %v %v", res, err)
	}
	if ids := strings.Split(res.OffsetMsgID, ","); len(ids) != 10 {
		t.Fatalf("batch offset msgIds: %q", res.OffsetMsgID)
	}
	got := newReceived()
	startPushConsumer(t, c.nsAddr(), unique("CG"), topic, all, collect(got))
	eventually(t, 30*time.Second, "31 messages", func() bool { d, _ := got.count(); return d == 31 })
	got.mu.Lock()
	defer got.mu.Unlock()
	for i := 0; i < 10; i++ {
		m := got.msgs[fmt.Sprintf("batch-%d", i)]
		if m == nil || m.GetTags() != "B" || m.GetKeys() != fmt.Sprintf("bk%d", i) {
			t.Fatalf("batch element %d: %+v", i, m)
		}
	}
}

func TestConformance_Broker_ClusteringSplitsQueues(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Split")
	p := newProducer(t, c.nsAddr())
	if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte("warm"))); err != nil {
		t.Fatal(err) // consumers need the topic's route to start
	}
	group := unique("CG")
	r1, r2 := newReceived(), newReceived()
	alloc := &allocations{topic: topic, last: map[string]allocation{}}
	startPushConsumer(t, c.nsAddr(), group, topic, all, collect(r1), consumer.WithStrategy(alloc.strategy))
	startPushConsumer(t, c.nsAddr(), group, topic, all, collect(r2), consumer.WithStrategy(alloc.strategy))
	// Delivery is at-least-once while queues move between members (RocketMQ commits offsets
	// every 5 s), so the messages are sent once both members are in the group and the
	// rebalance NOTIFY_CONSUMER_IDS_CHANGED triggers has settled.
	w := newWire(t, c.broker.Addr())
	eventually(t, 10*time.Second, "both members registered", func() bool {
		r := w.call(protocol.CodeGetConsumerListByGroup, &protocol.GetConsumerListByGroupRequestHeader{ConsumerGroup: group}, nil)
		return strings.Count(string(r.Body), "@") == 2
	})
	eventually(t, 10*time.Second, "the warm-up message consumed", func() bool {
		d1, _ := r1.count()
		d2, _ := r2.count()
		return d1+d2 >= 1
	})
	eventually(t, 30*time.Second, "both members rebalanced with each other in view", func() bool { return alloc.settled(2) })
	settled := alloc.generation()
	const n = 64
	for i := 0; i < n; i++ {
		if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("m%d", i)))); err != nil {
			t.Fatal(err)
		}
	}
	seen := func(r *received) map[string]int {
		r.mu.Lock()
		defer r.mu.Unlock()
		out := map[string]int{}
		for b := range r.msgs {
			if strings.HasPrefix(b, "m") {
				out[b]++
			}
		}
		return out
	}
	eventually(t, 60*time.Second, "every message across the group", func() bool {
		return len(seen(r1))+len(seen(r2)) >= n
	})
	// A message consumed by both members needs a queue that both pulled: the allocation
	// settled before the sends and did not change since.
	if g := alloc.generation(); g != settled {
		t.Fatalf("queues moved between members while the messages were consumed (allocation %d, then %d)", settled, g)
	}
	s1, s2 := seen(r1), seen(r2)
	if len(s1) == 0 || len(s2) == 0 {
		t.Fatalf("queues not split: %d and %d messages", len(s1), len(s2))
	}
	for b := range s1 {
		if s2[b] > 0 {
			t.Fatalf("message %s consumed by both members", b)
		}
	}
	if len(s1)+len(s2) != n {
		t.Fatalf("got %d+%d distinct messages, want %d", len(s1), len(s2), n)
	}
}

func TestConformance_Broker_Broadcasting(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Bcast")
	p := newProducer(t, c.nsAddr())
	if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte("warm"))); err != nil {
		t.Fatal(err)
	}
	group := unique("BG")
	r1, r2 := newReceived(), newReceived()
	opts := []consumer.Option{consumer.WithConsumerModel(consumer.BroadCasting), consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset)}
	startPushConsumer(t, c.nsAddr(), group, topic, all, collect(r1), opts...)
	startPushConsumer(t, c.nsAddr(), group, topic, all, collect(r2), opts...)
	for i := 0; i < 10; i++ {
		if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("b%d", i)))); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 60*time.Second, "both members receive all", func() bool {
		d1, _ := r1.count()
		d2, _ := r2.count()
		return d1 >= 10 && d2 >= 10
	})
}

func TestConformance_Broker_TagFilter(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Tags")
	p := newProducer(t, c.nsAddr())
	tags := []string{"TagA", "TagB", "TagC", "", "标签"}
	want := 0
	for i := 0; i < 25; i++ {
		m := primitive.NewMessage(topic, []byte(fmt.Sprintf("t%d", i)))
		tag := tags[i%len(tags)]
		if tag != "" {
			m.WithTag(tag)
		}
		if tag == "TagA" || tag == "标签" {
			want++
		}
		if _, err := p.SendSync(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	// A matching fence closes every queue: once the consumer has the fences, it has pulled
	// past every message before them, so a non-matching one would have been delivered.
	queues := 0
	if r := c.ns.Routes().Route(topic); r != nil && len(r.QueueDatas) == 1 {
		queues = int(r.QueueDatas[0].WriteQueueNums)
	}
	if queues == 0 {
		t.Fatalf("no route for %s", topic)
	}
	w := newWire(t, c.broker.Addr())
	for q := 0; q < queues; q++ {
		resp, err := w.cl.Invoke(context.Background(), w.addr, sendV2(topic, q, 0, 0, props("TAGS", "TagA"), []byte(fmt.Sprintf("fence-%d", q))), 5*time.Second)
		if err != nil || resp.ResponseCode() != protocol.ResSuccess {
			t.Fatalf("fence to queue %d: %v %v", q, resp, err)
		}
	}
	got := newReceived()
	startPushConsumer(t, c.nsAddr(), unique("CG"), topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "TagA || 标签"}, collect(got))
	eventually(t, 30*time.Second, "every queue's fence", func() bool {
		got.mu.Lock()
		defer got.mu.Unlock()
		for q := 0; q < queues; q++ {
			if got.msgs[fmt.Sprintf("fence-%d", q)] == nil {
				return false
			}
		}
		return true
	})
	// The Go client runs each message's callback on its own goroutine: the ones pulled
	// with a fence may finish just after it (on a loaded machine, milliseconds after).
	eventually(t, 10*time.Second, "the messages pulled with the fences", func() bool {
		d, _ := got.count()
		return d >= want+queues
	})
	got.mu.Lock()
	defer got.mu.Unlock()
	if len(got.msgs) != want+queues {
		t.Fatalf("got %d messages, want %d and %d fences", len(got.msgs), want, queues)
	}
	for _, m := range got.msgs {
		if m.GetTags() != "TagA" && m.GetTags() != "标签" {
			t.Fatalf("unexpected tag %q", m.GetTags())
		}
	}
}

func TestConformance_Broker_PullConsumerAndSeek(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Pull")
	p := newProducer(t, c.nsAddr())
	for i := 0; i < 20; i++ {
		if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("p%d", i)))); err != nil {
			t.Fatal(err)
		}
	}
	pc := newPullConsumer(t, c.nsAddr(), unique("PCG"))
	if err := pc.Subscribe(topic, all); err != nil {
		t.Fatal(err)
	}
	if err := pc.Start(); err != nil {
		t.Fatal(err)
	}
	mqs, err := pc.GetTopicRouteInfo(topic)
	if err != nil || len(mqs) == 0 {
		t.Fatalf("route: %v %v", mqs, err)
	}
	// A send is answered before the dispatcher puts it in its ConsumeQueue (Java too):
	// pull every queue again until all 20 are there.
	total := 0
	var someQueue *primitive.MessageQueue
	eventually(t, 10*time.Second, "all 20 messages pulled", func() bool {
		total, someQueue = 0, nil
		for _, mq := range mqs {
			res, err := pc.PullFrom(context.Background(), mq, 0, 32)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status == primitive.PullFound {
				total += len(res.GetMessageExts())
				if someQueue == nil && len(res.GetMessageExts()) >= 2 {
					someQueue = mq
				}
				if res.NextBeginOffset != int64(len(res.GetMessageExts())) || res.MaxOffset < res.NextBeginOffset {
					t.Fatalf("queue %d: next %d max %d count %d", mq.QueueId, res.NextBeginOffset, res.MaxOffset, len(res.GetMessageExts()))
				}
			}
		}
		return total == 20
	})
	// Seek: pulling from offset 1 skips the first message of the queue.
	res, err := pc.PullFrom(context.Background(), someQueue, 1, 32)
	if err != nil || res.Status != primitive.PullFound || res.GetMessageExts()[0].QueueOffset != 1 {
		t.Fatalf("seek: %+v %v", res, err)
	}
	// Beyond the end: no new message, not an error.
	res, err = pc.PullFrom(context.Background(), someQueue, res.MaxOffset, 32)
	if err != nil || res.Status != primitive.PullNoNewMsg {
		t.Fatalf("pull at max: %+v %v", res, err)
	}
	// Far beyond: offset illegal with a corrected next offset.
	res, err = pc.PullFrom(context.Background(), someQueue, res.MaxOffset+100, 32)
	if err != nil || res.Status != primitive.PullOffsetIllegal || res.NextBeginOffset != res.MaxOffset {
		t.Fatalf("pull far beyond: %+v %v", res, err)
	}
	ts, err := pc.OffsetForTimestamp(someQueue, time.Now().Add(time.Hour).UnixMilli())
	if err != nil || ts != res.MaxOffset-1 && ts != res.MaxOffset {
		t.Fatalf("offset for a future time: %d %v (max %d)", ts, err, res.MaxOffset)
	}
}

func TestConformance_Broker_LitePullPoll(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Lite")
	p := newProducer(t, c.nsAddr())
	for i := 0; i < 10; i++ {
		if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("l%d", i)))); err != nil {
			t.Fatal(err)
		}
	}
	pc := newPullConsumer(t, c.nsAddr(), unique("LCG"), consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
	if err := pc.Subscribe(topic, all); err != nil {
		t.Fatal(err)
	}
	if err := pc.Start(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	deadline := time.Now().Add(30 * time.Second)
	for len(seen) < 10 && time.Now().Before(deadline) {
		cr, err := pc.Poll(context.Background(), time.Second)
		if err != nil {
			continue
		}
		for _, m := range cr.GetMsgList() {
			seen[string(m.Body)] = true
		}
		pc.ACK(context.Background(), cr, consumer.ConsumeSuccess)
	}
	if len(seen) != 10 {
		t.Fatalf("lite pull saw %d of 10", len(seen))
	}
}

func TestConformance_Broker_ConsumeFromWhere(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("From")
	p := newProducer(t, c.nsAddr())
	send := func(prefix string, n int) {
		for i := 0; i < n; i++ {
			if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("%s%d", prefix, i)))); err != nil {
				t.Fatal(err)
			}
		}
	}
	send("old", 40) // enough that every queue has a message: LAST then really means "from now"
	// FIRST sees the old messages.
	first := newReceived()
	startPushConsumer(t, c.nsAddr(), unique("First"), topic, all, collect(first), consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
	eventually(t, 30*time.Second, "FIRST receives old messages", func() bool { d, _ := first.count(); return d == 40 })

	// LAST on a queue whose first message is still in memory starts at 0 (Java's rule
	// in QUERY_CONSUMER_OFFSET), so it also sees the old messages; new ones arrive too.
	last := newReceived()
	startPushConsumer(t, c.nsAddr(), unique("Last"), topic, all, collect(last), consumer.WithConsumeFromWhere(consumer.ConsumeFromLastOffset))
	send("new", 8)
	eventually(t, 30*time.Second, "LAST receives new messages", func() bool {
		last.mu.Lock()
		defer last.mu.Unlock()
		for i := 0; i < 8; i++ {
			if last.msgs[fmt.Sprintf("new%d", i)] == nil {
				return false
			}
		}
		return true
	})

	// TIMESTAMP: SEARCH_OFFSET_BY_TIMESTAMP finds the first message stored after a time.
	// (A new push group on a young queue starts at 0 whatever its ConsumeFromWhere, as
	// with Java's QUERY_CONSUMER_OFFSET rule, so the search is checked directly.)
	time.Sleep(1100 * time.Millisecond)
	mark := time.Now().UnixMilli()
	send("late", 8)
	pc := newPullConsumer(t, c.nsAddr(), unique("TsPull"))
	if err := pc.Subscribe(topic, all); err != nil {
		t.Fatal(err)
	}
	if err := pc.Start(); err != nil {
		t.Fatal(err)
	}
	mqs, err := pc.GetTopicRouteInfo(topic)
	if err != nil {
		t.Fatal(err)
	}
	late := 0
	for _, mq := range mqs {
		off, err := pc.OffsetForTimestamp(mq, mark)
		if err != nil {
			t.Fatal(err)
		}
		res, err := pc.PullFrom(context.Background(), mq, off, 32)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range res.GetMessageExts() {
			if i == 0 && !strings.HasPrefix(string(m.Body), "late") && res.MaxOffset > off+1 {
				t.Fatalf("queue %d: offset for time %d points at %s (stored %d)", mq.QueueId, mark, m.Body, m.StoreTimestamp)
			}
			if strings.HasPrefix(string(m.Body), "late") {
				late++
			}
		}
	}
	if late != 8 {
		t.Fatalf("found %d late messages from the searched offsets, want 8", late)
	}
}

func TestConformance_Broker_OffsetsSurviveConsumerRestart(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Resume")
	p := newProducer(t, c.nsAddr())
	for i := 0; i < 20; i++ {
		if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("a%d", i)))); err != nil {
			t.Fatal(err)
		}
	}
	group := unique("RG")
	first := newReceived()
	stop := startPushConsumer(t, c.nsAddr(), group, topic, all, collect(first))
	eventually(t, 30*time.Second, "first batch consumed", func() bool { d, _ := first.count(); return d == 20 })
	// The Go client moves its offset after the callback returns and commits every 5 s: wait
	// until the broker holds all 20 (a Shutdown racing the last offset update would commit 19,
	// which is the client's behaviour, not the broker's).
	w := newWire(t, c.opts.ListenAddr)
	eventually(t, 30*time.Second, "the 20 offsets committed", func() bool {
		r := w.call(protocol.CodeGetConsumeStats, &protocol.GetConsumeStatsRequestHeader{ConsumerGroup: group, Topic: topic}, nil)
		var cs struct {
			OffsetTable map[string]struct{ ConsumerOffset int64 } `json:"offsetTable"`
		}
		stdJSON(t, r.Body, &cs)
		var done int64
		for _, v := range cs.OffsetTable {
			done += v.ConsumerOffset
		}
		return done == 20
	})
	stop() // Shutdown persists offsets with UPDATE_CONSUMER_OFFSET
	// The broker persists consumerOffset.json; restart it too so the offsets must come from disk.
	c.restartBroker()
	for i := 0; i < 10; i++ {
		if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("b%d", i)))); err != nil {
			t.Fatalf("send after restart: %v", err)
		}
	}
	second := newReceived()
	startPushConsumer(t, c.nsAddr(), group, topic, all, collect(second))
	// The b messages follow the a messages in every queue: once the consumer has them all,
	// it has pulled past every a it would have been given.
	eventually(t, 60*time.Second, "second batch consumed", func() bool {
		second.mu.Lock()
		defer second.mu.Unlock()
		for i := 0; i < 10; i++ {
			if second.msgs[fmt.Sprintf("b%d", i)] == nil {
				return false
			}
		}
		return true
	})
	second.mu.Lock()
	defer second.mu.Unlock()
	for b := range second.msgs {
		if strings.HasPrefix(b, "a") {
			t.Fatalf("restarted consumer re-received %s: offsets were not kept", b)
		}
	}
}

func TestConformance_Broker_AutoCreatedTopicIsRouted(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Auto")
	p := newProducer(t, c.nsAddr())
	if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte("x"))); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "auto-created topic registered with the namesrv", func() bool {
		r := c.ns.Routes().Route(topic)
		return r != nil && len(r.QueueDatas) == 1 && r.QueueDatas[0].WriteQueueNums == 4 && r.QueueDatas[0].Perm == 6
	})
}

func TestConformance_Broker_LargeAndCompressedBodies(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Big")
	// The Go client compresses bodies ≥ 4 KiB; set the threshold high for the 3 MiB raw body.
	raw := newProducer(t, c.nsAddr(), producer.WithCompressMsgBodyOverHowmuch(8<<20))
	zipped := newProducer(t, c.nsAddr())
	big := bytes.Repeat([]byte("0123456789abcdef"), 3<<20/16)
	big[0] = 'R'
	if _, err := raw.SendSync(context.Background(), primitive.NewMessage(topic, big)); err != nil {
		t.Fatalf("3 MiB body: %v", err)
	}
	comp := bytes.Repeat([]byte("compress me "), 2000)
	if _, err := zipped.SendSync(context.Background(), primitive.NewMessage(topic, comp)); err != nil {
		t.Fatalf("compressed body: %v", err)
	}
	tooBig := make([]byte, 5<<20)
	if _, err := raw.SendSync(context.Background(), primitive.NewMessage(topic, tooBig)); err == nil {
		t.Fatal("a 5 MiB body was accepted (maxMessageSize is 4 MiB)")
	}
	got := newReceived()
	startPushConsumer(t, c.nsAddr(), unique("CG"), topic, all, collect(got))
	eventually(t, 30*time.Second, "both bodies", func() bool { d, _ := got.count(); return d == 2 })
	got.mu.Lock()
	defer got.mu.Unlock()
	if got.msgs[string(big)] == nil || got.msgs[string(comp)] == nil {
		t.Fatal("bodies changed in transit")
	}
	if got.msgs[string(comp)].SysFlag&0x1 == 0 {
		t.Fatal("compressed body lost its sysFlag")
	}
}

func TestConformance_Broker_RestartMidStream(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("Restart")
	p := newProducer(t, c.nsAddr(), producer.WithRetry(5))
	acked := map[string]bool{}
	for i := 0; i < 30; i++ {
		if i == 15 {
			c.restartBroker()
		}
		body := fmt.Sprintf("r%d", i)
		var err error
		for attempt := 0; attempt < 20; attempt++ {
			if _, err = p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(body))); err == nil {
				acked[body] = true
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("send %s after restart: %v", body, err)
		}
	}
	got := newReceived()
	startPushConsumer(t, c.nsAddr(), unique("CG"), topic, all, collect(got))
	eventually(t, 60*time.Second, "every acknowledged message", func() bool {
		got.mu.Lock()
		defer got.mu.Unlock()
		for b := range acked {
			if got.msgs[b] == nil {
				return false
			}
		}
		return true
	})
}

// allocations records the queues of topic each member of a group last allocated itself,
// through the Go client's own averaging strategy (the client applies the result right
// after). The strategy also sees the group's %RETRY% topic, which is not recorded.
type allocations struct {
	topic string
	mu    sync.Mutex
	last  map[string]allocation // by client ID
	gen   int                   // bumped whenever a member's share changes
}

type allocation struct {
	members int      // members the client saw in the group
	queues  int      // queues it saw in the topic
	mine    []string // its share, as "broker/queueId"
}

func (a *allocations) strategy(group, cid string, mqAll []*primitive.MessageQueue, cidAll []string) []*primitive.MessageQueue {
	res := consumer.AllocateByAveragely(group, cid, mqAll, cidAll)
	if len(mqAll) == 0 || mqAll[0].Topic != a.topic {
		return res
	}
	mine := make([]string, len(res))
	for i, mq := range res {
		mine[i] = fmt.Sprintf("%s/%d", mq.BrokerName, mq.QueueId)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if prev, ok := a.last[cid]; !ok || strings.Join(prev.mine, ",") != strings.Join(mine, ",") {
		a.gen++
	}
	a.last[cid] = allocation{members: len(cidAll), queues: len(mqAll), mine: mine}
	return res
}

// settled reports whether n members each allocated with all n in view, and their shares
// are disjoint and cover every queue.
func (a *allocations) settled(n int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.last) != n {
		return false
	}
	owner := map[string]bool{}
	queues := -1
	for _, al := range a.last {
		if al.members != n || queues >= 0 && al.queues != queues {
			return false
		}
		queues = al.queues
		for _, q := range al.mine {
			if owner[q] {
				return false
			}
			owner[q] = true
		}
	}
	return len(owner) == queues
}

func (a *allocations) generation() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.gen
}
