package stats

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/skyrocket-mq/skyrocket/store"
)

// fakeClock is a settable clock for a Manager.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestStats() (*Manager, *fakeClock) {
	c := &fakeClock{t: time.Date(2026, 1, 2, 10, 0, 0, 0, time.Local)}
	s := &Manager{now: c.now}
	cluster := "DefaultCluster"
	s.cluster.Store(&cluster)
	s.init()
	return s, c
}

func TestStatsItem_Window_JavaSemantics(t *testing.T) {
	var it statsItem
	if w := it.window(&it.minute); w != (Window{}) {
		t.Fatalf("empty window %+v, want zero", w)
	}
	it.add(5, 1)
	it.sample(&it.minute, 10_000, 10_000, 7) // first sample: a zero snapshot 10 s before
	w := it.window(&it.minute)
	if w.Sum != 5 || w.TPS != 0.5 || w.AvgPT != 5 || w.Times != 1 {
		t.Fatalf("after one sample %+v, want sum 5 tps 0.5 avgpt 5", w)
	}
	for i := 2; i <= 9; i++ {
		it.add(10, 2)
		it.sample(&it.minute, int64(i)*10_000, 10_000, 7)
	}
	// 7 snapshots kept: the last 6 intervals of 10 s each added 10 in 2 calls.
	w = it.window(&it.minute)
	if len(it.minute) != 7 || w.Sum != 60 || w.TPS != 1 || w.AvgPT != 5 || w.Times != 12 {
		t.Fatalf("full window %+v (%d snapshots), want sum 60 tps 1.0 avgpt 5 over 7 snapshots", w, len(it.minute))
	}
}

func TestKeyFormat_Parse_JavaKeys(t *testing.T) {
	cases := []struct {
		f    keyFormat
		key  string
		want statsKey
		ok   bool
	}{
		{keyOne, "TopicA", statsKey{topic: "TopicA"}, true},
		{keyOne, "a@b", statsKey{}, false},
		{keyTopicQueue, "SCHEDULE_TOPIC_XXXX@2", statsKey{topic: "SCHEDULE_TOPIC_XXXX", queue: 2}, true},
		{keyTopicQueue, "T@x", statsKey{}, false},
		{keyTopicGroup, "TopicA@GroupB", statsKey{topic: "TopicA", group: "GroupB"}, true},
		{keyTopicGroup, "%RETRY%G@G", statsKey{topic: "%RETRY%G", group: "G"}, true},
		{keyTopicGroup, "TopicA", statsKey{}, false},
		{keyTopicQueueGroup, "T@3@G", statsKey{topic: "T", queue: 3, group: "G"}, true},
		{keyQueueTopicGroup, "3@T@G", statsKey{topic: "T", queue: 3, group: "G"}, true},
		{keyQueueTopicGroup, "T@3@G", statsKey{}, false},
	}
	for _, c := range cases {
		got, ok := c.f.parse(c.key)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("format %d parse(%q) = %+v, %v; want %+v, %v", c.f, c.key, got, ok, c.want, c.ok)
		}
	}
}

func TestStatsSet_Add_ClonesBorrowedNames(t *testing.T) {
	set := newStatsSet(TopicPutNums, keyOne)
	buf := []byte("TopicA")
	borrowed := unsafe.String(&buf[0], len(buf)) // as a Borrow route reads it
	set.add(statsKey{topic: borrowed}, 1, 1)
	copy(buf, "XXXXXX") // the read buffer is reused for the next request
	if set.get(statsKey{topic: "TopicA"}) == nil {
		t.Fatal("item lost its name when the request buffer was reused")
	}
}

func TestBrokerStats_View_PutAndGetSets(t *testing.T) {
	s, clock := newTestStats()
	res := store.PutResult{MsgNum: 2, WroteBytes: 300, StoreTimestamp: clock.now().UnixMilli()}
	s.IncTopicPut("TopicA", 1, res)
	s.IncGroupGet("GroupA", "TopicA", 1, 2, 300, 3*time.Millisecond)
	if _, ok := s.View(TopicPutNums, "TopicB"); ok {
		t.Error("TOPIC_PUT_NUMS TopicB exists without a put")
	}
	if _, ok := s.View(QueuePutNums, "TopicA@1"); ok {
		t.Error("QUEUE_PUT_NUMS counts a topic other than SCHEDULE_TOPIC_XXXX (Java does not)")
	}
	if _, ok := s.View("COMMERCIAL_SEND_TIMES", "x"); ok {
		t.Error("a set Java never fills answers")
	}
	clock.add(10 * time.Second)
	s.sampleItems(0)
	for _, c := range []struct {
		name, key string
		sum       int64
	}{
		{TopicPutNums, "TopicA", 2},
		{TopicPutSize, "TopicA", 300},
		{BrokerPutNums, "DefaultCluster", 2},
		{GroupGetNums, "TopicA@GroupA", 2},
		{GroupGetSize, "TopicA@GroupA", 300},
		{BrokerGetNums, "DefaultCluster", 2},
		{GroupGetLatency, "1@TopicA@GroupA", 3},
	} {
		w, ok := s.View(c.name, c.key)
		if !ok {
			t.Errorf("%s %s does not exist", c.name, c.key)
			continue
		}
		for i, win := range []Window{w.Minute, w.Hour, w.Day} {
			if win.Sum != c.sum {
				t.Errorf("%s %s window %d sum %d, want %d", c.name, c.key, i, win.Sum, c.sum)
			}
		}
	}
	if got := s.GroupGetTPS("GroupA", "TopicA"); got != 0.2 {
		t.Errorf("groupGetTPS %v, want 0.2 (2 messages over the first 10 s window)", got)
	}
	if _, ok := s.View(BrokerPutNums, "OtherCluster"); ok {
		t.Error("BROKER_PUT_NUMS answers a key other than the cluster name")
	}
}

func TestBrokerStats_View_LatencyKeyWithoutDetail(t *testing.T) {
	s, _ := newTestStats()
	s.noDetail.Store(true)
	s.IncGroupGet("G", "T", 3, 1, 10, 7*time.Millisecond)
	if _, ok := s.View(GroupGetLatency, "T@G"); !ok {
		t.Error("GROUP_GET_LATENCY T@G missing with enableDetailStat=false")
	}
	if _, ok := s.View(GroupGetLatency, "3@T@G"); ok {
		t.Error("GROUP_GET_LATENCY keyed by queue with enableDetailStat=false")
	}
}

func TestBrokerStats_IncScheduleDeliver_JavaSets(t *testing.T) {
	s, _ := newTestStats()
	s.IncScheduleDeliver(3, "TopicA", store.PutResult{MsgNum: 1, WroteBytes: 100})
	for _, c := range [][2]string{
		{QueueGetNums, "SCHEDULE_TOPIC_XXXX@2@SCHEDULE_CONSUMER"},
		{GroupGetNums, "SCHEDULE_TOPIC_XXXX@SCHEDULE_CONSUMER"},
		{TopicPutNums, "TopicA"},
		{BrokerPutNums, "DefaultCluster"},
	} {
		if _, ok := s.View(c[0], c[1]); !ok {
			t.Errorf("%s %s missing after a delayed delivery", c[0], c[1])
		}
	}
	s2, _ := newTestStats()
	s2.noScheduleStats.Store(true)
	s2.IncScheduleDeliver(3, "TopicA", store.PutResult{MsgNum: 1, WroteBytes: 100})
	if _, ok := s2.View(TopicPutNums, "TopicA"); ok {
		t.Error("enableScheduleMessageStats=false still counted the delivery")
	}
}

func TestBrokerStats_IncSendBack_ParkedInSchedule(t *testing.T) {
	s, _ := newTestStats()
	s.IncSendBack("G", "TopicA", topicSchedule, 4, store.PutResult{MsgNum: 1, WroteBytes: 90})
	s.IncSendBack("G", "TopicA", "%DLQ%G", 0, store.PutResult{MsgNum: 1, WroteBytes: 90})
	if _, ok := s.View(QueuePutNums, "SCHEDULE_TOPIC_XXXX@4"); !ok {
		t.Error("QUEUE_PUT_NUMS of the schedule queue missing")
	}
	if _, ok := s.View(TopicPutNums, "%DLQ%G"); ok {
		t.Error("a send-back to the DLQ counted as a topic put (Java counts only SCHEDULE_TOPIC_XXXX)")
	}
	s.sampleItems(0)
	w, ok := s.View(SndbckPutNums, "TopicA@G")
	if !ok || w.Minute.Sum != 2 || s.SendBacks() != 2 {
		t.Errorf("SNDBCK_PUT_NUMS %+v %v (total %d), want sum 2", w, ok, s.SendBacks())
	}
}

func TestBrokerStats_OnDeleted_DropsItems(t *testing.T) {
	s, _ := newTestStats()
	s.IncTopicPut("T1", 0, store.PutResult{MsgNum: 1, WroteBytes: 1})
	s.IncTopicPut("T2", 0, store.PutResult{MsgNum: 1, WroteBytes: 1})
	s.IncGroupGet("G1", "T1", 0, 1, 1, 0)
	s.IncGroupGet("G2", "T2", 0, 1, 1, 0)
	s.OnTopicDeleted("T1")
	s.OnGroupDeleted("G2")
	for _, c := range [][2]string{{TopicPutNums, "T1"}, {GroupGetNums, "T1@G1"}, {GroupGetNums, "T2@G2"}} {
		if _, ok := s.View(c[0], c[1]); ok {
			t.Errorf("%s %s survived the delete", c[0], c[1])
		}
	}
	if _, ok := s.View(TopicPutNums, "T2"); !ok {
		t.Error("T2 deleted with T1")
	}
}

func TestBrokerStats_TpsText_WindowsFillInOrder(t *testing.T) {
	s, clock := newTestStats()
	var puts int64
	s.puts = func() int64 { return puts }
	if got := s.PutTPS(); got != "  " {
		t.Errorf("putTps before any sample %q, want two spaces (Java's empty windows)", got)
	}
	for i := 0; i <= 10; i++ {
		s.sampleRates()
		puts += 5
		s.getFound.Add(2)
		s.getMiss.Add(1)
		clock.add(time.Second)
	}
	if got := s.PutTPS(); got != "5.0  " {
		t.Errorf("putTps after 11 samples %q, want \"5.0  \"", got)
	}
	if got := s.GetTotalTPS(); got != "3.0 0.0 0.0" {
		t.Errorf("getTotalTps %q, want \"3.0 0.0 0.0\" (found + miss; 0.0 for unfilled windows)", got)
	}
	for i := 0; i < 600; i++ {
		s.sampleRates()
		clock.add(time.Second)
	}
	if len(s.rates) != rateSamples {
		t.Errorf("%d samples kept, want %d", len(s.rates), rateSamples)
	}
	if parts := strings.Split(s.PutTPS(), " "); len(parts) != 3 || parts[2] == "" {
		t.Errorf("putTps after 611 samples %q, want three figures", s.PutTPS())
	}
}

func TestBrokerStats_PutLatency_LastFullMinute(t *testing.T) {
	s, clock := newTestStats()
	if got := s.PutDistribution(); got != "null" {
		t.Errorf("distribution in the first minute %q, want null", got)
	}
	now := clock.now().UnixMilli()
	for i := 0; i < 98; i++ {
		s.recordLatency(now)
	}
	s.recordLatency(now - 30)
	s.recordLatency(now - 3000)
	s.rollLatency()
	want := "[<=0ms]:98 [0~10ms]:0 [10~50ms]:1 [50~100ms]:0 [100~200ms]:0 [200~500ms]:0 [500ms~1s]:0 [1~2s]:0 [2~3s]:0 [3~4s]:1 [4~5s]:0 [5~10s]:0 [10s~]:0 "
	if got := s.PutDistribution(); got != want {
		t.Errorf("distribution\n got %q\nwant %q", got, want)
	}
	if p := s.PutLatencyPercentile(0.99); p < 28 || p > 30 {
		t.Errorf("p99 %v, want in the 28-30 ms bucket", p)
	}
	if p := s.PutLatencyPercentile(0.5); p != 50.0/98 {
		t.Errorf("p50 %v, want 50/98 (the 50th of 98 puts in the first 1 ms bucket)", p)
	}
}

func TestBrokerStats_DayTotals_RecordedAtMidnight(t *testing.T) {
	s, _ := newTestStats()
	var puts int64 = 7
	s.puts = func() int64 { return puts }
	s.getTransferred.Store(3)
	s.recordDay()
	puts, _ = 12, s.getTransferred.Add(4)
	s.recordDay()
	puts = 20
	if got, want := s.DayTotals(), (DayTotals{7, 12, 20, 3, 7, 7}); got != want {
		t.Errorf("day totals %v, want %v", got, want)
	}
	if got := nextMorning(time.Date(2026, 3, 31, 23, 59, 0, 0, time.UTC)); !got.Equal(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("next morning %v", got)
	}
}

func BenchmarkBrokerStats_IncTopicPut(b *testing.B) {
	s, _ := newTestStats()
	res := store.PutResult{MsgNum: 1, WroteBytes: 200}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.IncTopicPut("BenchTopic", 1, res)
		}
	})
}

func BenchmarkBrokerStats_IncGroupGet(b *testing.B) {
	s, _ := newTestStats()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.IncGroupGet("BenchGroup", "BenchTopic", 1, 32, 8192, time.Millisecond)
		}
	})
}

// FuzzKeyFormat_Parse feeds VIEW_BROKER_STATS_DATA keys to every key format: no panic, and
// a parsed key never holds the separator.
func FuzzKeyFormat_Parse(f *testing.F) {
	f.Add("TopicA")                                  // topic sets
	f.Add("TopicA@GroupB")                           // topic@group sets
	f.Add("SCHEDULE_TOPIC_XXXX@17")                  // topic@queueId
	f.Add("SCHEDULE_TOPIC_XXXX@2@SCHEDULE_CONSUMER") // topic@queueId@group
	f.Add("3@TopicA@GroupB")                         // queueId@topic@group (latency with detail)
	f.Add("@@")                                      // empty parts
	f.Add("T@99999999999")                           // queue id out of int32
	f.Fuzz(func(t *testing.T, key string) {
		for _, kf := range []keyFormat{keyOne, keyTopicQueue, keyTopicGroup, keyTopicQueueGroup, keyQueueTopicGroup, keyCluster} {
			k, ok := kf.parse(key)
			if ok && (strings.Contains(k.topic, "@") || strings.Contains(k.group, "@")) {
				t.Fatalf("format %d parsed %q into %+v", kf, key, k)
			}
		}
	})
}

type fakeStore struct{ puts atomic.Int64 }

func (f *fakeStore) Stats() store.Stats { return store.Stats{PutMessageTimes: f.puts.Load()} }

type fakeQueue struct{ n atomic.Int64 }

func (q *fakeQueue) Len() int { return int(q.n.Load()) }

func TestManager_Start_ReadsConfigAndStops(t *testing.T) {
	s, clock := newTestStats()
	st := &fakeStore{}
	st.puts.Store(42)
	q := &fakeQueue{}
	s.Start(Config{ClusterName: "C1", EnableDetailStat: false, Store: st, Pools: []Queue{q}})
	defer s.Stop()
	if got := s.DayTotals().PutTodayNow; got != 42 {
		t.Errorf("put total %d, want the store's 42", got)
	}
	s.IncGroupGet("G", "T", 3, 1, 10, time.Millisecond)
	if _, ok := s.View(GroupGetLatency, "T@G"); !ok {
		t.Error("enableDetailStat=false not applied: latency keyed by queue")
	}
	if _, ok := s.View(BrokerGetNums, "C1"); !ok {
		t.Error("BROKER_GET_NUMS not keyed by the configured cluster")
	}
	if w := s.HeadWait(q); w != 0 {
		t.Errorf("head wait of an empty queue %d", w)
	}
	q.n.Store(3)
	clock.add(1500 * time.Millisecond)
	if w := s.HeadWait(q); w != 1500 {
		t.Errorf("head wait %d ms, want 1500 (since Start's sample saw the queue empty)", w)
	}
	s.Stop()
	s.Stop() // idempotent
}
