package metrics

// The broker's own figures, beyond the exporter's: latency histograms observed on the
// request paths (an Observe is a few atomic adds, no lock, no allocation) and gauges
// read at scrape time (Scrape's Pool, Connections, HeldPulls, SlaveLag).

import (
	"github.com/prometheus/client_golang/prometheus"
)

// latencyBuckets span 50 µs to 10 s.
var latencyBuckets = []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// BrokerFigures are the histograms a broker observes as it serves. The zero value is not
// usable: build it with NewBrokerFigures. All methods are safe for concurrent use.
type BrokerFigures struct {
	// SendStore is the time from a send's decode to its put result (the append,
	// without the SYNC_FLUSH/SYNC_MASTER wait, which SyncWait measures).
	SendStore prometheus.Histogram
	// Pull is the time a pull's store read takes (ConsumeQueue + CommitLog lookup).
	Pull prometheus.Histogram
	// SyncWait is the time a SYNC_FLUSH or SYNC_MASTER send waits after its append for
	// the flush and/or the slave's ack: the group commit's wait.
	SyncWait prometheus.Histogram
	// SyncGroup is how many waiting sends one flush or ack round answers: the group
	// commit's size.
	SyncGroup prometheus.Histogram
	// CommitLogFlush is the time of each CommitLog flush that wrote something: a group
	// commit's fdatasync under SYNC_FLUSH, an interval flush under ASYNC_FLUSH. A tail
	// here that SyncWait shares is the disk's; one SyncWait has alone is the broker's.
	CommitLogFlush prometheus.Histogram
}

// flushBuckets span 25 µs to 10 s: a group commit's fdatasync on an SSD is 0.1-0.3 ms,
// finer than latencyBuckets' first steps.
var flushBuckets = []float64{.000025, .00005, .0001, .00015, .0002, .0003, .0005, .00075, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// NewBrokerFigures returns the histograms, not yet registered (BrokerFigures is a
// prometheus.Collector).
func NewBrokerFigures() *BrokerFigures {
	return &BrokerFigures{
		SendStore: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "skyrocket_broker_send_store_seconds",
			Help: "Time from a send request's decode to its CommitLog put result (excludes the sync flush/replica wait).", Buckets: latencyBuckets}),
		Pull: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "skyrocket_broker_pull_read_seconds",
			Help: "Time a pull's store read takes.", Buckets: latencyBuckets}),
		SyncWait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "skyrocket_broker_sync_flush_wait_seconds",
			Help: "Time a SYNC_FLUSH/SYNC_MASTER send waits after its append for the flush and/or the slave's ack (group commit wait).", Buckets: latencyBuckets}),
		SyncGroup: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "skyrocket_broker_sync_flush_group_size",
			Help:    "Number of waiting sends answered by one flush or slave-ack round (group commit size).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}}),
		CommitLogFlush: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "skyrocket_store_commitlog_flush_seconds",
			Help: "Time of each CommitLog flush that wrote something (the group commit's fdatasync under SYNC_FLUSH, the interval flush under ASYNC_FLUSH).", Buckets: flushBuckets}),
	}
}

// Describe implements prometheus.Collector.
func (f *BrokerFigures) Describe(ch chan<- *prometheus.Desc) {
	f.SendStore.Describe(ch)
	f.Pull.Describe(ch)
	f.SyncWait.Describe(ch)
	f.SyncGroup.Describe(ch)
	f.CommitLogFlush.Describe(ch)
}

// Collect implements prometheus.Collector.
func (f *BrokerFigures) Collect(ch chan<- prometheus.Metric) {
	f.SendStore.Collect(ch)
	f.Pull.Collect(ch)
	f.SyncWait.Collect(ch)
	f.SyncGroup.Collect(ch)
	f.CommitLogFlush.Collect(ch)
}

var (
	descHeldPulls   = prometheus.NewDesc("skyrocket_broker_held_pulls", "Pull requests held by long polling.", nil, nil)
	descPoolQueue   = prometheus.NewDesc("skyrocket_broker_pool_queue_length", "Requests waiting in a broker worker pool.", []string{"pool"}, nil)
	descPoolCap     = prometheus.NewDesc("skyrocket_broker_pool_queue_capacity", "Capacity of a broker worker pool's queue.", []string{"pool"}, nil)
	descConnections = prometheus.NewDesc("skyrocket_broker_connections", "Open client connections (main and VIP ports).", nil, nil)
	descSlaveLag    = prometheus.NewDesc("skyrocket_broker_ha_slave_lag_bytes", "CommitLog bytes a connected slave has not acknowledged.", []string{"slave"}, nil)
	descSlaveAcked  = prometheus.NewDesc("skyrocket_broker_ha_slave_acked_offset", "CommitLog offset a connected slave acknowledged.", []string{"slave"}, nil)
	descTopics      = prometheus.NewDesc("skyrocket_broker_topics", "Topics the broker holds.", nil, nil)
	descGroups      = prometheus.NewDesc("skyrocket_broker_subscription_groups", "Subscription groups the broker holds.", nil, nil)
	descIndexBehind = prometheus.NewDesc("skyrocket_broker_index_behind_bytes", "Dispatched CommitLog bytes the message index still has to take while it is rebuilt after a crash (0 when it follows dispatch).", nil, nil)
	ownDescs        = []*prometheus.Desc{descHeldPulls, descPoolQueue, descPoolCap, descConnections, descSlaveLag, descSlaveAcked, descTopics, descGroups, descIndexBehind}
)

func (s *Scrape) gauge(d *prometheus.Desc, v float64, labels ...string) {
	s.ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

// HeldPulls reports the pulls long polling holds.
func (s *Scrape) HeldPulls(n int) { s.gauge(descHeldPulls, float64(n)) }

// Pool reports a worker pool's queue.
func (s *Scrape) Pool(name string, queued, capacity int) {
	s.gauge(descPoolQueue, float64(queued), name)
	s.gauge(descPoolCap, float64(capacity), name)
}

// Connections reports the open client connections.
func (s *Scrape) Connections(n int) { s.gauge(descConnections, float64(n)) }

// Counts reports how many topics and subscription groups the broker holds.
func (s *Scrape) Counts(topics, groups int) {
	s.gauge(descTopics, float64(topics))
	s.gauge(descGroups, float64(groups))
}

// IndexBehind reports how far the message index is behind dispatch (store.IndexBehindBytes).
func (s *Scrape) IndexBehind(n int64) { s.gauge(descIndexBehind, float64(n)) }

// SlaveLag reports one connected slave (HA): its acknowledged offset and how far it is
// behind, and the exporter's rocketmq_broker_commitlog_diff for it.
func (s *Scrape) SlaveLag(slave string, acked, behind int64) {
	s.gauge(descSlaveLag, float64(behind), slave)
	s.gauge(descSlaveAcked, float64(acked), slave)
	if s.exporter {
		s.send("rocketmq_broker_commitlog_diff", float64(behind), s.cluster, slave, s.broker)
	}
}

// Exporter reports whether the exporter families are served (a master); a broker skips
// the work for them when not.
func (s *Scrape) Exporter() bool { return s.exporter }
