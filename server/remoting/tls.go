package remoting

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"sync"
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// TLSMode is Java's tls.server.mode (TlsMode): what a listener does with a connection
// whose first byte is, or is not, a TLS handshake record (0x16).
type TLSMode int

// The modes. The zero value is disabled; Java's default, permissive, is set by the
// configuration (server.TransportOptions).
const (
	TLSDisabled   TLSMode = iota // TLS clients are closed, plaintext served
	TLSPermissive                // both served, chosen per connection on the first byte
	TLSEnforcing                 // plaintext clients are closed
)

// ParseTLSMode parses tls.server.mode as Java's TlsMode.parse: an unknown name is
// permissive.
func ParseTLSMode(s string) TLSMode {
	switch s {
	case "disabled":
		return TLSDisabled
	case "enforcing":
		return TLSEnforcing
	}
	return TLSPermissive
}

func (m TLSMode) String() string {
	switch m {
	case TLSDisabled:
		return "disabled"
	case TLSEnforcing:
		return "enforcing"
	}
	return "permissive"
}

// TLS configures the remoting listeners' TLS (Java: TlsSystemConfig, TlsHelper).
type TLS struct {
	Mode   TLSMode
	Config *tls.Config // server certificate and client authentication; nil refuses TLS clients
	Err    error       // why the configuration could not build Config (logged at Start)
}

// tlsRecordHandshake is the first byte of a TLS ClientHello record.
const tlsRecordHandshake = 0x16

// firstByte applies tls.server.mode to a connection's first inbound byte, as Java's
// NettyRemotingServer.HandshakeHandler does on the first read: 0x16 means a TLS
// ClientHello, anything else a plaintext frame (whose first byte, the high byte of the
// frame length, is at most 0x01 under the 16 MiB frame limit). done reports that the
// connection was closed or handed to the TLS path; otherwise it is plaintext and
// OnTraffic goes on decoding.
//
// Plaintext connections stay on the gnet loop and pay this check once. A TLS connection
// leaves the loop: gnet has no TLS and a record layer on the loop would decrypt in
// OnTraffic with crypto/tls's blocking API, so the socket is duplicated, gnet's
// descriptor closed (the duplicate keeps the TCP connection open, no FIN is sent) and the
// duplicate served by crypto/tls on two goroutines (serveTLS). The bytes gnet already read
// are replayed to the handshake.
func (s *Server) firstByte(c *Conn, gc gnet.Conn) (gnet.Action, bool) {
	b, err := gc.Peek(1)
	if err != nil || len(b) == 0 {
		return gnet.None, true // a wake-up before any byte
	}
	c.decided = true
	isTLS := b[0] == tlsRecordHandshake
	mode := s.opts.TLS.Mode
	switch {
	case !isTLS && mode == TLSEnforcing:
		s.log.Warn().Str("remote", c.remote).Uint64("conn", c.id).Str("tls.server.mode", mode.String()).
			Msg("closing connection: a plaintext client while this server runs in SSL enforcing mode")
		return gnet.Close, true
	case !isTLS:
		return gnet.None, false
	case mode == TLSDisabled || s.opts.TLS.Config == nil:
		s.log.Warn().Str("remote", c.remote).Uint64("conn", c.id).Str("tls.server.mode", mode.String()).
			Msg("closing connection: a TLS client while this server runs in SSL disabled mode")
		return gnet.Close, true
	}
	head, _ := gc.Next(-1)
	prefix := append([]byte(nil), head...)
	raw, err := detach(gc)
	if err != nil {
		s.log.Warn().Err(err).Str("remote", c.remote).Uint64("conn", c.id).Msg("closing connection: cannot take the socket off the event loop for TLS")
		return gnet.Close, true
	}
	c.detached = true
	s.resume(c, true)
	t := newTLSTransport(c, tls.Server(&replayConn{Conn: raw, prefix: prefix}, s.opts.TLS.Config))
	c.tls.Store(t)
	s.tlsConns.Add(1) // Shutdown closes TLS connections and waits for their goroutines
	go func() {
		defer s.tlsConns.Done()
		s.serveTLS(c, t)
	}()
	return gnet.Close, true // closes gnet's descriptor only: OnClose skips detached conns
}

// detach duplicates gc's socket into a net.Conn served by Go's runtime poller.
func detach(gc gnet.Conn) (net.Conn, error) {
	fd, err := gc.Dup()
	if err != nil {
		return nil, fmt.Errorf("dup: %w", err)
	}
	f := os.NewFile(uintptr(fd), "tls")
	defer f.Close() // net.FileConn holds its own duplicate
	conn, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("file conn: %w", err)
	}
	return conn, nil
}

// replayConn returns prefix before reading the connection.
type replayConn struct {
	net.Conn
	prefix []byte
}

func (r *replayConn) Read(p []byte) (int, error) {
	if len(r.prefix) > 0 {
		n := copy(p, r.prefix)
		r.prefix = r.prefix[n:]
		return n, nil
	}
	return r.Conn.Read(p)
}

// tlsHandshakeTimeout bounds a TLS handshake (Netty's SslHandler default is 10 s).
const tlsHandshakeTimeout = 10 * time.Second

// serveTLS reads frames from a TLS connection and dispatches them as OnTraffic does. It
// stops reading while the connection's unsent answers are above WriteHighWater: on this
// path the bound is real backpressure (the client's writes block in TCP).
func (s *Server) serveTLS(c *Conn, t *tlsTransport) {
	defer func() {
		_ = t.Close()
		t.wait()
		s.flow.open.Add(-1)
		s.connClosed(c, t.err())
	}()
	_ = t.tc.SetDeadline(time.Now().Add(tlsHandshakeTimeout))
	if err := t.tc.Handshake(); err != nil {
		s.log.Warn().Err(err).Str("remote", c.remote).Uint64("conn", c.id).Msg("closing connection: TLS handshake failed")
		t.fail(err)
		return
	}
	_ = t.tc.SetDeadline(time.Time{})
	t.mu.Lock()
	t.started = true
	t.mu.Unlock()
	go t.writeLoop()
	r := &streamReader{buf: make([]byte, 0, 64<<10)}
	for {
		if err := t.waitBelow(int64(s.lim.WriteHighWater), int64(s.lim.WriteLowWater)); err != nil {
			return
		}
		if err := r.fill(t.tc); err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				t.fail(err)
			}
			return
		}
		c.lastRead.Store(time.Now().UnixNano())
		var out *[]byte
		for {
			cmd, err := codec.ReadCommandInPlace(r, s.opts.MaxFrameSize)
			if errors.Is(err, codec.ErrIncomplete) {
				break
			}
			if err != nil {
				s.log.Warn().Err(err).Str("remote", c.remote).Uint64("conn", c.id).Msg("closing connection: bad frame")
				s.flushTLS(c, out)
				return
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
				protocol.ReleaseCommand(resp)
			}
		}
		s.flushTLS(c, out)
	}
}

func (s *Server) flushTLS(c *Conn, out *[]byte) {
	if out == nil {
		return
	}
	if len(*out) == 0 || c.asyncWrite(*out, out, nil) != nil {
		putBuf(out)
	}
}

// streamReader is a codec.Reader over bytes read from a stream: what Peek and Next
// return stays valid until the next fill.
type streamReader struct {
	buf []byte
	off int
}

func (r *streamReader) Peek(n int) ([]byte, error) {
	if n > len(r.buf)-r.off {
		return nil, io.ErrShortBuffer
	}
	return r.buf[r.off : r.off+n], nil
}

func (r *streamReader) Next(n int) ([]byte, error) {
	b, err := r.Peek(n)
	if err == nil {
		r.off += n
	}
	return b, err
}

func (r *streamReader) InboundBuffered() int { return len(r.buf) - r.off }

// fill compacts what is left and reads at least one more byte.
func (r *streamReader) fill(src io.Reader) error {
	left := copy(r.buf[:cap(r.buf)], r.buf[r.off:])
	r.buf, r.off = r.buf[:left], 0
	if cap(r.buf)-left < 16<<10 {
		grown := make([]byte, left, 2*cap(r.buf))
		copy(grown, r.buf)
		r.buf = grown
	}
	n, err := src.Read(r.buf[left:cap(r.buf)])
	r.buf = r.buf[:left+n]
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// tlsTransport writes a TLS connection's answers from one goroutine, in order. Its
// AsyncWrite never blocks; the reader waits on the queued bytes instead (waitBelow).
type tlsTransport struct {
	c  *Conn
	tc *tls.Conn

	mu       sync.Mutex
	cond     *sync.Cond
	q        []tlsWrite
	n        int64 // bytes in q and being written
	closed   bool
	firstErr error
	done     chan struct{} // closed when writeLoop has returned (or never started)
	started  bool
}

type tlsWrite struct {
	bufs [][]byte
	cb   gnet.AsyncCallback
}

func newTLSTransport(c *Conn, tc *tls.Conn) *tlsTransport {
	t := &tlsTransport{c: c, tc: tc, done: make(chan struct{})}
	t.cond = sync.NewCond(&t.mu)
	return t
}

func (t *tlsTransport) AsyncWrite(buf []byte, cb gnet.AsyncCallback) error {
	return t.enqueue(tlsWrite{bufs: [][]byte{buf}, cb: cb}, int64(len(buf)))
}

func (t *tlsTransport) AsyncWritev(bs [][]byte, cb gnet.AsyncCallback) error {
	var n int64
	for _, b := range bs {
		n += int64(len(b))
	}
	return t.enqueue(tlsWrite{bufs: bs, cb: cb}, n)
}

func (t *tlsTransport) enqueue(w tlsWrite, n int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return net.ErrClosed
	}
	t.q = append(t.q, w)
	t.n += n
	t.cond.Broadcast()
	return nil
}

// waitBelow blocks while more than high bytes are queued, until they fall to low.
func (t *tlsTransport) waitBelow(high, low int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n < high {
		return nil
	}
	for t.n > low && !t.closed {
		t.cond.Wait()
	}
	if t.closed {
		return net.ErrClosed
	}
	return nil
}

func (t *tlsTransport) writeLoop() {
	defer close(t.done)
	for {
		t.mu.Lock()
		for len(t.q) == 0 && !t.closed {
			t.cond.Wait()
		}
		batch := t.q
		t.q = nil
		closed := t.closed
		t.mu.Unlock()
		var err error
		for _, w := range batch {
			var n int64
			for _, b := range w.bufs {
				if err == nil {
					_, err = t.tc.Write(b)
				}
				n += int64(len(b))
			}
			if w.cb != nil {
				_ = w.cb(nil, err)
			}
			t.mu.Lock()
			t.n -= n
			t.cond.Broadcast()
			t.mu.Unlock()
		}
		if err != nil {
			t.fail(err)
			_ = t.Close()
		}
		if closed && len(batch) == 0 {
			return
		}
	}
}

// Close stops the connection: queued answers are dropped with their callbacks run.
func (t *tlsTransport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.cond.Broadcast()
	started := t.started
	t.mu.Unlock()
	err := t.tc.NetConn().Close() // unblocks the reader and the writer
	if !started {
		t.mu.Lock()
		q := t.q
		t.q = nil
		t.mu.Unlock()
		for _, w := range q {
			if w.cb != nil {
				_ = w.cb(nil, net.ErrClosed)
			}
		}
	}
	return err
}

// wait returns once the writer has run every callback.
func (t *tlsTransport) wait() {
	t.mu.Lock()
	started := t.started
	t.mu.Unlock()
	if started {
		<-t.done
	}
}

func (t *tlsTransport) fail(err error) {
	t.mu.Lock()
	if t.firstErr == nil {
		t.firstErr = err
	}
	t.mu.Unlock()
}

func (t *tlsTransport) err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.firstErr
}

// Transport is what the configuration sets for a server's sockets: the listeners' limits
// and TLS, and the TLS of its outbound client (server.TransportOptions builds it).
type Transport struct {
	Limits    Limits
	TLS       TLS
	ClientTLS *tls.Config // nil: the outbound client dials plaintext
}

// SelfSignedCertificate makes the certificate of Java's test mode (tls.test.mode.enable,
// Netty's SelfSignedCertificate): a fresh key and a self-signed certificate for
// "localhost", valid for a year. Java uses RSA 2048; this is ECDSA P-256, which every
// JDK 8+ and Go client accepts and which makes handshakes cheaper.
func SelfSignedCertificate() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("remoting: test-mode key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("remoting: test-mode serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("remoting: test-mode certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
