package broker

// Broker statistics: Java's BrokerStatsManager (named stats sets), BrokerStats (the
// day totals) and the rate windows of StoreStatsService that GET_BROKER_RUNTIME_INFO
// reports.
//
// Named sets (VIEW_BROKER_STATS_DATA, the consume TPS of GET_CONSUME_STATS and
// GET_BROKER_CONSUME_STATS). Each item counts a value and a number of calls; it appears
// on first use and is sampled every 10 s (the last 7 samples are the minute window),
// every 10 min (7: the hour) and every hour (25: the day). A window reports the value
// added between its first and last sample (sum), per second (tps) and per call (avgpt).
// The sets and their keys, as Java fills them:
//
//	TOPIC_PUT_NUMS, TOPIC_PUT_SIZE   topic            sends, replies, delayed deliveries,
//	                                                 send-backs parked in SCHEDULE_TOPIC_XXXX
//	QUEUE_PUT_NUMS, QUEUE_PUT_SIZE   topic@queueId    puts to SCHEDULE_TOPIC_XXXX only (enableDetailStat)
//	QUEUE_GET_NUMS, QUEUE_GET_SIZE   topic@queueId@group  delayed deliveries (enableDetailStat)
//	GROUP_GET_NUMS, GROUP_GET_SIZE   topic@group      messages pulled; delayed deliveries
//	                                                 as SCHEDULE_CONSUMER
//	GROUP_GET_LATENCY                topic@group, or queueId@topic@group with enableDetailStat
//	SNDBCK_PUT_NUMS                  topic@group      consumer send-backs (topic = the original)
//	BROKER_PUT_NUMS, BROKER_GET_NUMS clusterName
//
// Java registers more sets (GROUP_GET_FROM_DISK_*, BROKER_GET_FROM_DISK_*, COMMERCIAL_*)
// that 4.9.8 never fills; asking for them gets "not exist", here as there.
//
// Rates (stats_rates.go: putTps, getFoundTps, getMissTps, getTotalTps, getTransferedTps): a sample per
// second of the store's put count and of the pulls' found/missed/transferred counts;
// each rate is given over the last 10, 60 and 600 s, space separated, empty until that
// many samples exist (Java's StoreStatsService). Put latency: the time from the store
// timestamp of a put to its result, in Java's 13 distribution buckets and percentile
// buckets, swapped every minute (the figures describe the last full minute).
//
// Day totals (msgPutTotal*/msgGetTotal*): the store's put count and the messages pulled,
// recorded at each local midnight (Java: BrokerStats#record).
//
// The hot paths (a send, a pull) do lock-free map lookups: each set publishes its maps
// (16 shards) copy-on-write, and items are created under the shard's mutex with their own
// copies of the names (requests may be read in place in a reused buffer). brokerStats is ready
// at its zero value: requests served before start are counted with Java's defaults.

import (
	"hash/maphash"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

// Stats set names (Java: org.apache.rocketmq.common.stats.Stats).
const (
	StatsQueuePutNums         = "QUEUE_PUT_NUMS"
	StatsQueuePutSize         = "QUEUE_PUT_SIZE"
	StatsQueueGetNums         = "QUEUE_GET_NUMS"
	StatsQueueGetSize         = "QUEUE_GET_SIZE"
	StatsTopicPutNums         = "TOPIC_PUT_NUMS"
	StatsTopicPutSize         = "TOPIC_PUT_SIZE"
	StatsGroupGetNums         = "GROUP_GET_NUMS"
	StatsGroupGetSize         = "GROUP_GET_SIZE"
	StatsSndbckPutNums        = "SNDBCK_PUT_NUMS"
	StatsBrokerPutNums        = "BROKER_PUT_NUMS"
	StatsBrokerGetNums        = "BROKER_GET_NUMS"
	StatsGroupGetLatency      = "GROUP_GET_LATENCY"
	StatsGroupGetFromDiskNums = "GROUP_GET_FROM_DISK_NUMS"
	StatsGroupGetFromDiskSize = "GROUP_GET_FROM_DISK_SIZE"
)

// ScheduleConsumerGroup is the group delayed deliveries are counted under (Java:
// MixAll.SCHEDULE_CONSUMER_GROUP).
const ScheduleConsumerGroup = "SCHEDULE_CONSUMER"

// Sampling periods and window lengths (Java: StatsItem, StoreStatsService).
const (
	statsTick        = 10 * time.Second
	statsMinuteTicks = 60  // 10 min
	statsHourTicks   = 360 // 1 h
	rateTick         = time.Second
	rateSamples      = 601 // MAX_RECORDS_OF_SAMPLING + 1
	latencyReset     = time.Minute
)

// statsSnapshot is Java's CallSnapshot of a stats item.
type statsSnapshot struct{ ts, times, value int64 }

// statsWindow is Java's StatsSnapshot / BrokerStatsItem.
type statsWindow struct {
	Sum   int64
	TPS   float64
	AvgPT float64
	Times int64
}

// statsItem is Java's StatsItem.
type statsItem struct {
	value, times atomic.Int64

	mu                   sync.Mutex // guards the sample lists
	minute, hour, dayWin []statsSnapshot
}

func (it *statsItem) add(v, times int64) {
	it.value.Add(v)
	it.times.Add(times)
}

// sample appends a snapshot to one window (Java: samplingInSeconds/Minutes/Hour): the
// first one is preceded by a zero snapshot one period earlier, and the list keeps max.
func (it *statsItem) sample(list *[]statsSnapshot, now, period int64, max int) {
	it.mu.Lock()
	defer it.mu.Unlock()
	if len(*list) == 0 {
		*list = append(*list, statsSnapshot{ts: now - period})
	}
	*list = append(*list, statsSnapshot{ts: now, times: it.times.Load(), value: it.value.Load()})
	if len(*list) > max {
		*list = append((*list)[:0], (*list)[1:]...)
	}
}

// window computes a window from its first and last snapshot (Java: computeStatsData).
func (it *statsItem) window(list *[]statsSnapshot) statsWindow {
	it.mu.Lock()
	defer it.mu.Unlock()
	var w statsWindow
	l := *list
	if len(l) == 0 {
		return w
	}
	first, last := l[0], l[len(l)-1]
	w.Sum = last.value - first.value
	if dt := last.ts - first.ts; dt > 0 {
		w.TPS = float64(w.Sum) * 1000 / float64(dt)
	}
	w.Times = last.times - first.times
	if w.Times > 0 {
		w.AvgPT = float64(w.Sum) / float64(w.Times)
	}
	return w
}

// statsKey holds the parts of a Java stats key; which parts a set uses, and how they
// are written, is the set's keyFormat.
type statsKey struct {
	topic, group string
	queue        int32
}

type keyFormat uint8

const (
	keyOne             keyFormat = iota // topic (or the cluster name)
	keyTopicQueue                       // topic@queueId
	keyTopicGroup                       // topic@group
	keyTopicQueueGroup                  // topic@queueId@group
	keyQueueTopicGroup                  // queueId@topic@group
	keyCluster                          // the cluster name; stored under the zero key
)

// parse splits a Java key. Topic and group names cannot hold '@' (the broker validates
// topics; groups are named like topics), so the split is unambiguous.
func (f keyFormat) parse(key string) (statsKey, bool) {
	parts := strings.Split(key, "@")
	q := func(s string) (int32, bool) {
		n, err := strconv.ParseInt(s, 10, 32)
		return int32(n), err == nil
	}
	switch f {
	case keyOne:
		return statsKey{topic: key}, len(parts) == 1
	case keyTopicQueue:
		if len(parts) == 2 {
			n, ok := q(parts[1])
			return statsKey{topic: parts[0], queue: n}, ok
		}
	case keyTopicGroup:
		if len(parts) == 2 {
			return statsKey{topic: parts[0], group: parts[1]}, true
		}
	case keyTopicQueueGroup:
		if len(parts) == 3 {
			n, ok := q(parts[1])
			return statsKey{topic: parts[0], queue: n, group: parts[2]}, ok
		}
	case keyQueueTopicGroup:
		if len(parts) == 3 {
			n, ok := q(parts[0])
			return statsKey{topic: parts[1], queue: n, group: parts[2]}, ok
		}
	}
	return statsKey{}, false
}

// statsShards splits a set's items so that adding a key copies a fraction of them.
const statsShards = 16

// statsSet is Java's StatsItemSet. Each shard's item map is replaced, never changed, so
// lookups take no lock; a new key copies one shard under its mutex.
type statsSet struct {
	name   string
	format keyFormat
	seed   maphash.Seed
	shards [statsShards]statsShard
}

type statsShard struct {
	mu    sync.Mutex // serializes writers of the shard
	items atomic.Pointer[map[statsKey]*statsItem]
}

func newStatsSet(name string, f keyFormat) *statsSet {
	s := &statsSet{name: name, format: f, seed: maphash.MakeSeed()}
	for i := range s.shards {
		m := map[statsKey]*statsItem{}
		s.shards[i].items.Store(&m)
	}
	return s
}

func (s *statsSet) shard(k statsKey) *statsShard {
	h := maphash.String(s.seed, k.topic) ^ maphash.String(s.seed, k.group) ^ uint64(k.queue)
	return &s.shards[h%statsShards]
}

func (s *statsSet) get(k statsKey) *statsItem { return (*s.shard(k).items.Load())[k] }

// add counts v (and times calls) under k, creating the item on first use (Java:
// StatsItemSet#addValue / getAndCreateStatsItem).
func (s *statsSet) add(k statsKey, v, times int64) {
	sh := s.shard(k)
	it := (*sh.items.Load())[k]
	if it == nil {
		it = sh.create(k)
	}
	it.add(v, times)
}

func (sh *statsShard) create(k statsKey) *statsItem {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	old := *sh.items.Load()
	if it := old[k]; it != nil {
		return it
	}
	k.topic, k.group = strings.Clone(k.topic), strings.Clone(k.group)
	m := make(map[statsKey]*statsItem, len(old)+1)
	for kk, v := range old {
		m[kk] = v
	}
	it := &statsItem{}
	m[k] = it
	sh.items.Store(&m)
	return it
}

// deleteWhere drops the items whose key matches (Java: delValue*).
func (s *statsSet) deleteWhere(match func(statsKey) bool) {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		old := *sh.items.Load()
		m := make(map[statsKey]*statsItem, len(old))
		for k, v := range old {
			if !match(k) {
				m[k] = v
			}
		}
		sh.items.Store(&m)
		sh.mu.Unlock()
	}
}

func (s *statsSet) each(fn func(*statsItem)) {
	for i := range s.shards {
		for _, it := range *s.shards[i].items.Load() {
			fn(it)
		}
	}
}

// brokerStats holds every statistic of a broker. Zero value ready (see the file comment).
type brokerStats struct {
	once sync.Once
	sets map[string]*statsSet // by Java name

	topicPutNums, topicPutSize, queuePutNums, queuePutSize *statsSet
	queueGetNums, queueGetSize, groupGetNums, groupGetSize *statsSet
	groupGetLatency, sndbckPutNums                         *statsSet
	brokerPutNums, brokerGetNums                           *statsSet

	// Settings, read at start (Java reads them in the BrokerStatsManager constructor
	// and at each use); until then Java's defaults.
	noDetail        atomic.Bool // !enableDetailStat
	noScheduleStats atomic.Bool // !enableScheduleMessageStats
	cluster         atomic.Pointer[string]

	// Pulls as the store saw them (Java: StoreStatsService getMessageTimesTotalFound,
	// getMessageTimesTotalMiss, getMessageTransferedMsgCount).
	getFound, getMiss, getTransferred atomic.Int64

	rateMu    sync.Mutex
	rates     []rateSample // oldest first, at most rateSamples
	puts      func() int64 // the store's put count; nil before start
	pools     []*remoting.Pool
	seenEmpty map[*remoting.Pool]int64 // when the sampler last saw each pool's queue empty

	latency  atomic.Pointer[latencyCounts] // the current minute
	lastDist atomic.Pointer[latencyCounts] // the last full minute; nil in the first

	dayMu                  sync.Mutex
	putYesterday, putToday int64 // totals at the last two local midnights
	getYesterday, getToday int64

	sendBackNums atomic.Int64 // every send-back (tests)
	now          func() time.Time
}

func (s *brokerStats) init() {
	s.once.Do(func() {
		s.sets = map[string]*statsSet{}
		reg := func(name string, f keyFormat) *statsSet {
			set := newStatsSet(name, f)
			s.sets[name] = set
			return set
		}
		s.topicPutNums = reg(StatsTopicPutNums, keyOne)
		s.topicPutSize = reg(StatsTopicPutSize, keyOne)
		s.queuePutNums = reg(StatsQueuePutNums, keyTopicQueue)
		s.queuePutSize = reg(StatsQueuePutSize, keyTopicQueue)
		s.queueGetNums = reg(StatsQueueGetNums, keyTopicQueueGroup)
		s.queueGetSize = reg(StatsQueueGetSize, keyTopicQueueGroup)
		s.groupGetNums = reg(StatsGroupGetNums, keyTopicGroup)
		s.groupGetSize = reg(StatsGroupGetSize, keyTopicGroup)
		s.groupGetLatency = reg(StatsGroupGetLatency, keyTopicGroup)
		s.sndbckPutNums = reg(StatsSndbckPutNums, keyTopicGroup)
		s.brokerPutNums = reg(StatsBrokerPutNums, keyCluster)
		s.brokerGetNums = reg(StatsBrokerGetNums, keyCluster)
		s.latency.Store(newLatencyCounts())
		if s.now == nil {
			s.now = time.Now
		}
	})
}

// start reads the settings and runs the samplers until the broker stops (Java:
// BrokerStatsManager's scheduled executor, StoreStatsService#run, BrokerController's
// daily BrokerStats#record).
func (s *brokerStats) start(b *Broker) {
	s.init()
	cfg := b.config()
	s.noDetail.Store(!cfg.Broker.EnableDetailStat)
	s.noScheduleStats.Store(!cfg.Store.EnableScheduleMessageStats)
	cluster := b.opts.ClusterName
	s.cluster.Store(&cluster)
	st := b.store
	s.rateMu.Lock()
	s.puts = func() int64 { return storePuts(st.RuntimeInfo()) }
	s.pools = []*remoting.Pool{b.pools.send, b.pools.pull, b.pools.query, b.pools.admin}
	s.rateMu.Unlock()

	s.sampleRates()
	ticks := 0
	s.sampleItems(ticks)
	b.every(statsTick, func() {
		ticks++
		s.sampleItems(ticks)
	})
	b.every(rateTick, s.sampleRates)
	b.every(latencyReset, s.rollLatency)
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			t := time.NewTimer(time.Until(nextMorning(s.now())))
			select {
			case <-b.stop:
				t.Stop()
				return
			case <-t.C:
				s.recordDay()
			}
		}
	}()
}

// sampleItems samples every item: the minute window at each tick, the hour window at
// every 60th, the day window at every 360th (tick 0 samples all three, as Java's
// executors start at once).
func (s *brokerStats) sampleItems(tick int) {
	s.init()
	now := s.now().UnixMilli()
	for _, set := range s.sets {
		set.each(func(it *statsItem) {
			it.sample(&it.minute, now, statsTick.Milliseconds(), 7)
			if tick%statsMinuteTicks == 0 {
				it.sample(&it.hour, now, 10*time.Minute.Milliseconds(), 7)
			}
			if tick%statsHourTicks == 0 {
				it.sample(&it.dayWin, now, time.Hour.Milliseconds(), 25)
			}
		})
	}
}

// isDetail is enableDetailStat (Java: BrokerStatsManager's enableQueueStat).
func (s *brokerStats) isDetail() bool { return !s.noDetail.Load() }

// incTopicPut counts a stored send or reply (Java: SendMessageProcessor#handlePutMessageResult,
// ReplyMessageProcessor): TOPIC_PUT_*, QUEUE_PUT_* for SCHEDULE_TOPIC_XXXX, BROKER_PUT_NUMS,
// and the put latency. topic and queueID are those the message was stored under.
func (s *brokerStats) incTopicPut(topic string, queueID int32, res store.PutResult) {
	s.init()
	n, size := int64(res.MsgNum), int64(res.WroteBytes)
	if topic == meta.TopicSchedule && s.isDetail() {
		qk := statsKey{topic: topic, queue: queueID}
		s.queuePutNums.add(qk, n, 1)
		s.queuePutSize.add(qk, size, 1)
	}
	k := statsKey{topic: topic}
	s.topicPutNums.add(k, n, 1)
	s.topicPutSize.add(k, size, 1)
	s.brokerPutNums.add(statsKey{}, n, 1)
	s.recordLatency(res.StoreTimestamp)
}

// incSendBack counts a consumer send-back (Java: asyncConsumerSendMsgBack): the put
// figures when it was parked in SCHEDULE_TOPIC_XXXX, and SNDBCK_PUT_NUMS under the
// original topic and the group.
func (s *brokerStats) incSendBack(group, backTopic, storedTopic string, queueID int32, res store.PutResult) {
	s.init()
	if storedTopic == meta.TopicSchedule {
		size := int64(res.WroteBytes)
		k := statsKey{topic: storedTopic}
		s.topicPutNums.add(k, 1, 1)
		s.topicPutSize.add(k, size, 1)
		if s.isDetail() {
			qk := statsKey{topic: storedTopic, queue: queueID}
			s.queuePutNums.add(qk, 1, 1)
			s.queuePutSize.add(qk, size, 1)
		}
	}
	s.sndbckPutNums.add(statsKey{topic: backTopic, group: group}, 1, 1)
	s.sendBackNums.Add(1)
}

// incScheduleDeliver counts a delayed message delivered to its real topic (Java:
// ScheduleMessageService PutResultProcess#onSuccess, with enableScheduleMessageStats).
func (s *brokerStats) incScheduleDeliver(level int, topic string, res store.PutResult) {
	s.init()
	if s.noScheduleStats.Load() {
		return
	}
	n, size := int64(res.MsgNum), int64(res.WroteBytes)
	if s.isDetail() {
		qk := statsKey{topic: meta.TopicSchedule, queue: int32(level - 1), group: ScheduleConsumerGroup}
		s.queueGetNums.add(qk, n, 1)
		s.queueGetSize.add(qk, size, 1)
	}
	gk := statsKey{topic: meta.TopicSchedule, group: ScheduleConsumerGroup}
	s.groupGetNums.add(gk, n, 1)
	s.groupGetSize.add(gk, size, 1)
	k := statsKey{topic: topic}
	s.topicPutNums.add(k, n, 1)
	s.topicPutSize.add(k, size, 1)
	s.brokerPutNums.add(statsKey{}, n, 1)
}

// storeGet counts one store read of a pull (Java: DefaultMessageStore#getMessage's
// found / miss / transferred counters).
func (s *brokerStats) storeGet(res *store.GetResult) {
	if res == nil {
		return
	}
	if res.Status == store.GetFound {
		s.getFound.Add(1)
		s.getTransferred.Add(int64(res.MessageCount()))
	} else {
		s.getMiss.Add(1)
	}
}

// incGroupGet counts messages handed to a consumer (Java: PullMessageProcessor on
// SUCCESS): GROUP_GET_NUMS, GROUP_GET_SIZE, BROKER_GET_NUMS and GROUP_GET_LATENCY.
func (s *brokerStats) incGroupGet(group, topic string, queueID int32, n, size int, latency time.Duration) {
	s.init()
	k := statsKey{topic: topic, group: group}
	s.groupGetNums.add(k, int64(n), 1)
	s.groupGetSize.add(k, int64(size), 1)
	s.brokerGetNums.add(statsKey{}, int64(n), 1)
	lk := k
	if s.isDetail() {
		lk.queue = queueID
	}
	s.groupGetLatency.add(lk, latency.Milliseconds(), 1)
}

// groupGetTPS is the messages per second group pulled from topic in the minute window
// (Java: BrokerStatsManager#tpsGroupGetNums).
func (s *brokerStats) groupGetTPS(group, topic string) float64 {
	s.init()
	it := s.groupGetNums.get(statsKey{topic: topic, group: group})
	if it == nil {
		return 0
	}
	return it.window(&it.minute).TPS
}

// view returns the minute, hour and day windows of one item (VIEW_BROKER_STATS_DATA);
// ok is false when the set or the item does not exist (Java: getStatsItem == null).
func (s *brokerStats) view(name, key string) (w [3]statsWindow, ok bool) {
	s.init()
	set := s.sets[name]
	if set == nil {
		return w, false
	}
	var k statsKey
	switch set.format {
	case keyCluster:
		if c := s.cluster.Load(); c == nil || *c != key {
			return w, false
		}
	case keyQueueTopicGroup, keyTopicGroup:
		// GROUP_GET_LATENCY is keyed queueId@topic@group with enableDetailStat.
		f := set.format
		if set == s.groupGetLatency && s.isDetail() {
			f = keyQueueTopicGroup
		}
		if k, ok = f.parse(key); !ok {
			return w, false
		}
	default:
		if k, ok = set.format.parse(key); !ok {
			return w, false
		}
	}
	it := set.get(k)
	if it == nil {
		return w, false
	}
	return [3]statsWindow{it.window(&it.minute), it.window(&it.hour), it.window(&it.dayWin)}, true
}

// onTopicDeleted drops a topic's items (Java: BrokerStatsManager#onTopicDeleted, called
// when autoDeleteUnusedStats is set).
func (s *brokerStats) onTopicDeleted(topic string) {
	s.init()
	byTopic := func(k statsKey) bool { return k.topic == topic }
	for _, set := range []*statsSet{s.topicPutNums, s.topicPutSize, s.queuePutNums, s.queuePutSize, s.groupGetNums,
		s.groupGetSize, s.queueGetNums, s.queueGetSize, s.sndbckPutNums, s.groupGetLatency} {
		set.deleteWhere(byTopic)
	}
}

// onGroupDeleted drops a group's items (Java: BrokerStatsManager#onGroupDeleted).
func (s *brokerStats) onGroupDeleted(group string) {
	s.init()
	byGroup := func(k statsKey) bool { return k.group == group }
	for _, set := range []*statsSet{s.groupGetNums, s.groupGetSize, s.queueGetNums, s.queueGetSize, s.sndbckPutNums, s.groupGetLatency} {
		set.deleteWhere(byGroup)
	}
}
