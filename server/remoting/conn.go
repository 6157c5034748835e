package remoting

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// Errors of server-side connections and the client.
var (
	// ErrClosed is returned when writing to or invoking on a closed connection.
	ErrClosed = errors.New("remoting: connection closed")
	// ErrTimeout is returned when a request's response did not arrive in time.
	ErrTimeout = errors.New("remoting: request timed out")
)

// Conn is one accepted connection (Java: a Netty Channel). It is safe for concurrent use.
type Conn struct {
	gc       gnet.Conn                    // the event-loop connection; unused once tls is set
	tls      atomic.Pointer[tlsTransport] // set when the connection left gnet for TLS (tls.go)
	srv      *Server
	id       uint64
	remote   string // "ip:port"
	local    string
	excluded map[protocol.RequestCode]bool // codes not served on this listener (VIP port)
	lastRead atomic.Int64                  // unix nanos of the last inbound frame
	closed   atomic.Bool

	// Flow control (flow.go). unsent counts answer bytes handed to AsyncWrite that gnet has
	// not yet taken; outbound mirrors gnet's OutboundBuffered as last seen on the loop.
	unsent   atomic.Int64
	outbound atomic.Int64
	decided  bool  // loop only: the first byte chose plaintext or TLS
	detached bool  // loop only: the socket now belongs to the TLS path
	paused   bool  // loop only: input is not processed until the answers drain
	heldIn   int64 // loop only: inbound bytes counted into Server.held while paused

	pendingMu sync.Mutex
	pending   map[int32]chan *protocol.Command

	// Attachment is free for the owner of the server (broker or namesrv) to use.
	Attachment atomic.Value
}

// ID is unique per server for the life of the process.
func (c *Conn) ID() uint64 { return c.id }

// RemoteAddr returns the peer's "ip:port", as Java's RemotingHelper.parseChannelRemoteAddr.
func (c *Conn) RemoteAddr() string { return c.remote }

// LocalAddr returns the local "ip:port" the peer connected to.
func (c *Conn) LocalAddr() string { return c.local }

// Closed reports whether the connection has been closed.
func (c *Conn) Closed() bool { return c.closed.Load() }

// Close closes the connection.
func (c *Conn) Close() error {
	if t := c.tls.Load(); t != nil {
		return t.Close()
	}
	return c.gc.Close()
}

// asyncWrite hands buf to the connection's writer. Once it has been written or buffered,
// pooled (if not nil) goes back to the buffer pool and done (if not nil) runs. The bytes
// count as unsent until then (flow.go). One closure per write, as before flow control.
func (c *Conn) asyncWrite(buf []byte, pooled *[]byte, done func()) error {
	return c.asyncWritev(nil, buf, pooled, done)
}

// asyncWritev is asyncWrite of head followed by parts (zero-copy body pieces); parts nil
// writes head alone.
func (c *Conn) asyncWritev(parts [][]byte, head []byte, pooled *[]byte, done func()) error {
	n := int64(len(head))
	for _, b := range parts {
		n += int64(len(b))
	}
	c.unsent.Add(n)
	cb := func(gc gnet.Conn, _ error) error {
		if gc != nil {
			c.outbound.Store(int64(gc.OutboundBuffered())) // on the loop
		}
		c.unsent.Add(-n)
		if pooled != nil {
			putBuf(pooled)
		}
		if done != nil {
			done()
		}
		return nil
	}
	var err error
	t := c.tls.Load()
	switch {
	case parts == nil && t != nil:
		err = t.AsyncWrite(head, cb)
	case parts == nil:
		err = c.gc.AsyncWrite(head, cb)
	default:
		vec := make([][]byte, 0, len(parts)+1)
		vec = append(vec, head)
		vec = append(vec, parts...)
		if t != nil {
			err = t.AsyncWritev(vec, cb)
		} else {
			err = c.gc.AsyncWritev(vec, cb)
		}
	}
	if err != nil {
		c.unsent.Add(-n) // the callback never runs: the caller releases pooled and runs done
	}
	return err
}

// Send writes a command, encoded in its own serialize type, without waiting.
func (c *Conn) Send(cmd *protocol.Command) error {
	return c.sendParts(cmd, nil, nil)
}

// sendParts writes cmd's header, cmd.Body and then parts (zero-copy body pieces); done runs
// once the bytes have left or been copied into the connection's buffer.
func (c *Conn) sendParts(cmd *protocol.Command, parts [][]byte, done func()) error {
	if c.closed.Load() {
		if done != nil {
			done()
		}
		return ErrClosed
	}
	n := len(cmd.Body)
	for _, p := range parts {
		n += len(p)
	}
	buf := getBuf()
	*buf = codec.AppendFrameHeader((*buf)[:0], cmd, n)
	*buf = append(*buf, cmd.Body...)
	if cmd.IsResponse() {
		protocol.ReleaseCommand(cmd) // encoded: an answer is not used after it is sent
	}
	if len(parts) == 0 {
		parts = nil
	}
	err := c.asyncWritev(parts, *buf, buf, done)
	if err != nil {
		putBuf(buf)
		if done != nil {
			done()
		}
		return fmt.Errorf("remoting: write to %s: %w", c.remote, err)
	}
	return nil
}

var opaqueSeq atomic.Int32

// NextOpaque returns a process-wide request id (Java: RemotingCommand's requestId counter).
func NextOpaque() int32 { return opaqueSeq.Add(1) }

// Invoke sends a request to the peer (broker→client calls such as
// GET_CONSUMER_RUNNING_INFO) and waits for its response.
func (c *Conn) Invoke(ctx context.Context, req *protocol.Command, timeout time.Duration) (*protocol.Command, error) {
	req.Opaque = NextOpaque()
	req.Flag &^= protocol.FlagResponse | protocol.FlagOneway
	ch := make(chan *protocol.Command, 1)
	c.pendingMu.Lock()
	if c.pending == nil {
		c.pending = make(map[int32]chan *protocol.Command)
	}
	c.pending[req.Opaque] = ch
	c.pendingMu.Unlock()
	defer func() {
		c.pendingMu.Lock()
		delete(c.pending, req.Opaque)
		c.pendingMu.Unlock()
	}()
	if err := c.Send(req); err != nil {
		return nil, err
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case resp, ok := <-ch:
		if !ok {
			return nil, ErrClosed
		}
		return resp, nil
	case <-t.C:
		return nil, fmt.Errorf("%w: %s code %d after %v", ErrTimeout, c.remote, req.Code, timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// InvokeOneway sends a request with the oneway flag: the peer does not answer.
func (c *Conn) InvokeOneway(req *protocol.Command) error {
	req.Opaque = NextOpaque()
	req.Flag = (req.Flag &^ protocol.FlagResponse) | protocol.FlagOneway
	return c.Send(req)
}

func (c *Conn) complete(resp *protocol.Command) bool {
	c.pendingMu.Lock()
	ch, ok := c.pending[resp.Opaque]
	if ok {
		delete(c.pending, resp.Opaque)
	}
	c.pendingMu.Unlock()
	if ok {
		ch <- resp
	}
	return ok
}

func (c *Conn) failPending() {
	c.pendingMu.Lock()
	for op, ch := range c.pending {
		close(ch)
		delete(c.pending, op)
	}
	c.pendingMu.Unlock()
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if cap(*b) <= 64<<10 {
		bufPool.Put(b)
	}
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	if ta, ok := a.(*net.TCPAddr); ok {
		if v4 := ta.IP.To4(); v4 != nil {
			return net.JoinHostPort(v4.String(), fmt.Sprint(ta.Port))
		}
	}
	return a.String()
}

// IsTimeout reports whether err is a request timeout.
func IsTimeout(err error) bool { return errors.Is(err, ErrTimeout) }
