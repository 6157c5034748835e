package broker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/ha"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/acl"
	"github.com/skyrocket-mq/skyrocket/server/broker/clients"
	"github.com/skyrocket-mq/skyrocket/server/broker/consumerfilter"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/broker/schedule"
	"github.com/skyrocket-mq/skyrocket/server/broker/stats"
	"github.com/skyrocket-mq/skyrocket/server/broker/transaction"
	"github.com/skyrocket-mq/skyrocket/server/metrics"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
	"github.com/skyrocket-mq/skyrocket/store/timer"
)

// Broker is a running RocketMQ broker (Java: BrokerController).
type Broker struct {
	opts        Options
	log         zerolog.Logger
	store       *store.Store
	topics      *meta.TopicManager
	subs        *meta.SubscriptionManager
	offsets     *meta.OffsetManager
	consumers   *clients.ConsumerManager
	producers   *clients.ProducerManager
	filters     *consumerfilter.Manager
	holds       *pullHolds
	schedule    *schedule.Service      // delay levels (schedule.go); nil until Start
	timer       *timer.Service         // timer messages (timer.go); nil when off, on a slave, before Start
	tx          *transaction.Service   // half/op records and the check (transactions.go)
	syncReplies *syncReplies           // SYNC_FLUSH and SYNC_MASTER answers (sync_replies.go)
	haMaster    *ha.Master             // replication to slaves; nil on a slave (replication.go)
	haSlave     *ha.Slave              // replication from the master; nil on a master
	masterAddr  atomic.Pointer[string] // a slave's master (main address), from registration
	locks       *clients.LockTable
	pools       pools
	rs          *remoting.Server
	nsClient    *remoting.Client
	storeHost   netip.AddrPort
	addr        string // brokerIP1:listenPort, as registered
	stats       stats.Manager
	admin       adminState             // admin_config.go: live configuration, runtime-updated settings
	figures     *metrics.BrokerFigures // latency histograms for /metrics (metrics.go)
	// metricsMu guards metricsOff: a scrape reads the store under the read lock, and
	// Shutdown sets metricsOff under the write lock before it closes the store, so no
	// scrape reads a closed store's mapped files.
	metricsMu  sync.RWMutex
	metricsOff bool
	clientRows atomic.Pointer[[]metrics.ClientConsume] // rocketmq_client_* rows (metrics_clients.go); nil when off
	acl        *acl.Validator                          // acl_check.go: nil unless aclEnable=true

	// flushReplies answers the SYNC_FLUSH sends of a broker that is not a SYNC_MASTER,
	// from the flushing goroutine (flush_replies.go); nil under ASYNC_FLUSH.
	flushReplies *flushReplies

	stop  chan struct{}
	wg    sync.WaitGroup
	regMu sync.Mutex // serializes registrations (Java: synchronized registerBrokerAll)
	// nsAnswered: the last registration was answered by a name server (registration.go).
	nsAnswered        atomic.Bool
	regCompressLogged atomic.Bool    // the switch to the compressed register form was logged
	leaving           atomic.Bool    // a slave draining: out of the routes, suggesting the master (drain.go)
	announce          topicAnnouncer // new topics waiting for registration (registration.go)
	shutOnce          sync.Once
}

// outboundMaxFrame bounds a frame the broker reads from a NameServer or its master.
const outboundMaxFrame = 256 << 20

// New opens the store and loads the broker's config files; Start serves.
func New(opts Options) (*Broker, error) {
	log := opts.Logger.With().Str("component", "broker").Logger()
	if opts.Config == nil {
		return nil, errors.New("broker: Options.Config is nil (build the options with OptionsFrom or DefaultOptions)")
	}
	opts.Config = opts.Config.Clone() // the broker's own snapshot: a caller's later changes do not reach it
	b := &Broker{opts: opts, log: log, stop: make(chan struct{}), figures: metrics.NewBrokerFigures()}
	host, portStr, err := net.SplitHostPort(opts.ListenAddr)
	if err != nil {
		return nil, fmt.Errorf("broker: listen address %q: %w", opts.ListenAddr, err)
	}
	_ = host
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("broker: listen port %q: %w", portStr, err)
	}
	if port == 0 {
		return nil, errors.New("broker: listenPort must be set (the VIP and HA ports derive from it)")
	}
	ip, err := netip.ParseAddr(opts.BrokerIP1)
	if err != nil {
		return nil, fmt.Errorf("broker: brokerIP1 %q: %w", opts.BrokerIP1, err)
	}
	b.storeHost = netip.AddrPortFrom(ip, uint16(port))
	b.addr = b.storeHost.String()
	if b.opts.HAPort == 0 {
		b.opts.HAPort = port + 1
	}
	if b.opts.BrokerIP2 == "" {
		b.opts.BrokerIP2 = b.opts.BrokerIP1
	}

	if err := b.newACL(); err != nil {
		return nil, err
	}
	if b.topics, err = meta.NewTopicManager(meta.TopicOptions{
		Path: opts.configPath("topics.json"), ClusterName: opts.ClusterName, BrokerName: opts.BrokerName,
		AutoCreateTopicEnable: opts.AutoCreateTopicEnable, DefaultTopicQueueNums: opts.DefaultTopicQueueNums,
		ClusterTopicEnable: opts.ClusterTopicEnable, BrokerTopicEnable: opts.BrokerTopicEnable,
		TraceTopicEnable: opts.TraceTopicEnable, TraceTopicName: opts.MsgTraceTopicName,
	}, log); err != nil {
		return nil, err
	}
	if b.subs, err = meta.NewSubscriptionManager(opts.configPath("subscriptionGroup.json"), opts.AutoCreateSubscriptionGroup, log); err != nil {
		return nil, err
	}
	if b.offsets, err = meta.NewOffsetManager(opts.configPath("consumerOffset.json"), log); err != nil {
		return nil, err
	}
	if b.filters, err = consumerfilter.New(consumerfilter.Options{
		Path: opts.configPath("consumerFilter.json"), FilterDataCleanTimeSpan: opts.FilterDataCleanTimeSpan,
		MaxErrorRateOfBloomFilter: opts.MaxErrorRateOfBloomFilter, ExpectConsumerNumUseFilter: opts.ExpectConsumerNumUseFilter,
	}, log); err != nil {
		return nil, err
	}
	b.consumers = clients.NewConsumerManager(log, b.onConsumerEvent)
	b.producers = clients.NewProducerManager(log)
	b.holds = newPullHolds(b)
	b.locks = clients.NewLockTable()

	sc := opts.Store
	sc.Logger = log
	sc.Slave = opts.Role == RoleSlave
	sc.OnArrive = b.holds.arrived
	if b.store, err = store.Open(sc); err != nil {
		return nil, err
	}
	flushTime := b.figures.CommitLogFlush
	b.store.SetFlushTimer(func(d time.Duration) { flushTime.Observe(d.Seconds()) })
	b.tx = b.newTransactions()
	b.newReplication(host)
	var replicas replicaSource
	if opts.Role == RoleSyncMaster {
		replicas = b.haMaster
	}
	b.syncReplies = newSyncReplies(b.store, replicas, b.figures, log)
	if opts.Store.FlushDiskType == store.SyncFlush && opts.Role != RoleSyncMaster {
		b.flushReplies = newFlushReplies(b.store, b.figures, log)
	}
	b.pools = newPools(&b.opts)
	listeners := []remoting.Listener{{Addr: opts.ListenAddr}}
	if opts.EnableVIP {
		listeners = append(listeners, remoting.Listener{Addr: net.JoinHostPort(host, strconv.Itoa(port-2)),
			Exclude: []protocol.RequestCode{protocol.CodePullMessage}})
	}
	b.rs = remoting.NewServer(remoting.Options{
		Listeners:  listeners,
		EventLoops: opts.EventLoops,
		Limits:     opts.Transport.Limits,
		TLS:        opts.Transport.TLS,
		Logger:     log,
		OnClose:    b.connClosed,
		Unknown:    b.guardedUnknown(),
	}, b.guarded(b.handlers()))
	// The broker's outbound client reads the NameServers' answers and, on a slave, the
	// master's metadata: GET_ALL_TOPIC_CONFIG of a master with ~90,000 topics passes the
	// 16 MiB frame, which Java's slave refuses (its topics never sync). Skyrocket's reads
	// answers up to outboundMaxFrame from the servers it is configured to call.
	b.nsClient = remoting.NewClient(remoting.ClientOptions{DialTimeout: 3 * time.Second, Logger: log, MaxFrameSize: outboundMaxFrame,
		TLS: opts.Transport.ClientTLS})
	return b, nil
}

// Start serves the ports, registers with the name servers and starts the periodic tasks.
func (b *Broker) Start() error {
	if err := b.rs.Start(); err != nil {
		b.stopReplies()
		_ = b.store.Close()
		return err
	}
	if err := b.startReplication(); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = b.rs.Shutdown(ctx)
		b.stopReplies()
		_ = b.store.Close()
		return err
	}
	b.pools.start()
	b.holds.start()
	if b.acl != nil {
		b.acl.Start()
	}
	if err := b.startSchedule(); err != nil {
		b.log.Error().Err(err).Msg("start schedule service")
	}
	if err := b.startTimer(); err != nil {
		b.log.Error().Err(err).Msg("start timer service")
	}
	b.startTransactionCheck()
	b.registerAll(true)
	b.every(b.registerPeriod(), func() { b.registerAll(false) })
	b.every(b.opts.FlushConsumerOffsetInterval, func() {
		if err := b.offsets.Persist(false); err != nil {
			b.log.Error().Err(err).Msg("persist consumer offsets")
		}
	})
	b.every(10*time.Second, func() {
		if err := b.filters.Persist(false); err != nil {
			b.log.Error().Err(err).Msg("persist consumer filters")
		}
	})
	b.every(10*time.Second, func() {
		b.consumers.ScanExpired()
		b.producers.ScanExpired()
	})
	cfg := b.config()
	b.stats.Start(stats.Config{
		EnableDetailStat: cfg.Broker.EnableDetailStat, EnableScheduleMessageStats: cfg.Store.EnableScheduleMessageStats,
		ClusterName: b.opts.ClusterName, Store: b.store, Pools: []stats.Queue{b.pools.send, b.pools.pull, b.pools.query, b.pools.admin},
	})
	b.log.Info().Str("addr", b.addr).Strs("listen", b.rs.Addrs()).Str("role", b.opts.Role.String()).
		Strs("namesrv", b.opts.NamesrvAddrs).Msg("broker started")
	return nil
}

func (b *Broker) registerPeriod() time.Duration {
	p := b.opts.RegisterNameServerPeriod
	if p < 10*time.Second {
		p = 10 * time.Second
	}
	if p > 60*time.Second {
		p = 60 * time.Second
	}
	return p
}

// every runs fn every d until Shutdown.
func (b *Broker) every(d time.Duration, fn func()) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				fn()
			}
		}
	}()
}

// Addr returns the broker address as registered (brokerIP1:listenPort).
func (b *Broker) Addr() string { return b.addr }

// ListenAddrs returns the bound main and VIP addresses.
func (b *Broker) ListenAddrs() []string { return b.rs.Addrs() }

// TopicConfig returns a topic's config as the broker holds it.
func (b *Broker) TopicConfig(topic string) (protocol.TopicConfig, bool) { return b.topics.Get(topic) }

// Store exposes the message store (tests, the all-in-one binary).
func (b *Broker) Store() *store.Store { return b.store }

// Shutdown unregisters, stops serving, answers held pulls and closes the store.
func (b *Broker) Shutdown(ctx context.Context) error {
	var err error
	b.shutOnce.Do(func() {
		close(b.stop)
		if b.acl != nil {
			b.acl.Close()
			b.acl.Wait()
		}
		b.unregisterAll()
		b.stopTransactionCheck()
		b.stopSchedule()
		b.stopTimer()
		b.holds.shutdown()
		if e := b.rs.Shutdown(ctx); e != nil {
			err = e
		}
		b.stopReplies() // no request adds any more: answer what waits for a flush or a slave
		b.stopReplication()
		b.wg.Wait()
		b.stats.Stop()
		b.topics.Close()
		b.subs.Close()
		b.pools.stop()
		if e := b.offsets.Persist(true); e != nil {
			b.log.Error().Err(e).Msg("persist consumer offsets")
		}
		if e := b.filters.Persist(true); e != nil {
			b.log.Error().Err(e).Msg("persist consumer filters")
		}
		b.nsClient.Close()
		b.metricsMu.Lock()
		b.metricsOff = true
		b.metricsMu.Unlock()
		if e := b.store.Close(); e != nil && err == nil {
			err = e
		}
		b.log.Info().Msg("broker stopped")
	})
	return err
}

func (b *Broker) connClosed(c *remoting.Conn) {
	b.consumers.ConnClosed(c)
	b.producers.ConnClosed(c)
}

// onConsumerEvent notifies a group's clients when its membership changed (Java:
// DefaultConsumerIdsChangeListener + Broker2Client#notifyConsumerIdsChanged).
func (b *Broker) onConsumerEvent(ev clients.ConsumerEvent, group string, g *clients.ConsumerGroup) {
	b.filtersOnConsumerEvent(ev, group, g)
	if ev != clients.ConsumerChanged || g == nil || !b.opts.NotifyConsumerIdsChangedEnable {
		return
	}
	for conn := range g.Channels {
		req := protocol.NewRequest(protocol.CodeNotifyConsumerIdsChanged)
		h := protocol.NotifyConsumerIdsChangedRequestHeader{ConsumerGroup: group}
		h.Encode(&req.Ext)
		if err := conn.InvokeOneway(req); err != nil {
			b.log.Debug().Err(err).Str("group", group).Str("remote", conn.RemoteAddr()).Msg("notify consumer ids changed")
		}
	}
}

// unknownCode answers codes with no handler as Java's AdminBrokerProcessor does.
// guardedUnknown is the unknown-code handler, behind the ACL check when it is on (Java
// runs the hook before its default processor answers REQUEST_CODE_NOT_SUPPORTED).
func (b *Broker) guardedUnknown() remoting.Handler {
	if b.acl == nil {
		return b.unknownCode
	}
	return b.aclGuard(b.unknownCode)
}

func (b *Broker) unknownCode(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return nil, protocol.NotSupported(req.Code)
}

// stopReplies answers the sends still waiting for a flush or a slave and stops the
// services that answer them.
func (b *Broker) stopReplies() {
	b.syncReplies.stop()
	if b.flushReplies != nil {
		b.flushReplies.stop()
	}
}
