package remoting

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// ClientOptions configure an outbound Client.
type ClientOptions struct {
	DialTimeout  time.Duration // default 3 s (Java connectTimeoutMillis)
	MaxFrameSize int
	Logger       zerolog.Logger
	// OnRequest serves requests the peer sends us (a broker calling a client); nil ignores them.
	OnRequest func(conn *ClientConn, req *protocol.Command) *protocol.Command
	// TLS, when set, dials every connection with it (Java: NettyClientConfig.useTLS, the
	// broker's default being tls.server.mode=enforcing).
	TLS *tls.Config
}

// Client sends requests to remote servers, one connection per address (Java:
// NettyRemotingClient). It uses the standard library: its traffic is light (broker→namesrv
// registration, tools, tests), and it must work without an event loop.
type Client struct {
	opts  ClientOptions
	mu    sync.Mutex
	conns map[string]*ClientConn
	done  bool
}

// NewClient returns a client; connections are dialled on first use.
func NewClient(opts ClientOptions) *Client {
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 3 * time.Second
	}
	if opts.MaxFrameSize <= 0 {
		opts.MaxFrameSize = codec.DefaultMaxFrameSize
	}
	return &Client{opts: opts, conns: make(map[string]*ClientConn)}
}

// ClientConn is one outbound connection.
type ClientConn struct {
	cl      *Client
	addr    string
	nc      net.Conn
	wmu     sync.Mutex
	pmu     sync.Mutex
	pending map[int32]func(*protocol.Command, error)
	closed  chan struct{}
	err     error
}

// Conn returns the connection to addr, dialling it if needed.
func (c *Client) Conn(addr string) (*ClientConn, error) {
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	if cc := c.conns[addr]; cc != nil {
		select {
		case <-cc.closed:
		default:
			c.mu.Unlock()
			return cc, nil
		}
	}
	c.mu.Unlock()
	d := &net.Dialer{Timeout: c.opts.DialTimeout}
	var nc net.Conn
	var err error
	if c.opts.TLS != nil {
		nc, err = tls.DialWithDialer(d, "tcp", addr, c.opts.TLS)
	} else {
		nc, err = d.Dial("tcp", addr)
	}
	if err != nil {
		return nil, fmt.Errorf("remoting: connect to %s: %w", addr, err)
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	cc := &ClientConn{cl: c, addr: addr, nc: nc, pending: make(map[int32]func(*protocol.Command, error)), closed: make(chan struct{})}
	c.mu.Lock()
	if old := c.conns[addr]; old != nil && !old.isClosed() {
		c.mu.Unlock()
		nc.Close()
		return old, nil
	}
	c.conns[addr] = cc
	c.mu.Unlock()
	go cc.readLoop()
	return cc, nil
}

// Invoke sends req to addr and waits for the response.
func (c *Client) Invoke(ctx context.Context, addr string, req *protocol.Command, timeout time.Duration) (*protocol.Command, error) {
	cc, err := c.Conn(addr)
	if err != nil {
		return nil, err
	}
	return cc.Invoke(ctx, req, timeout)
}

// InvokeAsync sends req to addr and calls cb with the response or an error, once.
func (c *Client) InvokeAsync(addr string, req *protocol.Command, timeout time.Duration, cb func(*protocol.Command, error)) {
	cc, err := c.Conn(addr)
	if err != nil {
		cb(nil, err)
		return
	}
	cc.InvokeAsync(req, timeout, cb)
}

// InvokeOneway sends req to addr with the oneway flag.
func (c *Client) InvokeOneway(addr string, req *protocol.Command) error {
	cc, err := c.Conn(addr)
	if err != nil {
		return err
	}
	return cc.InvokeOneway(req)
}

// CloseConn drops the connection to addr, if any.
func (c *Client) CloseConn(addr string) {
	c.mu.Lock()
	cc := c.conns[addr]
	delete(c.conns, addr)
	c.mu.Unlock()
	if cc != nil {
		cc.Close()
	}
}

// Close closes every connection.
func (c *Client) Close() {
	c.mu.Lock()
	c.done = true
	conns := c.conns
	c.conns = map[string]*ClientConn{}
	c.mu.Unlock()
	for _, cc := range conns {
		cc.Close()
	}
}

// Addr returns the remote address.
func (cc *ClientConn) Addr() string { return cc.addr }

// LocalAddr returns the local "ip:port" of the connection.
func (cc *ClientConn) LocalAddr() string { return addrString(cc.nc.LocalAddr()) }

func (cc *ClientConn) isClosed() bool {
	select {
	case <-cc.closed:
		return true
	default:
		return false
	}
}

// Close closes the connection; pending requests fail with ErrClosed.
func (cc *ClientConn) Close() {
	cc.shutdown(ErrClosed)
}

func (cc *ClientConn) shutdown(err error) {
	cc.pmu.Lock()
	if cc.isClosed() {
		cc.pmu.Unlock()
		return
	}
	cc.err = err
	close(cc.closed)
	pend := cc.pending
	cc.pending = map[int32]func(*protocol.Command, error){}
	cc.pmu.Unlock()
	cc.nc.Close()
	for _, cb := range pend {
		cb(nil, err)
	}
}

// Write sends a command as is (used to answer server-initiated requests).
func (cc *ClientConn) Write(cmd *protocol.Command) error {
	buf := getBuf()
	*buf = codec.AppendFrame((*buf)[:0], cmd)
	cc.wmu.Lock()
	_, err := cc.nc.Write(*buf)
	cc.wmu.Unlock()
	putBuf(buf)
	if err != nil {
		cc.shutdown(err)
		return fmt.Errorf("remoting: write to %s: %w", cc.addr, err)
	}
	return nil
}

// InvokeAsync sends req and calls cb exactly once with the response or an error.
func (cc *ClientConn) InvokeAsync(req *protocol.Command, timeout time.Duration, cb func(*protocol.Command, error)) {
	req.Opaque = NextOpaque()
	req.Flag &^= protocol.FlagResponse | protocol.FlagOneway
	var once sync.Once
	var timer *time.Timer
	call := func(resp *protocol.Command, err error) {
		once.Do(func() {
			if timer != nil {
				timer.Stop()
			}
			cb(resp, err)
		})
	}
	cc.pmu.Lock()
	if cc.isClosed() {
		cc.pmu.Unlock()
		call(nil, ErrClosed)
		return
	}
	op := req.Opaque
	cc.pending[op] = call
	timer = time.AfterFunc(timeout, func() {
		cc.pmu.Lock()
		delete(cc.pending, op)
		cc.pmu.Unlock()
		call(nil, fmt.Errorf("%w: %s code %d after %v", ErrTimeout, cc.addr, req.Code, timeout))
	})
	cc.pmu.Unlock()
	if err := cc.Write(req); err != nil {
		cc.pmu.Lock()
		delete(cc.pending, op)
		cc.pmu.Unlock()
		call(nil, err)
	}
}

// Invoke sends req and waits for its response.
func (cc *ClientConn) Invoke(ctx context.Context, req *protocol.Command, timeout time.Duration) (*protocol.Command, error) {
	type result struct {
		resp *protocol.Command
		err  error
	}
	ch := make(chan result, 1)
	cc.InvokeAsync(req, timeout, func(r *protocol.Command, err error) { ch <- result{r, err} })
	select {
	case r := <-ch:
		return r.resp, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// InvokeOneway sends req with the oneway flag set.
func (cc *ClientConn) InvokeOneway(req *protocol.Command) error {
	req.Opaque = NextOpaque()
	req.Flag = (req.Flag &^ protocol.FlagResponse) | protocol.FlagOneway
	return cc.Write(req)
}

func (cc *ClientConn) readLoop() {
	r := bufio.NewReaderSize(cc.nc, 64<<10)
	var lenBuf [4]byte
	for {
		if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
			cc.shutdown(closeErr(err))
			return
		}
		size, err := codec.FrameSize(lenBuf[:], cc.cl.opts.MaxFrameSize)
		if err != nil {
			cc.cl.opts.Logger.Warn().Err(err).Str("remote", cc.addr).Msg("closing client connection: bad frame")
			cc.shutdown(err)
			return
		}
		buf := make([]byte, size-4)
		if _, err := io.ReadFull(r, buf); err != nil {
			cc.shutdown(closeErr(err))
			return
		}
		cmd, err := codec.DecodeOwned(buf)
		if err != nil {
			cc.cl.opts.Logger.Warn().Err(err).Str("remote", cc.addr).Msg("closing client connection: bad frame")
			cc.shutdown(err)
			return
		}
		if cmd.IsResponse() {
			cc.pmu.Lock()
			cb := cc.pending[cmd.Opaque]
			delete(cc.pending, cmd.Opaque)
			cc.pmu.Unlock()
			if cb != nil {
				cb(cmd, nil)
			}
			continue
		}
		if h := cc.cl.opts.OnRequest; h != nil {
			if resp := h(cc, cmd); resp != nil && !cmd.IsOneway() {
				finish(cmd, resp)
				_ = cc.Write(resp)
			}
		}
	}
}

func closeErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		return ErrClosed
	}
	return err
}
