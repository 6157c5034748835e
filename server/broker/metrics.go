package broker

// The broker as a metrics.BrokerSource: what /metrics reads on each scrape (the
// exporter's families and the broker's own gauges), and the readiness checks of
// /readyz. Everything here runs on the scraping goroutine. It takes only the locks the
// admin codes take (the topic table is copy-on-write, the offset table is read one
// topic@group at a time, each consumer and producer group is copied once), never one
// that a send or a pull holds across I/O.

import (
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/metrics"
)

// Figures returns the histograms the broker observes as it serves (register them with
// the metrics registry).
func (b *Broker) Figures() *metrics.BrokerFigures { return b.figures }

// MetricsIdentity names the broker in the exporter's labels.
func (b *Broker) MetricsIdentity() metrics.Identity {
	return metrics.Identity{Cluster: b.opts.ClusterName, BrokerName: b.opts.BrokerName, Addr: b.addr, Master: b.opts.Role != RoleSlave}
}

// RuntimeInfo is the GET_BROKER_RUNTIME_INFO (28) table; nil once the broker closed its
// store.
func (b *Broker) RuntimeInfo() map[string]string {
	b.metricsMu.RLock()
	defer b.metricsMu.RUnlock()
	if b.metricsOff {
		return nil
	}
	return b.runtimeInfo()
}

// Registered is nil once a NameServer answered the last registration.
func (b *Broker) Registered() error {
	if !b.nsAnswered.Load() {
		return errors.New("no name server answered the last registration")
	}
	return nil
}

// Writable is nil when the broker takes sends: a master with write permission whose
// store accepts puts. A slave is never writable (its readiness leaves this check out).
func (b *Broker) Writable() error {
	if b.opts.Role == RoleSlave {
		return errors.New("a slave takes no sends")
	}
	if !protocol.IsWriteable(b.brokerPermission()) {
		return errors.New("brokerPermission has no write permission")
	}
	return b.store.WriteStatus()
}

// IsSlave reports whether the broker is a slave.
func (b *Broker) IsSlave() bool { return b.opts.Role == RoleSlave }

// onlineGroup is what a scrape keeps of a consumer group's online clients.
type onlineGroup struct {
	conns        int
	broadcasting bool
	subscribes   map[string]bool // nil: no online consumer (every topic counts)
}

// VisitMetrics reports the broker's state to s (metrics.BrokerSource).
func (b *Broker) VisitMetrics(s *metrics.Scrape) {
	b.metricsMu.RLock()
	defer b.metricsMu.RUnlock()
	if b.metricsOff {
		return // shut down: nothing to report
	}
	s.HeldPulls(b.holds.count())
	cfg := b.config()
	s.Pool("send", b.pools.send.Len(), int(cfg.Broker.SendThreadPoolQueueCapacity))
	s.Pool("pull", b.pools.pull.Len(), int(cfg.Broker.PullThreadPoolQueueCapacity))
	s.Pool("query", b.pools.query.Len(), b.pools.query.Queue)
	s.Pool("admin", b.pools.admin.Len(), b.pools.admin.Queue)
	s.Pool("client", b.pools.client.Len(), b.pools.client.Queue)
	s.Connections(b.rs.ConnCount())
	topics := b.topics.Names()
	groups := b.subs.Groups()
	s.Counts(len(topics), len(groups))
	s.IndexBehind(b.store.IndexBehindBytes())
	if b.haMaster != nil {
		maxOff := b.store.MaxPhyOffset()
		for _, sl := range b.haMaster.Slaves() {
			s.SlaveLag(sl.Remote, sl.AckedOffset, max64(maxOff-sl.AckedOffset, 0))
		}
	}
	if !s.Exporter() {
		return
	}
	s.Broker(b.stats.BrokerMinute())
	b.visitClients(s)

	for _, topic := range topics {
		tc, ok := b.topics.Get(topic)
		if !ok {
			continue // deleted since Names
		}
		var sum int64
		for i, n := int32(0), protocol.ClampQueueNums(tc.WriteQueueNums); i < n; i++ {
			sum += max64(b.store.MaxOffsetInQueue(topic, i), 0)
		}
		nums, size := b.stats.TopicPutMinute(topic)
		s.Topic(topic, nums, size, sum)
	}

	for group, chans := range b.producers.Groups() {
		s.ProducerGroup(group, len(chans))
	}

	online := map[string]*onlineGroup{}
	for _, name := range b.consumers.Groups() {
		g := b.consumers.Group(name)
		if g == nil {
			continue
		}
		og := &onlineGroup{conns: len(g.Channels), broadcasting: g.MessageModel == "BROADCASTING"}
		if len(g.Subscriptions) > 0 {
			og.subscribes = make(map[string]bool, len(g.Subscriptions))
			for t := range g.Subscriptions {
				og.subscribes[t] = true
			}
		}
		online[name] = og
		caddr := make([]string, 0, len(g.Channels))
		ids := make([]string, 0, len(g.Channels))
		for conn, ch := range g.Channels {
			caddr = append(caddr, conn.RemoteAddr())
			ids = append(ids, ch.ClientID)
		}
		sort.Strings(caddr)
		sort.Strings(ids)
		s.ConsumerGroup(name, strings.Join(caddr, ","), strings.Join(ids, ","), og.conns)
	}

	now := time.Now().UnixMilli()
	var c metrics.Consume
	seen := map[string]bool{}
	b.offsets.Each(func(topic, group string, offs map[int32]int64) {
		tc, ok := b.topics.Get(topic)
		if !ok {
			return // as GET_CONSUME_STATS: "consumeStats, topic config not exist"
		}
		og := online[group]
		if og != nil && og.subscribes != nil && !og.subscribes[topic] {
			return // the online consumers do not subscribe it (GET_CONSUME_STATS leaves it out)
		}
		if og == nil && !seen[group] {
			seen[group] = true
			s.ConsumerGroup(group, "", "", 0)
		}
		c = metrics.Consume{Topic: topic, Group: group}
		if og != nil {
			c.Online, c.Broadcasting = og.conns, og.broadcasting
		}
		c.GetTPS, c.GetSizeTPS, c.SendBackSum = b.stats.GroupGetMinute(group, topic)
		for i, n := int32(0), protocol.ClampQueueNums(tc.WriteQueueNums); i < n; i++ {
			brokerOff := max64(b.store.MaxOffsetInQueue(topic, i), 0)
			consumerOff, ok := offs[i]
			if !ok || consumerOff < 0 {
				consumerOff = 0
			}
			c.ConsumerOffset += consumerOff
			c.Diff += brokerOff - consumerOff
			if consumerOff < brokerOff && !c.Broadcasting {
				at := max64(consumerOff, b.store.MinOffsetInQueue(topic, i))
				if ts := b.store.MessageStoreTimestamp(topic, i, at); ts > 0 && now-ts > c.LatencyMillis {
					c.LatencyMillis = now - ts
				}
			}
		}
		s.Consume(&c)
	})
}

// count returns the number of held pulls.
func (p *pullHolds) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, l := range p.held {
		n += len(l)
	}
	return n
}
