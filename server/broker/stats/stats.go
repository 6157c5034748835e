package stats

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/skyrocket-mq/skyrocket/store"
)

// Stats set names (Java: org.apache.rocketmq.common.stats.Stats).
const (
	QueuePutNums         = "QUEUE_PUT_NUMS"
	QueuePutSize         = "QUEUE_PUT_SIZE"
	QueueGetNums         = "QUEUE_GET_NUMS"
	QueueGetSize         = "QUEUE_GET_SIZE"
	TopicPutNums         = "TOPIC_PUT_NUMS"
	TopicPutSize         = "TOPIC_PUT_SIZE"
	GroupGetNums         = "GROUP_GET_NUMS"
	GroupGetSize         = "GROUP_GET_SIZE"
	SndbckPutNums        = "SNDBCK_PUT_NUMS"
	BrokerPutNums        = "BROKER_PUT_NUMS"
	BrokerGetNums        = "BROKER_GET_NUMS"
	GroupGetLatency      = "GROUP_GET_LATENCY"
	GroupGetFromDiskNums = "GROUP_GET_FROM_DISK_NUMS"
	GroupGetFromDiskSize = "GROUP_GET_FROM_DISK_SIZE"
)

// ScheduleConsumerGroup is the group delayed deliveries are counted under (Java:
// MixAll.SCHEDULE_CONSUMER_GROUP).
const ScheduleConsumerGroup = "SCHEDULE_CONSUMER"

// topicSchedule is where delayed messages wait (Java: TopicValidator.RMQ_SYS_SCHEDULE_TOPIC).
const topicSchedule = "SCHEDULE_TOPIC_XXXX"

// Sampling periods and window lengths (Java: StatsItem, StoreStatsService).
const (
	statsTick        = 10 * time.Second
	statsMinuteTicks = 60  // 10 min
	statsHourTicks   = 360 // 1 h
	rateTick         = time.Second
	rateSamples      = 601 // MAX_RECORDS_OF_SAMPLING + 1
	latencyReset     = time.Minute
)

// Store is what the samplers read of the message store (*store.Store).
type Store interface{ Stats() store.Stats }

// Queue is a request pool whose queue length the samplers watch (*remoting.Pool).
type Queue interface{ Len() int }

// Config is what a Manager needs of its broker, read once at Start (Java reads the
// settings in BrokerStatsManager's constructor and at each use).
type Config struct {
	EnableDetailStat           bool   // BrokerConfig: per-queue keys (QUEUE_*, GROUP_GET_LATENCY)
	EnableScheduleMessageStats bool   // MessageStoreConfig: count delayed deliveries
	ClusterName                string // the key of BROKER_PUT_NUMS and BROKER_GET_NUMS
	Store                      Store  // the put count of the rates and day totals
	Pools                      []Queue
}

// Windows are the three windows of one item (VIEW_BROKER_STATS_DATA).
type Windows struct{ Minute, Hour, Day Window }

// Manager holds every statistic of a broker. Zero value ready (see the package doc); it
// must not be copied.
type Manager struct {
	once sync.Once
	sets map[string]*statsSet // by Java name

	topicPutNums, topicPutSize, queuePutNums, queuePutSize *statsSet
	queueGetNums, queueGetSize, groupGetNums, groupGetSize *statsSet
	groupGetLatency, sndbckPutNums                         *statsSet
	brokerPutNums, brokerGetNums                           *statsSet

	// Settings, read at Start; until then Java's defaults.
	noDetail        atomic.Bool // !enableDetailStat
	noScheduleStats atomic.Bool // !enableScheduleMessageStats
	cluster         atomic.Pointer[string]

	// Pulls as the store saw them (Java: StoreStatsService getMessageTimesTotalFound,
	// getMessageTimesTotalMiss, getMessageTransferedMsgCount).
	getFound, getMiss, getTransferred atomic.Int64

	rateMu    sync.Mutex
	rates     []rateSample // oldest first, at most rateSamples
	puts      func() int64 // the store's put count; nil before Start
	pools     []Queue
	seenEmpty map[Queue]int64 // when the sampler last saw each pool's queue empty

	latency  atomic.Pointer[latencyCounts] // the current minute
	lastDist atomic.Pointer[latencyCounts] // the last full minute; nil in the first

	dayMu                  sync.Mutex
	putYesterday, putToday int64 // totals at the last two local midnights
	getYesterday, getToday int64

	sendBackNums atomic.Int64 // every send-back (tests)
	now          func() time.Time

	stop     chan struct{} // closed by Stop
	stopOnce sync.Once
	wg       sync.WaitGroup // the samplers
}

func (s *Manager) init() {
	s.once.Do(func() {
		s.sets = map[string]*statsSet{}
		reg := func(name string, f keyFormat) *statsSet {
			set := newStatsSet(name, f)
			s.sets[name] = set
			return set
		}
		s.topicPutNums = reg(TopicPutNums, keyOne)
		s.topicPutSize = reg(TopicPutSize, keyOne)
		s.queuePutNums = reg(QueuePutNums, keyTopicQueue)
		s.queuePutSize = reg(QueuePutSize, keyTopicQueue)
		s.queueGetNums = reg(QueueGetNums, keyTopicQueueGroup)
		s.queueGetSize = reg(QueueGetSize, keyTopicQueueGroup)
		s.groupGetNums = reg(GroupGetNums, keyTopicGroup)
		s.groupGetSize = reg(GroupGetSize, keyTopicGroup)
		s.groupGetLatency = reg(GroupGetLatency, keyTopicGroup)
		s.sndbckPutNums = reg(SndbckPutNums, keyTopicGroup)
		s.brokerPutNums = reg(BrokerPutNums, keyCluster)
		s.brokerGetNums = reg(BrokerGetNums, keyCluster)
		s.latency.Store(newLatencyCounts())
		if s.now == nil {
			s.now = time.Now
		}
		s.stop = make(chan struct{})
	})
}

// Start reads the settings and runs the samplers until Stop (Java: BrokerStatsManager's
// scheduled executor, StoreStatsService#run, BrokerController's daily BrokerStats#record).
func (s *Manager) Start(cfg Config) {
	s.init()
	s.noDetail.Store(!cfg.EnableDetailStat)
	s.noScheduleStats.Store(!cfg.EnableScheduleMessageStats)
	cluster := cfg.ClusterName
	s.cluster.Store(&cluster)
	s.rateMu.Lock()
	if st := cfg.Store; st != nil {
		s.puts = func() int64 { return st.Stats().PutMessageTimes }
	}
	s.pools = append([]Queue(nil), cfg.Pools...)
	s.rateMu.Unlock()

	s.sampleRates()
	ticks := 0
	s.sampleItems(ticks)
	s.every(statsTick, func() {
		ticks++
		s.sampleItems(ticks)
	})
	s.every(rateTick, s.sampleRates)
	s.every(latencyReset, s.rollLatency)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			t := time.NewTimer(time.Until(nextMorning(s.now())))
			select {
			case <-s.stop:
				t.Stop()
				return
			case <-t.C:
				s.recordDay()
			}
		}
	}()
}

// Stop ends the samplers and waits for them. The counters stay readable.
func (s *Manager) Stop() {
	s.init()
	s.stopOnce.Do(func() { close(s.stop) })
	s.wg.Wait()
}

// every runs fn every d until Stop.
func (s *Manager) every(d time.Duration, fn func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				fn()
			}
		}
	}()
}

// sampleItems samples every item: the minute window at each tick, the hour window at
// every 60th, the day window at every 360th (tick 0 samples all three, as Java's
// executors start at once).
func (s *Manager) sampleItems(tick int) {
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
func (s *Manager) isDetail() bool { return !s.noDetail.Load() }

// IncTopicPut counts a stored send or reply (Java: SendMessageProcessor#handlePutMessageResult,
// ReplyMessageProcessor): TOPIC_PUT_*, QUEUE_PUT_* for SCHEDULE_TOPIC_XXXX, BROKER_PUT_NUMS,
// and the put latency. topic and queueID are those the message was stored under.
func (s *Manager) IncTopicPut(topic string, queueID int32, res store.PutResult) {
	s.init()
	n, size := int64(res.MsgNum), int64(res.WroteBytes)
	if topic == topicSchedule && s.isDetail() {
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

// IncSendBack counts a consumer send-back (Java: asyncConsumerSendMsgBack): the put
// figures when it was parked in SCHEDULE_TOPIC_XXXX, and SNDBCK_PUT_NUMS under the
// original topic and the group.
func (s *Manager) IncSendBack(group, backTopic, storedTopic string, queueID int32, res store.PutResult) {
	s.init()
	if storedTopic == topicSchedule {
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

// SendBacks is the number of send-backs counted since the start.
func (s *Manager) SendBacks() int64 { return s.sendBackNums.Load() }

// IncScheduleDeliver counts a delayed message delivered to its real topic (Java:
// ScheduleMessageService PutResultProcess#onSuccess, with enableScheduleMessageStats).
func (s *Manager) IncScheduleDeliver(level int, topic string, res store.PutResult) {
	s.init()
	if s.noScheduleStats.Load() {
		return
	}
	n, size := int64(res.MsgNum), int64(res.WroteBytes)
	if s.isDetail() {
		qk := statsKey{topic: topicSchedule, queue: int32(level - 1), group: ScheduleConsumerGroup}
		s.queueGetNums.add(qk, n, 1)
		s.queueGetSize.add(qk, size, 1)
	}
	gk := statsKey{topic: topicSchedule, group: ScheduleConsumerGroup}
	s.groupGetNums.add(gk, n, 1)
	s.groupGetSize.add(gk, size, 1)
	k := statsKey{topic: topic}
	s.topicPutNums.add(k, n, 1)
	s.topicPutSize.add(k, size, 1)
	s.brokerPutNums.add(statsKey{}, n, 1)
}

// StoreGet counts one store read of a pull (Java: DefaultMessageStore#getMessage's
// found / miss / transferred counters).
func (s *Manager) StoreGet(res *store.GetResult) {
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

// IncGroupGet counts messages handed to a consumer (Java: PullMessageProcessor on
// SUCCESS): GROUP_GET_NUMS, GROUP_GET_SIZE, BROKER_GET_NUMS and GROUP_GET_LATENCY.
func (s *Manager) IncGroupGet(group, topic string, queueID int32, n, size int, latency time.Duration) {
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

// GroupGetTPS is the messages per second group pulled from topic in the minute window
// (Java: BrokerStatsManager#tpsGroupGetNums).
func (s *Manager) GroupGetTPS(group, topic string) float64 {
	s.init()
	it := s.groupGetNums.get(statsKey{topic: topic, group: group})
	if it == nil {
		return 0
	}
	return it.window(&it.minute).TPS
}

// View returns the minute, hour and day windows of one item (VIEW_BROKER_STATS_DATA);
// ok is false when the set or the item does not exist (Java: getStatsItem == null).
func (s *Manager) View(name, key string) (w Windows, ok bool) {
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
	return Windows{Minute: it.window(&it.minute), Hour: it.window(&it.hour), Day: it.window(&it.dayWin)}, true
}

// OnTopicDeleted drops a topic's items (Java: BrokerStatsManager#onTopicDeleted, called
// when autoDeleteUnusedStats is set).
func (s *Manager) OnTopicDeleted(topic string) {
	s.init()
	byTopic := func(k statsKey) bool { return k.topic == topic }
	for _, set := range []*statsSet{s.topicPutNums, s.topicPutSize, s.queuePutNums, s.queuePutSize, s.groupGetNums,
		s.groupGetSize, s.queueGetNums, s.queueGetSize, s.sndbckPutNums, s.groupGetLatency} {
		set.deleteWhere(byTopic)
	}
}

// OnGroupDeleted drops a group's items (Java: BrokerStatsManager#onGroupDeleted).
func (s *Manager) OnGroupDeleted(group string) {
	s.init()
	byGroup := func(k statsKey) bool { return k.group == group }
	for _, set := range []*statsSet{s.groupGetNums, s.groupGetSize, s.queueGetNums, s.queueGetSize, s.sndbckPutNums, s.groupGetLatency} {
		set.deleteWhere(byGroup)
	}
}
