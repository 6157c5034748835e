package ha

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/store"
)

// Master serves slaves on Config.ListenAddr: any number of raw TCP connections, each
// with a reader and a writer goroutine (Java: HAService's AcceptSocketService and
// HAConnection). It reads the store and never writes it.
type Master struct {
	st  *store.Store
	cfg Config
	log zerolog.Logger

	// mu guards ln, conns and closed. It is a leaf lock: nothing else is taken under it.
	mu     sync.Mutex
	ln     net.Listener
	conns  map[*conn]struct{}
	closed bool
	// live is the connection set as of the last change, read without a lock by
	// WakeTransfer and Slaves.
	live  atomic.Pointer[[]*conn]
	count atomic.Int32 // Java: HAService.connectionCount

	acked atomic.Int64 // Java: push2SlaveMaxOffset; only ever raised
	// ackMu guards ackCh and ackTaken; a leaf lock. The channel is replaced only when
	// someone took it, so acks cost no allocation while nobody waits.
	ackMu    sync.Mutex
	ackCh    chan struct{}
	ackTaken bool
	ackHook  atomic.Pointer[func()] // SetAckHook

	wg   sync.WaitGroup
	idle time.Duration // idleWait; tests lengthen it to see WakeTransfer work
}

// SlaveInfo describes one HA connection (for metrics and admin).
type SlaveInfo struct {
	Remote      string    // the slave's address
	AckedOffset int64     // its newest report, -1 before the first
	Since       time.Time // when it connected
}

// NewMaster returns a master for st; Start binds it.
func NewMaster(st *store.Store, cfg Config) *Master {
	cfg = cfg.withDefaults()
	m := &Master{st: st, cfg: cfg, log: cfg.Log, conns: make(map[*conn]struct{}), ackCh: make(chan struct{}), idle: idleWait}
	m.live.Store(&[]*conn{})
	return m
}

// Start binds ListenAddr (nothing when it is "") and accepts slaves until Close. A
// Master is started once; after Close, make a new one (its AckedOffset starts at 0, as
// Java's after a restart).
func (m *Master) Start() error {
	if m.cfg.ListenAddr == "" {
		return nil
	}
	// Go listeners set SO_REUSEADDR, as Java's HA accept socket does.
	ln, err := net.Listen("tcp", m.cfg.ListenAddr)
	if err != nil {
		return err
	}
	m.mu.Lock()
	if m.closed || m.ln != nil {
		m.mu.Unlock()
		_ = ln.Close()
		if m.closed {
			return net.ErrClosed
		}
		return errors.New("ha: master already started")
	}
	m.ln = ln
	m.mu.Unlock()
	m.log.Info().Str("addr", ln.Addr().String()).Msg("ha: master listening")
	m.wg.Add(1)
	go m.acceptLoop(ln)
	return nil
}

// Addr is the bound address, "" before Start or without a listen address.
func (m *Master) Addr() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ln == nil {
		return ""
	}
	return m.ln.Addr().String()
}

func (m *Master) acceptLoop(ln net.Listener) {
	defer m.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// EMFILE and the like: log, breathe, go on (Java logs and goes on).
			m.log.Warn().Err(err).Msg("ha: accept")
			time.Sleep(100 * time.Millisecond)
			continue
		}
		m.serve(nc)
	}
}

// serve registers a connection and starts its reader and writer.
func (m *Master) serve(nc net.Conn) {
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true) // Java: TCP_NODELAY on, SO_LINGER off
	}
	c := newConn(m, nc)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		_ = nc.Close()
		return
	}
	m.conns[c] = struct{}{}
	m.publishLocked()
	m.count.Add(1)
	m.mu.Unlock()
	m.log.Info().Str("remote", c.remote).Msg("ha: slave connected")
	m.wg.Add(2)
	go c.readLoop()
	go c.writeLoop()
}

// remove forgets a connection that shut down.
func (m *Master) remove(c *conn) {
	m.mu.Lock()
	if _, ok := m.conns[c]; ok {
		delete(m.conns, c)
		m.publishLocked()
		m.count.Add(-1)
	}
	m.mu.Unlock()
}

func (m *Master) publishLocked() {
	l := make([]*conn, 0, len(m.conns))
	for c := range m.conns {
		l = append(l, c)
	}
	m.live.Store(&l)
}

// Close stops accepting, closes every connection and waits for their goroutines.
func (m *Master) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	ln := m.ln
	conns := make([]*conn, 0, len(m.conns))
	for c := range m.conns {
		conns = append(conns, c)
	}
	m.mu.Unlock()
	var err error
	if ln != nil {
		err = ln.Close()
	}
	for _, c := range conns {
		c.shut(nil) // no reason logged: we are closing
	}
	m.wg.Wait()
	return err
}

// SlaveOK reports whether a SYNC_MASTER put ending at masterPutWhere may wait for a
// slave: some connection is up (even before its first report) and the acked offset is
// less than SlaveFallbehindMax behind (Java: HAService#isSlaveOK).
func (m *Master) SlaveOK(masterPutWhere int64) bool {
	return m.count.Load() > 0 && masterPutWhere-m.acked.Load() < m.cfg.SlaveFallbehindMax
}

// AckedOffset is the highest offset any slave has reported since this Master was
// created (Java: push2SlaveMaxOffset: 0 after a restart, never lower).
func (m *Master) AckedOffset() int64 { return m.acked.Load() }

// AckNotify returns a channel closed when AckedOffset next advances. Take it before
// reading AckedOffset, so that no advance falls between the two (the contract of
// store.(*Store).FlushNotify).
func (m *Master) AckNotify() <-chan struct{} {
	m.ackMu.Lock()
	defer m.ackMu.Unlock()
	m.ackTaken = true
	return m.ackCh
}

// raiseAck records a slave's report (Java: HAService#notifyTransferSome).
func (m *Master) raiseAck(v int64) {
	for {
		cur := m.acked.Load()
		if v <= cur {
			return
		}
		if m.acked.CompareAndSwap(cur, v) {
			break
		}
	}
	m.ackMu.Lock()
	if m.ackTaken {
		close(m.ackCh)
		m.ackCh = make(chan struct{})
		m.ackTaken = false
	}
	m.ackMu.Unlock()
	if f := m.ackHook.Load(); f != nil {
		(*f)()
	}
}

// SetAckHook makes f run after each advance of AckedOffset, on the reader goroutine of
// the connection whose report advanced it, with no lock held (nil: none). The broker
// answers SYNC_MASTER sends there, so an ack reaches its senders without waking another
// goroutine. f must not block: the connection reads no report while it runs.
func (m *Master) SetAckHook(f func()) {
	if f == nil {
		m.ackHook.Store(nil)
		return
	}
	m.ackHook.Store(&f)
}

// WakeTransfer wakes every idle writer now instead of at its next 100 ms poll: a
// SYNC_MASTER put calls it after appending (Java: WaitNotifyObject#wakeupAll). It never
// blocks and does not allocate.
func (m *Master) WakeTransfer() {
	for _, c := range *m.live.Load() {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// Slaves describes the current connections.
func (m *Master) Slaves() []SlaveInfo {
	l := *m.live.Load()
	out := make([]SlaveInfo, 0, len(l))
	for _, c := range l {
		out = append(out, SlaveInfo{Remote: c.remote, AckedOffset: c.acked.Load(), Since: c.since})
	}
	return out
}
