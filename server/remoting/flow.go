package remoting

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"
)

// Limits bound what one client, or all of them, can make the server hold.
//
// A client that writes requests and never reads the answers would otherwise make the
// server read and answer without end, keeping every answer in memory. Java has Netty's
// write-buffer water marks (writeBufferHighWaterMark / writeBufferLowWaterMark); its
// server stopped reading such a client after ~119 MB (broker) / ~36 MB (NameServer).
//
// gnet v2.9.7 cannot pause a connection's read events: the loop reads every readable
// socket (level-triggered epoll, the default) and appends whatever OnTraffic leaves
// unconsumed to the connection's inbound buffer, which grows without bound, and Conn has
// no method to drop the read interest (no detach either). So pausing the decoding alone
// would move the memory from the answers to the inbound buffer. The server therefore:
//
//   - stops decoding a connection's input once its unsent answers reach WriteHighWater
//     (answers handed to gnet not yet written to the socket), and resumes when they fall
//     to WriteLowWater — the loop is woken every pauseTick to check, since gnet does not
//     tell when its outbound buffer drains;
//   - counts the bytes that keep arriving while paused, and closes the connection, with
//     a logged reason, when they pass MaxPausedInbound, or when all paused connections
//     together hold more than MaxBuffered. A client that does not read is disconnected
//     where Java's TCP backpressure would leave it waiting: the difference is in
//     conformance/UNSUPPORTED.md.
//
// TLS connections are served off the loop (tls.go) and get real backpressure: their
// reader stops reading the socket while the unsent answers are above WriteHighWater.
type Limits struct {
	// MaxConnections refuses connections beyond this many open ones (0: 65536).
	MaxConnections int
	// WriteHighWater pauses input when a connection's unsent answers reach it (0: 4 MiB).
	WriteHighWater int
	// WriteLowWater resumes input when they fall to it (0: WriteHighWater/4).
	WriteLowWater int
	// MaxPausedInbound closes a paused connection that has sent this much more (0: 16 MiB).
	MaxPausedInbound int
	// MaxBuffered closes a paused connection when all paused ones hold this much (0: 512 MiB).
	MaxBuffered int64
}

// Default limits. Java sets no connection limit (the process's descriptor limit is the
// bound, commonly 65536).
const (
	DefaultMaxConnections   = 65536
	DefaultWriteHighWater   = 4 << 20
	DefaultMaxPausedInbound = 16 << 20
	DefaultMaxBuffered      = 512 << 20
	pauseTick               = 5 * time.Millisecond
)

func (l *Limits) withDefaults() {
	if l.MaxConnections <= 0 {
		l.MaxConnections = DefaultMaxConnections
	}
	if l.WriteHighWater <= 0 {
		l.WriteHighWater = DefaultWriteHighWater
	}
	if l.WriteLowWater <= 0 || l.WriteLowWater >= l.WriteHighWater {
		l.WriteLowWater = l.WriteHighWater / 4
	}
	if l.MaxPausedInbound <= 0 {
		l.MaxPausedInbound = DefaultMaxPausedInbound
	}
	if l.MaxBuffered <= 0 {
		l.MaxBuffered = DefaultMaxBuffered
	}
}

// flow is the server's side of Limits.
type flow struct {
	open   atomic.Int64 // open connections, refused ones included until closed
	held   atomic.Int64 // inbound bytes held by paused connections
	mu     sync.Mutex
	paused map[*Conn]struct{}
	waking bool // a wakePaused goroutine runs

	refusedLog atomic.Int64 // unix nanos of the last "connection refused" line
	refused    atomic.Int64 // refused since that line
}

// Stats are the server's own counters of memory held for clients.
type Stats struct {
	Conns        int   // open connections
	Paused       int   // connections whose input waits for their answers to drain
	Unsent       int64 // answer bytes not yet written to the sockets
	HeldInbound  int64 // request bytes received by paused connections, not decoded
	RefusedConns int64 // connections refused by MaxConnections since the last log line
}

// Stats returns the current counters. Unsent is as last seen by each connection's loop.
func (s *Server) Stats() Stats {
	st := Stats{HeldInbound: s.flow.held.Load(), RefusedConns: s.flow.refused.Load()}
	s.connsMu.Lock()
	st.Conns = len(s.conns)
	for _, c := range s.conns {
		st.Unsent += c.unsent.Load() + c.outbound.Load()
	}
	s.connsMu.Unlock()
	s.flow.mu.Lock()
	st.Paused = len(s.flow.paused)
	s.flow.mu.Unlock()
	return st
}

// admit counts a new connection; false means it is over MaxConnections and must close.
func (s *Server) admit(remote string) bool {
	if s.flow.open.Add(1) <= int64(s.lim.MaxConnections) {
		return true
	}
	n := s.flow.refused.Add(1)
	now := time.Now().UnixNano()
	if last := s.flow.refusedLog.Load(); now-last >= int64(time.Second) && s.flow.refusedLog.CompareAndSwap(last, now) {
		s.flow.refused.Store(0)
		s.log.Warn().Str("remote", remote).Int("maxConnections", s.lim.MaxConnections).Int64("refused", n).
			Msg("connection refused: the server has maxConnections open connections")
	}
	return false
}

// unsentOf is what c's peer has not read yet, seen from c's loop.
func unsentOf(c *Conn, gc gnet.Conn, pending int) int64 {
	out := int64(gc.OutboundBuffered())
	c.outbound.Store(out)
	return c.unsent.Load() + out + int64(pending)
}

// pause stops decoding c's input (on c's loop).
func (s *Server) pause(c *Conn, unsent int64) {
	c.paused = true
	s.flow.mu.Lock()
	if s.flow.paused == nil {
		s.flow.paused = make(map[*Conn]struct{})
	}
	s.flow.paused[c] = struct{}{}
	if !s.flow.waking {
		s.flow.waking = true
		go s.wakePaused()
	}
	s.flow.mu.Unlock()
	s.log.Warn().Str("remote", c.remote).Uint64("conn", c.id).Int64("unsent", unsent).Int("highWater", s.lim.WriteHighWater).
		Msg("pausing input: the client does not read its answers")
}

// resume ends a pause (on c's loop, or from OnClose).
func (s *Server) resume(c *Conn, closing bool) {
	if !c.paused {
		return
	}
	c.paused = false
	s.flow.held.Add(-c.heldIn)
	c.heldIn = 0
	s.flow.mu.Lock()
	delete(s.flow.paused, c)
	s.flow.mu.Unlock()
	if !closing {
		s.log.Info().Str("remote", c.remote).Uint64("conn", c.id).Msg("resuming input: the client read its answers")
	}
}

// holdPaused accounts the input a paused connection keeps receiving; false means c went
// over a limit and must close (logged here).
func (s *Server) holdPaused(c *Conn, gc gnet.Conn) bool {
	in := int64(gc.InboundBuffered())
	total := s.flow.held.Add(in - c.heldIn)
	c.heldIn = in
	switch {
	case in > int64(s.lim.MaxPausedInbound):
		s.log.Warn().Str("remote", c.remote).Uint64("conn", c.id).Int64("inbound", in).Int("maxPausedInbound", s.lim.MaxPausedInbound).
			Msg("closing connection: it keeps sending requests without reading the answers")
		return false
	case total > s.lim.MaxBuffered:
		s.log.Warn().Str("remote", c.remote).Uint64("conn", c.id).Int64("held", total).Int64("maxBuffered", s.lim.MaxBuffered).
			Msg("closing connection: clients that do not read their answers hold maxBuffered bytes")
		return false
	}
	return true
}

// wakePaused makes each paused connection's loop check, every pauseTick, whether its
// answers drained (gnet does not report it); it returns when no connection is paused.
func (s *Server) wakePaused() {
	t := time.NewTicker(pauseTick)
	defer t.Stop()
	var ps []*Conn
	for range t.C {
		s.flow.mu.Lock()
		if len(s.flow.paused) == 0 {
			s.flow.waking = false
			s.flow.mu.Unlock()
			return
		}
		ps = ps[:0]
		for c := range s.flow.paused {
			ps = append(ps, c)
		}
		s.flow.mu.Unlock()
		for _, c := range ps {
			_ = c.gc.Wake(nil)
		}
	}
}
