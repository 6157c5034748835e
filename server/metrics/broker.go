package metrics

// The broker's exporter-compatible families, computed from the broker's own state on
// each scrape (BrokerCollector). The broker fills a Scrape; nothing is cached between
// scrapes, so a deleted topic or group is gone from the next one (rocketmq-exporter
// #64 ran out of memory on such stale series).

import (
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Identity names a broker in the exporter's labels: cluster = brokerClusterName,
// broker = brokerName, brokerIP = brokerIP1:listenPort (the exporter's "brokerIP" is
// an address with its port).
type Identity struct {
	Cluster, BrokerName, Addr string
	Master                    bool // the exporter reads masters only: a slave serves no exporter family
}

// BrokerSource is what a BrokerCollector reads of a broker (*broker.Broker). Every call
// happens on the scraping goroutine, never on an event loop.
type BrokerSource interface {
	MetricsIdentity() Identity
	// RuntimeInfo is the GET_BROKER_RUNTIME_INFO (28) table; nil when there is none
	// (the broker stopped).
	RuntimeInfo() map[string]string
	// VisitMetrics reports the broker's topics, groups, clients and slaves to s.
	VisitMetrics(s *Scrape)
}

// Scrape receives one broker's figures during a scrape and turns each into the
// exporter's series at once (no intermediate table: a scrape of 10,000 topics holds
// no more than one series at a time besides what the registry gathers).
type Scrape struct {
	ch                    chan<- prometheus.Metric
	cluster, broker, addr string
	exporter              bool // a master: the exporter's families are served (it reads masters only)
}

// send emits one exporter series; nothing on a slave.
func (s *Scrape) send(name string, v float64, labels ...string) {
	if !s.exporter {
		return
	}
	s.ch <- prometheus.MustNewConstMetric(descs[name], prometheus.GaugeValue, v, labels...)
}

// Broker reports the minute rates of BROKER_PUT_NUMS and BROKER_GET_NUMS
// (rocketmq_broker_tps, rocketmq_broker_qps).
func (s *Scrape) Broker(putTPS, getTPS float64) {
	s.send("rocketmq_broker_tps", putTPS, s.cluster, s.addr, s.broker)
	s.send("rocketmq_broker_qps", getTPS, s.cluster, s.addr, s.broker)
}

// Topic reports a topic: the minute rates of TOPIC_PUT_NUMS and TOPIC_PUT_SIZE and the
// sum of its queues' max offsets. By name, as the exporter sorts them: %RETRY% topics
// give rocketmq_topic_retry_offset, %DLQ% topics rocketmq_topic_dlq_offset (labelled
// with the group), the others rocketmq_producer_{tps,message_size,offset}.
func (s *Scrape) Topic(topic string, putTPS, putSizeTPS float64, maxOffsetSum int64) {
	switch {
	case strings.HasPrefix(topic, retryPrefix):
		s.send("rocketmq_topic_retry_offset", float64(maxOffsetSum), s.cluster, s.broker, topic)
	case strings.HasPrefix(topic, dlqPrefix):
		s.send("rocketmq_topic_dlq_offset", float64(maxOffsetSum), s.cluster, s.broker, strings.TrimPrefix(topic, dlqPrefix))
	default:
		s.send("rocketmq_producer_tps", putTPS, s.cluster, s.broker, topic)
		s.send("rocketmq_producer_message_size", putSizeTPS, s.cluster, s.broker, topic)
		s.send("rocketmq_producer_offset", float64(maxOffsetSum), s.cluster, s.broker, topic)
	}
}

// ProducerGroup reports a producer group's online instances (rocketmq_producer_count).
func (s *Scrape) ProducerGroup(group string, instances int) {
	s.send("rocketmq_producer_count", float64(instances), s.cluster, s.broker, group)
}

// ConsumerGroup reports a consumer group's online connections (rocketmq_group_count):
// caddr the comma-joined remote addresses, localaddr the comma-joined client ids.
func (s *Scrape) ConsumerGroup(group, caddr, localaddr string, connections int) {
	s.send("rocketmq_group_count", float64(connections), caddr, localaddr, group)
}

// Consume holds what a broker knows of one group on one topic (the exporter's 208 +
// 315 + 203 round for that pair).
type Consume struct {
	Topic, Group string
	GetTPS       float64 // GROUP_GET_NUMS minute tps
	GetSizeTPS   float64 // GROUP_GET_SIZE minute tps
	SendBackSum  int64   // SNDBCK_PUT_NUMS minute sum
	// ConsumerOffset is the sum of the group's offsets over the topic's queues here;
	// Diff the sum of (queue max offset − consumer offset), ConsumeStats#computeTotalDiff.
	ConsumerOffset, Diff int64
	// LatencyMillis is the largest now − storeTimestamp of the message at the
	// consumer offset over the queues; 0 when caught up.
	LatencyMillis int64
	Online        int  // online consumer connections of the group
	Broadcasting  bool // the group's online consumers use BROADCASTING
}

// Consume reports a (topic, group) pair: rocketmq_consumer_{tps,message_size,offset},
// rocketmq_send_back_nums and, for CLUSTERING groups, rocketmq_group_get_latency_by_storetime
// and rocketmq_group_diff (rocketmq_group_retrydiff for %RETRY% topics). DLQ topics are
// skipped, as the exporter skips them.
func (s *Scrape) Consume(c *Consume) {
	if strings.HasPrefix(c.Topic, dlqPrefix) {
		return
	}
	l := [4]string{s.cluster, s.broker, c.Topic, c.Group}
	s.send("rocketmq_consumer_tps", c.GetTPS, l[:]...)
	s.send("rocketmq_consumer_message_size", c.GetSizeTPS, l[:]...)
	s.send("rocketmq_send_back_nums", float64(c.SendBackSum), l[:]...)
	s.send("rocketmq_consumer_offset", float64(c.ConsumerOffset), l[:]...)
	if c.Broadcasting {
		return
	}
	s.send("rocketmq_group_get_latency_by_storetime", float64(c.LatencyMillis), l[:]...)
	diff := "rocketmq_group_diff"
	if strings.HasPrefix(c.Topic, retryPrefix) {
		diff = "rocketmq_group_retrydiff"
	}
	// msgModel is MessageModel's ordinal: CLUSTERING = 1.
	s.send(diff, float64(c.Diff), c.Group, c.Topic, strconv.Itoa(c.Online), "1")
}

// ClientConsume is one row of a consumer's ConsumerRunningInfo status table
// (GET_CONSUMER_RUNNING_INFO, 307).
type ClientConsume struct {
	ClientAddr, ClientID, Group, Topic           string
	FailedMsgs                                   int64
	FailedTPS, OKTPS, ConsumeRT, PullRT, PullTPS float64
}

// Client reports a consumer client's figures for one topic (rocketmq_client_*).
func (s *Scrape) Client(c *ClientConsume) {
	l := [4]string{c.ClientAddr, c.ClientID, c.Group, c.Topic}
	s.send("rocketmq_client_consume_fail_msg_count", float64(c.FailedMsgs), l[:]...)
	s.send("rocketmq_client_consume_fail_msg_tps", c.FailedTPS, l[:]...)
	s.send("rocketmq_client_consume_ok_msg_tps", c.OKTPS, l[:]...)
	s.send("rocketmq_client_consume_rt", c.ConsumeRT, l[:]...)
	s.send("rocketmq_client_consumer_pull_rt", c.PullRT, l[:]...)
	s.send("rocketmq_client_consumer_pull_tps", c.PullTPS, l[:]...)
}

const (
	retryPrefix = "%RETRY%"
	dlqPrefix   = "%DLQ%"
)

// BrokerCollector is a prometheus.Collector over a broker: the 89 exporter families
// (those the broker has figures for; rocketmq_group_dlqdiff, rocketmq_group_consume_tps
// and rocketmq_group_consume_total_offset stay empty, as the exporter leaves them).
type BrokerCollector struct{ src BrokerSource }

// NewBrokerCollector returns the collector of src.
func NewBrokerCollector(src BrokerSource) *BrokerCollector { return &BrokerCollector{src: src} }

// Describe sends the 89 exporter descriptors and the broker's own gauges.
func (c *BrokerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, f := range exporterFamilies {
		ch <- descs[f.name]
	}
	for _, d := range ownDescs {
		ch <- d
	}
}

// Collect computes every series from the broker's state now.
func (c *BrokerCollector) Collect(ch chan<- prometheus.Metric) {
	id := c.src.MetricsIdentity()
	if id.Master {
		if kv := c.src.RuntimeInfo(); kv != nil {
			collectRuntime(ch, id.Cluster, id.Addr, kv)
		}
	}
	c.src.VisitMetrics(&Scrape{ch: ch, cluster: id.Cluster, broker: id.BrokerName, addr: id.Addr, exporter: id.Master})
}
