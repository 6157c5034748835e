package main

import (
	"context"
	"math/rand/v2"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// The null broker: the ceiling every broker is measured against. It answers
// SEND_MESSAGE (10), SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320) with a
// Java-shaped success (Java: SendMessageProcessor#handlePutMessageResult: msgId = offset
// message ids, comma-joined for a batch; queueId; queueOffset; MSG_REGION; TRACE_ON)
// after decoding the header and walking a batch body, and stores nothing. HEART_BEAT and
// UPDATE_AND_CREATE_TOPIC (17, after decoding its header: produce -create-topic) are
// answered SUCCESS. PULL_MESSAGE is answered with min(maxMsgNums, 32) canned records
// built at start, nextBeginOffset = queueOffset + n: the consume-side ceiling. Every
// handler runs inline on the event loop and borrows the request (remoting.Route.Borrow:
// decoded in place in the read buffer, no copy; no handler keeps any of it), as the
// broker's send route does, so the ceiling pays no copy the broker avoids. Queue offsets and the physical offset are
// counters, so answers look like a broker's (monotonic offsets, distinct msgIds).
//
// It does not check topics, permissions or message limits; it never answers with an
// error except for headers that do not decode (Java's remark) and batch bodies that
// do not walk (MESSAGE_ILLEGAL).

type nullOptions struct {
	Listen     string
	EventLoops int
	Topic      string // topic of the canned pull records
	PullSize   int    // body size of the canned pull records
	Region     string // MSG_REGION (Java BrokerConfig.regionId)
	TraceOn    bool   // TRACE_ON (Java BrokerConfig.traceOn)
	Logger     zerolog.Logger
}

const (
	nullQueues      = 1024 // queue-offset counters, by queueId modulo this
	nullMaxPullMsgs = 32   // Java maxTransferCountOnMessageInMemory
)

type nullBroker struct {
	opts       nullOptions
	srv        *remoting.Server
	storeHost  atomic.Pointer[netip.AddrPort]
	phys       atomic.Int64
	offsets    [nullQueues]atomic.Int64
	pullBody   []byte
	pullEnds   [nullMaxPullMsgs]int
	traceOn    string
	sends      atomic.Int64 // messages acknowledged, for tests and the exit line
	heartbeats atomic.Int64 // HEART_BEATs answered, for tests
}

func newNullBroker(o nullOptions) *nullBroker {
	if o.Region == "" {
		o.Region = "DefaultRegion"
	}
	if o.Topic == "" {
		o.Topic = "BenchmarkTest"
	}
	n := &nullBroker{opts: o, traceOn: "false"}
	if o.TraceOn {
		n.traceOn = "true"
	}
	n.buildPullBody()
	n.srv = remoting.NewServer(remoting.Options{
		Listeners:  []remoting.Listener{{Addr: o.Listen}},
		EventLoops: o.EventLoops,
		Logger:     o.Logger,
	}, []remoting.Route{
		{Code: protocol.CodeSendMessage, Handler: n.send, Borrow: true},
		{Code: protocol.CodePullMessage, Handler: n.pull, Borrow: true},
		{Code: protocol.CodeUpdateAndCreateTopic, Handler: n.createTopic, Borrow: true},
		{Code: protocol.CodeHeartBeat, Handler: n.heartbeat, Borrow: true},
		{Code: protocol.CodeSendMessageV2, Handler: n.send, Borrow: true},
		{Code: protocol.CodeSendBatchMessage, Handler: n.send, Borrow: true},
	})
	return n
}

// buildPullBody encodes the canned records once: what a store would hand a pull.
func (n *nullBroker) buildPullBody() {
	host := netip.MustParseAddrPort("127.0.0.1:10911")
	body := makeBody(n.opts.PullSize)
	uniq := newUniqIDGen([4]byte{127, 0, 0, 1}, 0xFFFE)
	now := time.Now().UnixMilli()
	for i := range nullMaxPullMsgs {
		var props []byte
		props = message.AppendProperty(props, message.PropertyTags, "TagA")
		props = message.AppendProperty(props, message.PropertyUniqClientMessageIDKeyIdx, string(uniq.next()))
		props = message.AppendProperty(props, message.PropertyCluster, "DefaultCluster")
		m := &message.Message{Topic: n.opts.Topic, Body: body, BornTimestamp: now, BornHost: host, StoreHost: host, Properties: props}
		n.pullBody = message.AppendRecord(n.pullBody, m, int64(i), int64(len(n.pullBody)), now)
		n.pullEnds[i] = len(n.pullBody)
	}
}

// Start listens; Addr is valid afterwards.
func (n *nullBroker) Start() error {
	if err := n.srv.Start(); err != nil {
		return err
	}
	ap, err := netip.ParseAddrPort(n.srv.Addrs()[0])
	if err != nil || ap.Addr().IsUnspecified() {
		ap = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), ap.Port())
	}
	n.storeHost.Store(&ap)
	return nil
}

// Addr returns the bound "ip:port" (with 127.0.0.1 for an unspecified listen address).
func (n *nullBroker) Addr() string {
	if p := n.storeHost.Load(); p != nil {
		return p.String()
	}
	return n.opts.Listen
}

// Shutdown stops serving.
func (n *nullBroker) Shutdown(ctx context.Context) error { return n.srv.Shutdown(ctx) }

func (n *nullBroker) host() netip.AddrPort {
	if p := n.storeHost.Load(); p != nil {
		return *p
	}
	return netip.AddrPort{}
}

func (n *nullBroker) send(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.SendMessageRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	count := 1
	if req.Code == int32(protocol.CodeSendBatchMessage) {
		count = 0
		if err := message.WalkBatch(req.Body, func(*message.BatchElement) bool { count++; return true }); err != nil {
			return nil, protocol.Errorf(protocol.ResMessageIllegal, "the message body of a batch is malformed: %v", err)
		}
	}
	qid := h.QueueID
	if qid < 0 { // Java: a random writable queue
		qid = rand.Int32N(max(h.DefaultTopicQueueNums, 1))
	}
	qoff := n.offsets[int(qid)%nullQueues].Add(int64(count)) - int64(count)
	// The physical offset advances by what a CommitLog record of this message would take.
	recSize := int64(91 + len(h.Topic) + len(h.Properties) + len(req.Body)/count)
	phys := n.phys.Add(recSize*int64(count)) - recSize*int64(count)
	host := n.host()
	var id []byte
	for i := range count {
		if i > 0 {
			id = append(id, ',')
		}
		id = message.AppendOffsetMsgID(id, host, phys+int64(i)*recSize)
	}
	n.sends.Add(int64(count))
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	rh := protocol.SendMessageResponseHeader{MsgID: string(id), QueueID: qid, QueueOffset: qoff,
		MsgRegion: n.opts.Region, TraceOn: n.traceOn}
	rh.Encode(&resp.Ext)
	return resp, nil
}

func (n *nullBroker) heartbeat(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	n.heartbeats.Add(1)
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

func (n *nullBroker) createTopic(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.CreateTopicRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

func (n *nullBroker) pull(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.PullMessageRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	cnt := min(max(int(h.MaxMsgNums), 1), nullMaxPullMsgs)
	// Java: the remark is the store's GetMessageStatus name.
	resp := protocol.NewResponse(req, protocol.ResSuccess, "FOUND")
	ph := protocol.PullMessageResponseHeader{NextBeginOffset: h.QueueOffset + int64(cnt), MaxOffset: h.QueueOffset + int64(cnt)}
	ph.Encode(&resp.Ext)
	resp.Body = n.pullBody[:n.pullEnds[cnt-1]]
	return resp, nil
}

// registrar keeps a broker registered with a NameServer: REGISTER_BROKER now and every
// 30 s (Java: BrokerController's registerBrokerAll schedule), on one connection that is
// redialled when it fails. Closing the connection unregisters the broker.
type registrar struct {
	ns      string
	reg     brokerRegistration
	log     zerolog.Logger
	stop    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	nc      net.Conn
	initial chan error
}

func startRegistrar(ns string, reg brokerRegistration, log zerolog.Logger) *registrar {
	r := &registrar{ns: ns, reg: reg, log: log, stop: make(chan struct{}), initial: make(chan error, 1)}
	r.wg.Add(1)
	go r.loop()
	return r
}

func (r *registrar) once() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.nc == nil {
		nc, err := dial(r.ns, 3*time.Second)
		if err != nil {
			return err
		}
		r.nc = nc
	}
	r.reg.version.Counter++
	if err := registerBroker(r.nc, &r.reg, 6*time.Second); err != nil {
		r.nc.Close()
		r.nc = nil
		return err
	}
	return nil
}

func (r *registrar) loop() {
	defer r.wg.Done()
	err := r.once()
	r.initial <- err
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	for {
		if err != nil {
			r.log.Warn().Err(err).Str("namesrv", r.ns).Msg("register broker failed")
		}
		select {
		case <-r.stop:
			return
		case <-t.C:
			err = r.once()
		}
	}
}

// close stops registering and closes the connection, which unregisters the broker.
func (r *registrar) close() {
	close(r.stop)
	r.wg.Wait()
	r.mu.Lock()
	if r.nc != nil {
		r.nc.Close()
	}
	r.mu.Unlock()
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
