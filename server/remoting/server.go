package remoting

import (
	"context"
	"errors"
	"fmt"
	gerrors "github.com/panjf2000/gnet/v2/pkg/errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// Listener is one address the server accepts on. Exclude lists codes this listener does
// not serve (the broker's VIP port has every processor but PULL_MESSAGE).
type Listener struct {
	Addr    string // "host:port"; port 0 picks a free one (see Server.Addrs)
	Exclude []protocol.RequestCode
}

// Options configure a Server.
type Options struct {
	Listeners    []Listener
	MaxFrameSize int           // default codec.DefaultMaxFrameSize
	IdleTimeout  time.Duration // close connections idle this long; default 120 s (serverChannelMaxIdleTimeSeconds)
	EventLoops   int           // default: one per CPU
	Logger       zerolog.Logger

	// Unknown serves codes with no route; nil answers REQUEST_CODE_NOT_SUPPORTED.
	Unknown Handler
	// OnOpen and OnClose observe connections (the broker drops a client's consumers and
	// producers when its channel closes; the namesrv drops its brokers).
	OnOpen  func(*Conn)
	OnClose func(*Conn)
	// Observe sees every inbound request before dispatch, on the event loop (stats, debug logs).
	Observe func(*Conn, *protocol.Command)

	// Limits bound connections and the bytes held for clients that do not read (flow.go).
	Limits Limits
	// TLS is tls.server.mode and the server's certificate (tls.go); the zero value is
	// disabled.
	TLS TLS
}

// Server is a RocketMQ remoting server on gnet.
type Server struct {
	gnet.BuiltinEventEngine

	opts  Options
	lim   Limits
	flow  flow
	tab   *table
	log   zerolog.Logger
	eng   gnet.Engine
	boot  chan error
	done  chan error
	addrs []string
	pools []*Pool

	connSeq  atomic.Uint64
	connsMu  sync.Mutex
	conns    map[uint64]*Conn
	inflight sync.WaitGroup
	tlsConns sync.WaitGroup // serveTLS goroutines
	stopping atomic.Bool

	// dupsMu guards dups: duplicates of the listening sockets, taken in OnBoot and closed
	// once the engine has stopped. stopAccepting shuts the sockets down through them, so it
	// never reads gnet's listener state while gnet closes it.
	dupsMu sync.Mutex
	dups   []int
}

// NewServer builds a server with one dispatch table. routes is the table literal; each
// code may appear once.
func NewServer(opts Options, routes []Route) *Server {
	if opts.MaxFrameSize <= 0 {
		opts.MaxFrameSize = codec.DefaultMaxFrameSize
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 120 * time.Second
	}
	s := &Server{opts: opts, lim: opts.Limits, tab: newTable(routes, opts.Unknown), log: opts.Logger, conns: make(map[uint64]*Conn)}
	s.lim.withDefaults()
	seen := map[*Pool]bool{}
	for _, r := range routes {
		if r.Pool != nil && !seen[r.Pool] {
			seen[r.Pool] = true
			s.pools = append(s.pools, r.Pool)
		}
	}
	return s
}

// Start listens and serves in the background; it returns once the listeners accept.
func (s *Server) Start() error {
	if len(s.opts.Listeners) == 0 {
		return errors.New("remoting: no listeners")
	}
	addrs := make([]string, len(s.opts.Listeners))
	for i, l := range s.opts.Listeners {
		// gnet finds listeners by their address text, so port 0 is resolved here.
		a, err := resolvePort(l.Addr)
		if err != nil {
			return err
		}
		s.opts.Listeners[i].Addr = a
		addrs[i] = "tcp://" + a
	}
	opts := []gnet.Option{
		gnet.WithMulticore(true),
		gnet.WithTicker(true),
		gnet.WithTCPNoDelay(gnet.TCPNoDelay),
		gnet.WithReuseAddr(true),
		gnet.WithReadBufferCap(64 << 10),
		gnet.WithLogger(gnetLogger{s.log, &s.stopping}),
		gnet.WithTCPKeepAlive(0),
	}
	if s.opts.EventLoops > 0 {
		opts = append(opts, gnet.WithNumEventLoop(s.opts.EventLoops))
	}
	s.boot = make(chan error, 1)
	s.done = make(chan error, 1)
	go func() {
		err := gnet.Rotate(s, addrs, opts...)
		s.closeDups()
		select {
		case s.boot <- err:
		default:
		}
		s.done <- err
	}()
	if err := <-s.boot; err != nil {
		return fmt.Errorf("remoting: listen %v: %w", addrs, err)
	}
	if s.opts.TLS.Err != nil {
		s.log.Error().Err(s.opts.TLS.Err).Str("tls.server.mode", s.opts.TLS.Mode.String()).Msg("TLS configuration")
	}
	s.log.Info().Strs("listen", s.addrs).Str("tls.server.mode", s.opts.TLS.Mode.String()).Bool("tls", s.opts.TLS.Config != nil).
		Int("maxConnections", s.lim.MaxConnections).Int("writeHighWater", s.lim.WriteHighWater).Msg("remoting listening")
	return nil
}

// resolvePort replaces port 0 with a port that is free now.
func resolvePort(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("remoting: listen address %q: %w", addr, err)
	}
	if port != "0" {
		return addr, nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", fmt.Errorf("remoting: find a free port on %q: %w", host, err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Addrs returns the bound "ip:port" of each listener, in Options order.
func (s *Server) Addrs() []string { return s.addrs }

// OnBoot resolves the listeners' real ports (for port 0), keeps a duplicate of each
// listening socket for stopAccepting and releases Start. It runs on the goroutine that
// opened the listeners, before any event loop starts.
func (s *Server) OnBoot(eng gnet.Engine) gnet.Action {
	s.eng = eng
	s.addrs = make([]string, len(s.opts.Listeners))
	s.dupsMu.Lock()
	for i, l := range s.opts.Listeners {
		s.addrs[i] = l.Addr
		fd, err := eng.DupListener("tcp", l.Addr)
		if err != nil {
			continue
		}
		s.dups = append(s.dups, fd)
		if sa, err := syscall.Getsockname(fd); err == nil {
			switch a := sa.(type) {
			case *syscall.SockaddrInet4:
				s.addrs[i] = net.JoinHostPort(net.IP(a.Addr[:]).String(), fmt.Sprint(a.Port))
			case *syscall.SockaddrInet6:
				s.addrs[i] = net.JoinHostPort(net.IP(a.Addr[:]).String(), fmt.Sprint(a.Port))
			}
		}
	}
	s.dupsMu.Unlock()
	s.boot <- nil
	return gnet.None
}

// stopAccepting shuts the listening sockets down before the engine stops. gnet closes its
// listeners only after every event loop has exited, and its acceptor goes on accepting
// until then: a client that redialled at that moment (clients redial as soon as their
// connection closes) got a connection handed to an exited loop, never served nor closed,
// and waited on it for good — the Go push consumer across a broker restart, 1 run in 4.
// shutdown(2) on a duplicate acts on the socket itself: connection attempts are refused
// from here on, so the client redials until the next server listens. (The acceptor may
// then log one failed accept; the engine stops either way.)
//
// The duplicates are the ones OnBoot took: duplicating here (Engine.DupListener) would read
// gnet's listener fd while the engine, stopping because of the failed accept, closes it —
// a data race, and after the close a dup of fd -1 or of a reused descriptor.
func (s *Server) stopAccepting() {
	s.dupsMu.Lock()
	defer s.dupsMu.Unlock()
	for _, fd := range s.dups {
		if err := syscall.Shutdown(fd, syscall.SHUT_RD); err != nil {
			s.log.Debug().Err(err).Int("fd", fd).Msg("shutdown of the listening socket")
		}
	}
}

// closeDups closes OnBoot's duplicates once the engine has stopped, so the listening
// sockets are released with gnet's own descriptors.
func (s *Server) closeDups() {
	s.dupsMu.Lock()
	defer s.dupsMu.Unlock()
	for _, fd := range s.dups {
		_ = syscall.Close(fd)
	}
	s.dups = nil
}

// OnOpen registers the connection.
func (s *Server) OnOpen(gc gnet.Conn) ([]byte, gnet.Action) {
	if !s.admit(addrString(gc.RemoteAddr())) {
		return nil, gnet.Close
	}
	c := &Conn{gc: gc, srv: s, id: s.connSeq.Add(1), remote: addrString(gc.RemoteAddr()), local: addrString(gc.LocalAddr())}
	for i, l := range s.opts.Listeners {
		if len(l.Exclude) > 0 && sameListener(c.local, s.addrs[i]) {
			c.excluded = make(map[protocol.RequestCode]bool, len(l.Exclude))
			for _, code := range l.Exclude {
				c.excluded[code] = true
			}
		}
	}
	c.lastRead.Store(time.Now().UnixNano())
	gc.SetContext(c)
	s.connsMu.Lock()
	s.conns[c.id] = c
	s.connsMu.Unlock()
	s.log.Info().Str("remote", c.remote).Str("local", c.local).Uint64("conn", c.id).Msg("connection opened")
	if s.opts.OnOpen != nil {
		s.opts.OnOpen(c)
	}
	return nil, gnet.None
}

func sameListener(local, listen string) bool {
	_, lp, err1 := net.SplitHostPort(local)
	_, p, err2 := net.SplitHostPort(listen)
	return err1 == nil && err2 == nil && lp == p
}

// OnClose forgets the connection and fails its pending invocations.
func (s *Server) OnClose(gc gnet.Conn, err error) gnet.Action {
	c, _ := gc.Context().(*Conn)
	if c != nil && c.detached {
		return gnet.None // handed to the TLS path, which forgets it when it closes (tls.go)
	}
	s.flow.open.Add(-1)
	if c == nil {
		return gnet.None // refused by MaxConnections
	}
	s.resume(c, true)
	s.connClosed(c, err)
	return gnet.None
}

// connClosed forgets a closed connection: gnet's, or a TLS one when its socket closes.
func (s *Server) connClosed(c *Conn, err error) {
	c.closed.Store(true)
	s.connsMu.Lock()
	delete(s.conns, c.id)
	s.connsMu.Unlock()
	c.failPending()
	ev := s.log.Info().Str("remote", c.remote).Uint64("conn", c.id)
	if err != nil {
		ev = ev.Err(err)
	}
	ev.Msg("connection closed")
	if s.opts.OnClose != nil {
		s.opts.OnClose(c)
	}
}

// OnTraffic decodes every whole frame, runs inline handlers and writes their responses
// in one write; pooled handlers are queued.
func (s *Server) OnTraffic(gc gnet.Conn) gnet.Action {
	c, _ := gc.Context().(*Conn)
	if c == nil {
		return gnet.Close
	}
	if !c.decided {
		if act, done := s.firstByte(c, gc); done {
			return act
		}
	}
	if c.paused {
		if unsentOf(c, gc, 0) > int64(s.lim.WriteLowWater) {
			if !s.holdPaused(c, gc) {
				return gnet.Close
			}
			return gnet.None
		}
		s.resume(c, false)
	}
	if gc.InboundBuffered() == 0 {
		return gnet.None // a wake-up with nothing to read
	}
	c.lastRead.Store(time.Now().UnixNano())
	var out *[]byte
	queued := unsentOf(c, gc, 0) // gnet's outbound does not change before the flush below
	for {
		pending := 0
		if out != nil {
			pending = len(*out)
		}
		if u := queued + int64(pending); u >= int64(s.lim.WriteHighWater) {
			s.flush(gc, out)
			s.pause(c, unsentOf(c, gc, 0))
			if !s.holdPaused(c, gc) {
				return gnet.Close
			}
			return gnet.None
		}
		cmd, err := codec.ReadCommandInPlace(gc, s.opts.MaxFrameSize)
		if errors.Is(err, codec.ErrIncomplete) {
			break
		}
		if err != nil {
			s.log.Warn().Err(err).Str("remote", c.remote).Uint64("conn", c.id).Msg("closing connection: bad frame")
			s.flush(gc, out)
			return gnet.Close
		}
		if cmd.IsResponse() {
			if !c.complete(cmd.Clone()) {
				s.log.Debug().Int32("opaque", cmd.Opaque).Str("remote", c.remote).Msg("response to no pending request")
			}
			protocol.ReleaseCommand(cmd)
			continue
		}
		if resp := s.dispatch(c, cmd); resp != nil {
			if out == nil {
				out = getBuf()
				*out = (*out)[:0]
			}
			*out = codec.AppendFrame(*out, resp)
			protocol.ReleaseCommand(resp) // an inline answer is not kept by its handler
		}
	}
	s.flush(gc, out)
	return gnet.None
}

func (s *Server) flush(gc gnet.Conn, out *[]byte) {
	if out == nil {
		return
	}
	if len(*out) > 0 {
		_, _ = gc.Write(*out) // Write copies what the socket does not take
	}
	putBuf(out)
}

// dispatch routes one request; it returns the response to write now, if any.
func (s *Server) dispatch(c *Conn, req *protocol.Command) *protocol.Command {
	if s.opts.Observe != nil {
		s.opts.Observe(c, req)
	}
	if e := s.log.Debug(); e.Enabled() {
		e.Int32("code", req.Code).Str("name", req.RequestCode().String()).Int32("opaque", req.Opaque).
			Str("remote", c.remote).Msg("request")
	}
	oneway := req.IsOneway()
	r := s.tab.routes[req.RequestCode()]
	if r == nil || r.Pool != nil || !r.Borrow {
		own := req.Clone() // the handler may keep it past this read
		protocol.ReleaseCommand(req)
		req = own
	} else {
		defer protocol.ReleaseCommand(req) // a Borrow handler keeps nothing of it
	}
	ctx := newContext(c, req, &s.log)
	if r == nil || c.excluded[req.RequestCode()] {
		h := s.tab.unknown
		if h == nil || c.excluded[req.RequestCode()] {
			s.log.Warn().Str("remote", c.remote).Int32("code", req.Code).Msg("request code not supported")
			if oneway {
				return nil
			}
			return errorResponse(req, protocol.NotSupported(req.Code), &s.log)
		}
		r = &Route{Handler: h}
	}
	if r.Pool == nil {
		resp := run(r.Handler, ctx, req)
		if oneway {
			return nil
		}
		return resp
	}
	s.inflight.Add(1)
	ok := r.Pool.Submit(func() {
		defer s.inflight.Done()
		if resp := run(r.Handler, ctx, req); resp != nil && !oneway {
			_ = c.Send(resp)
		}
	}, func(remark string) {
		defer s.inflight.Done()
		if !oneway {
			_ = c.Send(errorResponse(req, &protocol.Error{Code: protocol.ResSystemBusy, Remark: remark}, &s.log))
		}
	})
	if !ok {
		s.inflight.Done()
		s.log.Warn().Str("pool", r.Pool.Name).Int32("code", req.Code).Str("remote", c.remote).Msg("pool full, request refused")
		if oneway {
			return nil
		}
		return errorResponse(req, &protocol.Error{Code: protocol.ResSystemBusy, Remark: protocol.RemarkOverload}, &s.log)
	}
	return nil
}

// OnTick closes idle connections (Java: NettyServerConfig.serverChannelMaxIdleTimeSeconds).
func (s *Server) OnTick() (time.Duration, gnet.Action) {
	deadline := time.Now().Add(-s.opts.IdleTimeout).UnixNano()
	s.connsMu.Lock()
	var idle []*Conn
	for _, c := range s.conns {
		if c.lastRead.Load() < deadline {
			idle = append(idle, c)
		}
	}
	s.connsMu.Unlock()
	for _, c := range idle {
		s.log.Info().Str("remote", c.remote).Dur("idle", s.opts.IdleTimeout).Msg("closing idle connection")
		_ = c.Close()
	}
	tick := s.opts.IdleTimeout / 10
	if tick > 10*time.Second {
		tick = 10 * time.Second
	}
	if tick < 10*time.Millisecond {
		tick = 10 * time.Millisecond
	}
	return tick, gnet.None
}

// ConnCount returns the number of open connections.
func (s *Server) ConnCount() int {
	s.connsMu.Lock()
	defer s.connsMu.Unlock()
	return len(s.conns)
}

// Conns returns a snapshot of the open connections.
func (s *Server) Conns() []*Conn {
	s.connsMu.Lock()
	defer s.connsMu.Unlock()
	out := make([]*Conn, 0, len(s.conns))
	for _, c := range s.conns {
		out = append(out, c)
	}
	return out
}

// Shutdown stops serving: queued pooled requests are finished and answered, then the
// listeners and connections close. It returns when the engine has stopped or ctx ends.
func (s *Server) Shutdown(ctx context.Context) error {
	if !s.stopping.CompareAndSwap(false, true) {
		return nil
	}
	drained := make(chan struct{})
	go func() {
		for _, p := range s.pools {
			p.Stop()
		}
		s.inflight.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-ctx.Done():
	}
	s.stopAccepting()
	for _, c := range s.Conns() {
		if c.tls.Load() != nil {
			_ = c.Close()
		}
	}
	s.tlsConns.Wait()
	if err := s.eng.Stop(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, gerrors.ErrEngineInShutdown) {
		return fmt.Errorf("remoting: stop: %w", err)
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// gnetLogger routes gnet's own logs into zerolog. Once the server is stopping, gnet's
// errors are the failed accept on the listening socket that stopAccepting shut down and
// the engine stopping because of it: expected, so logged at debug level.
type gnetLogger struct {
	l        zerolog.Logger
	stopping *atomic.Bool
}

func (g gnetLogger) Debugf(f string, a ...any) { g.l.Debug().Msgf(f, a...) }
func (g gnetLogger) Infof(f string, a ...any)  { g.l.Debug().Msgf(f, a...) }
func (g gnetLogger) Warnf(f string, a ...any)  { g.l.Warn().Msgf(f, a...) }
func (g gnetLogger) Errorf(f string, a ...any) {
	if g.stopping.Load() {
		g.l.Debug().Msgf(f, a...)
		return
	}
	g.l.Error().Msgf(f, a...)
}
func (g gnetLogger) Fatalf(f string, a ...any) { g.l.Fatal().Msgf(f, a...) }
