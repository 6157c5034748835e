package broker

// Registration with the name servers (Java: BrokerController#registerBrokerAll,
// BrokerOuterAPI#registerBrokerAll / #unregisterBrokerAll): REGISTER_BROKER to every name
// server in parallel at start, every registerNameServerPeriod, and incrementally when a
// topic is created; UNREGISTER_BROKER at shutdown. Each response may carry the
// ORDER_TOPIC_CONFIG table (order flags) and, for a slave, its master's addresses.

import (
	"context"
	"net"
	"strconv"
	"sync"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// haServerAddr is brokerIP2:haListenPort.
func (b *Broker) haServerAddr() string {
	return net.JoinHostPort(b.opts.BrokerIP2, strconv.Itoa(b.opts.HAPort))
}

// registerAll registers the whole topic table.
func (b *Broker) registerAll(checkOrderConfig bool) {
	w := b.topics.Wrapper()
	b.register(w, checkOrderConfig)
}

// announceTopic registers a topic the caller just created with every name server, from
// a background goroutine: topics created meanwhile go in the same REGISTER_BROKER (a
// heartbeat that creates a thousand %RETRY% topics costs a few registrations, not a
// thousand). It returns a channel closed once the name servers answered (each call is
// bounded by registerBrokerTimeout), or nil when nothing should wait: no name server is
// configured, or none answered the last registration (an unreachable name server must
// not hold every new topic's request).
//
// Java 4.9.8 registers from the creating thread (registerBrokerAll in
// createTopicInSendMessageMethod, registerIncrementBrokerData for
// UPDATE_AND_CREATE_TOPIC) and answers after it, so a client that asks the name server
// for the route next finds it (the Go client's push consumer refuses to start on a topic
// without a route). Handlers on an event loop hand their answer to replyWhen instead of
// waiting; pooled handlers wait with awaitRegistered.
func (b *Broker) announceTopic(tc protocol.TopicConfig) <-chan struct{} {
	if len(b.opts.NamesrvAddrs) == 0 {
		return nil
	}
	done := make(chan struct{})
	a := &b.announce
	a.mu.Lock()
	if a.pending == nil {
		a.pending = map[string]protocol.TopicConfig{}
	}
	a.pending[tc.TopicName] = tc
	a.waiters = append(a.waiters, done)
	if !a.running {
		a.running = true
		go b.announceLoop()
	}
	a.mu.Unlock()
	if !b.nsAnswered.Load() {
		return nil
	}
	return done
}

// topicAnnouncer batches the registrations of new topics (announceTopic).
type topicAnnouncer struct {
	mu      sync.Mutex
	pending map[string]protocol.TopicConfig
	waiters []chan struct{}
	running bool
}

func (b *Broker) announceLoop() {
	a := &b.announce
	for {
		version := b.topics.DataVersion() // before the batch: a later topic brings a later version
		a.mu.Lock()
		if len(a.pending) == 0 {
			a.running = false
			a.mu.Unlock()
			return
		}
		batch, waiters := a.pending, a.waiters
		a.pending, a.waiters = nil, nil
		a.mu.Unlock()
		b.register(protocol.TopicConfigSerializeWrapper{DataVersion: version, TopicConfigTable: batch}, false)
		for _, ch := range waiters {
			close(ch)
		}
	}
}

// awaitRegistered waits for announceTopic's channel (nil: nothing to wait for). For
// handlers on a pool; registerBrokerTimeout bounds each name server's answer.
func (b *Broker) awaitRegistered(done <-chan struct{}) {
	if done != nil {
		<-done
	}
}

// registerCompressAbove is the JSON register body size above which the broker sends the
// compressed form even with compressedRegister=false: half the 16 MiB frame, so the
// frame's header and a growing topic table never reach the limit.
const registerCompressAbove = 8 << 20

func (b *Broker) register(w protocol.TopicConfigSerializeWrapper, checkOrderConfig bool) {
	if len(b.opts.NamesrvAddrs) == 0 || b.leaving.Load() { // a draining slave stays out of the routes
		return
	}
	perm := b.brokerPermission()
	if !protocol.IsWriteable(perm) || !protocol.IsReadable(perm) {
		for k, tc := range w.TopicConfigTable {
			tc.Perm = perm
			w.TopicConfigTable[k] = tc
		}
	}
	body := protocol.RegisterBrokerBody{TopicConfigSerializeWrapper: w, FilterServerList: []string{}}
	var payload []byte
	compressed := b.opts.CompressedRegister
	if !compressed {
		payload = body.AppendJSON(nil)
		if len(payload) > registerCompressAbove {
			// Java sends it as it is and every NameServer refuses the frame past 16 MiB
			// (apache/rocketmq #5296: the broker's topics vanish from the routes). The
			// compressed form (compressedRegister=true) is Java's own, read by its
			// NameServers since 4.2.0 and by Skyrocket's.
			compressed = true
			if !b.regCompressLogged.Swap(true) {
				b.log.Info().Int("bytes", len(payload)).Int("topics", len(w.TopicConfigTable)).
					Msg("the register body is too large for a frame: registering in the compressed form (compressedRegister) from now on")
			}
		}
	}
	if compressed {
		var err error
		if payload, err = body.EncodeCompressed(); err != nil {
			b.log.Error().Err(err).Msg("compress register body")
			return
		}
	}
	h := protocol.RegisterBrokerRequestHeader{BrokerName: b.opts.BrokerName, BrokerAddr: b.addr, ClusterName: b.opts.ClusterName,
		HaServerAddr: b.haServerAddr(), BrokerID: b.opts.BrokerID, Compressed: compressed, BodyCrc32: compat.CRC32(payload)}

	b.regMu.Lock()
	defer b.regMu.Unlock()
	if b.leaving.Load() {
		return
	}
	var wg sync.WaitGroup
	results := make([]*protocol.Command, len(b.opts.NamesrvAddrs))
	for i, ns := range b.opts.NamesrvAddrs {
		wg.Add(1)
		go func(i int, ns string) {
			defer wg.Done()
			req := protocol.NewRequest(protocol.CodeRegisterBroker)
			h.Encode(&req.Ext)
			req.Body = payload
			resp, err := b.nsClient.Invoke(context.Background(), ns, req, b.opts.RegisterBrokerTimeout)
			if err != nil {
				b.log.Warn().Err(err).Str("namesrv", ns).Msg("register broker to name server failed")
				return
			}
			if resp.ResponseCode() != protocol.ResSuccess {
				b.log.Warn().Str("namesrv", ns).Str("code", resp.ResponseCode().String()).Str("remark", resp.Remark).Msg("register broker refused")
				return
			}
			results[i] = resp
		}(i, ns)
	}
	wg.Wait()
	answered := false
	for _, r := range results {
		if r == nil {
			continue
		}
		if !answered {
			b.onRegistered(r, checkOrderConfig)
		}
		answered = true
	}
	b.nsAnswered.Store(answered)
}

// onRegistered applies the first successful registration response.
func (b *Broker) onRegistered(resp *protocol.Command, checkOrderConfig bool) {
	var rh protocol.RegisterBrokerResponseHeader
	_ = rh.Decode(resp.Ext)
	if b.opts.Role == RoleSlave {
		b.setMaster(rh.MasterAddr, rh.HaServerAddr)
	}
	if checkOrderConfig && len(resp.Body) > 0 {
		var kv protocol.KVTable
		if err := protocol.UnmarshalBody(resp.Body, &kv); err == nil {
			b.topics.UpdateOrderTopics(kv.Table)
		}
	}
}

// unregisterAll sends UNREGISTER_BROKER to every name server (best effort).
func (b *Broker) unregisterAll() {
	var wg sync.WaitGroup
	for _, ns := range b.opts.NamesrvAddrs {
		wg.Add(1)
		go func(ns string) {
			defer wg.Done()
			req := protocol.NewRequest(protocol.CodeUnregisterBroker)
			h := protocol.UnRegisterBrokerRequestHeader{BrokerName: b.opts.BrokerName, BrokerAddr: b.addr, ClusterName: b.opts.ClusterName, BrokerID: b.opts.BrokerID}
			h.Encode(&req.Ext)
			if _, err := b.nsClient.Invoke(context.Background(), ns, req, b.opts.RegisterBrokerTimeout); err != nil {
				b.log.Warn().Err(err).Str("namesrv", ns).Msg("unregister broker failed")
			}
		}(ns)
	}
	wg.Wait()
}
