package remoting

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

const testCodeEcho = protocol.CodeGetRouteinfoByTopic // any code; the tests define the behaviour

// eventually: conformance/testkit.Eventually.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, d, what, cond)
}

func echo(_ *Context, req *protocol.Command) (*protocol.Command, error) {
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Ext.Set("echo", req.Ext.Value("topic"))
	resp.Body = req.Body
	return resp, nil
}

func startServer(t *testing.T, opts Options, routes []Route) *Server {
	t.Helper()
	if len(opts.Listeners) == 0 {
		opts.Listeners = []Listener{{Addr: "127.0.0.1:0"}}
	}
	s := NewServer(opts, routes)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s
}

func newClient(t *testing.T) *Client {
	c := NewClient(ClientOptions{})
	t.Cleanup(c.Close)
	return c
}

func request(code protocol.RequestCode, topic string) *protocol.Command {
	r := protocol.NewRequest(code)
	r.Ext.Set("topic", topic)
	return r
}

func TestServer_Invoke_EchoesOpaqueAndSerializeType(t *testing.T) {
	s := startServer(t, Options{}, []Route{{Code: testCodeEcho, Handler: echo}})
	cl := newClient(t)
	for _, st := range []protocol.SerializeType{protocol.SerializeJSON, protocol.SerializeRocketMQ} {
		req := request(testCodeEcho, "T1")
		req.Serialize = st
		req.Body = []byte("payload")
		resp, err := cl.Invoke(context.Background(), s.Addrs()[0], req, 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Opaque != req.Opaque || !resp.IsResponse() || resp.Serialize != st || resp.Ext.Value("echo") != "T1" || string(resp.Body) != "payload" {
			t.Fatalf("%v: bad response %+v", st, resp)
		}
	}
}

func TestServer_UnknownCode_NotSupportedWithJavaRemark(t *testing.T) {
	s := startServer(t, Options{}, []Route{{Code: testCodeEcho, Handler: echo}})
	resp, err := newClient(t).Invoke(context.Background(), s.Addrs()[0], protocol.NewRequest(999), 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ResponseCode() != protocol.ResRequestCodeNotSupported || resp.Remark != " request type 999 not supported" {
		t.Fatalf("got %v %q", resp.ResponseCode(), resp.Remark)
	}
}

func TestServer_ErrorsBecomeResponses(t *testing.T) {
	s := startServer(t, Options{}, []Route{
		{Code: 1, Handler: func(*Context, *protocol.Command) (*protocol.Command, error) {
			return nil, protocol.Errorf(protocol.ResTopicNotExist, "topic[%s] not exist, apply first please!", "X")
		}},
		{Code: 2, Handler: func(*Context, *protocol.Command) (*protocol.Command, error) { return nil, errors.New("disk on fire") }},
		{Code: 3, Handler: func(*Context, *protocol.Command) (*protocol.Command, error) { panic("bug") }},
	})
	cl := newClient(t)
	want := map[protocol.RequestCode]struct {
		code   protocol.ResponseCode
		remark string
	}{1: {protocol.ResTopicNotExist, "topic[X] not exist, apply first please!"}, 2: {protocol.ResSystemError, "disk on fire"}, 3: {protocol.ResSystemError, "bug"}}
	for code, w := range want {
		resp, err := cl.Invoke(context.Background(), s.Addrs()[0], protocol.NewRequest(code), 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if resp.ResponseCode() != w.code || resp.Remark != w.remark {
			t.Errorf("code %d: got %v %q", code, resp.ResponseCode(), resp.Remark)
		}
	}
}

// rawConn is a test peer that writes bytes and reads frames.
type rawConn struct {
	t  *testing.T
	nc net.Conn
}

func dialRaw(t *testing.T, addr string) *rawConn {
	nc, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{t, nc}
}

func (r *rawConn) write(b []byte) {
	if _, err := r.nc.Write(b); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rawConn) read(d time.Duration) (*protocol.Command, error) {
	_ = r.nc.SetReadDeadline(time.Now().Add(d))
	var l [4]byte
	if _, err := io.ReadFull(r.nc, l[:]); err != nil {
		return nil, err
	}
	buf := make([]byte, binary.BigEndian.Uint32(l[:]))
	if _, err := io.ReadFull(r.nc, buf); err != nil {
		return nil, err
	}
	return codec.DecodeOwned(buf)
}

func TestServer_Oneway_NeverAnswered(t *testing.T) {
	s := startServer(t, Options{}, []Route{{Code: testCodeEcho, Handler: echo}})
	rc := dialRaw(t, s.Addrs()[0])
	ow := request(testCodeEcho, "oneway")
	ow.Opaque, ow.Flag = 1, protocol.FlagOneway
	unknown := protocol.NewRequest(999)
	unknown.Opaque, unknown.Flag = 2, protocol.FlagOneway
	normal := request(testCodeEcho, "normal")
	normal.Opaque = 3
	rc.write(codec.AppendFrame(codec.AppendFrame(codec.AppendFrame(nil, ow), unknown), normal))
	resp, err := rc.read(3 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Opaque != 3 {
		t.Fatalf("first response has opaque %d, want 3 (oneway requests must not be answered)", resp.Opaque)
	}
}

func TestServer_SplitFrames_OneByteWrites(t *testing.T) {
	s := startServer(t, Options{}, []Route{{Code: testCodeEcho, Handler: echo}})
	rc := dialRaw(t, s.Addrs()[0])
	req := request(testCodeEcho, "split")
	req.Opaque = 77
	for _, b := range codec.AppendFrame(nil, req) {
		rc.write([]byte{b})
	}
	resp, err := rc.read(3 * time.Second)
	if err != nil || resp.Opaque != 77 || resp.Ext.Value("echo") != "split" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}

func TestServer_MalformedFrame_ClosesOnlyThatConnection(t *testing.T) {
	s := startServer(t, Options{MaxFrameSize: 1 << 20}, []Route{{Code: testCodeEcho, Handler: echo}})
	good := dialRaw(t, s.Addrs()[0])
	for name, bad := range map[string][]byte{
		"oversized":     {0x01, 0, 0, 0, 0, 0, 0, 0},
		"bad header":    codec.AppendRawFrame(nil, protocol.SerializeJSON, []byte("{nope"), nil),
		"negative size": {0xff, 0xff, 0xff, 0xff},
	} {
		rc := dialRaw(t, s.Addrs()[0])
		rc.write(bad)
		if _, err := rc.read(3 * time.Second); !errors.Is(err, io.EOF) && !strings.Contains(errString(err), "reset") {
			t.Fatalf("%s: want the connection closed, got %v", name, err)
		}
	}
	req := request(testCodeEcho, "still here")
	req.Opaque = 5
	good.write(codec.AppendFrame(nil, req))
	if resp, err := good.read(3 * time.Second); err != nil || resp.Ext.Value("echo") != "still here" {
		t.Fatalf("good connection broken: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestServer_Pool_FullAnswersSystemBusy(t *testing.T) {
	release := make(chan struct{})
	pool := &Pool{Name: "send", Workers: 1, Queue: 1}
	s := startServer(t, Options{}, []Route{{Code: testCodeEcho, Pool: pool, Handler: func(x *Context, r *protocol.Command) (*protocol.Command, error) {
		<-release
		return echo(x, r)
	}}})
	cl := newClient(t)
	type res struct {
		resp *protocol.Command
		err  error
	}
	results := make(chan res, 3)
	for i := 0; i < 3; i++ {
		cl.InvokeAsync(s.Addrs()[0], request(testCodeEcho, "x"), 5*time.Second, func(c *protocol.Command, err error) { results <- res{c, err} })
	}
	// one runs, one waits in the queue, the third is refused at once
	r := <-results
	if r.err != nil || r.resp.ResponseCode() != protocol.ResSystemBusy || r.resp.Remark != protocol.RemarkOverload {
		t.Fatalf("first answer: %+v %v", r.resp, r.err)
	}
	close(release)
	for i := 0; i < 2; i++ {
		if r := <-results; r.err != nil || r.resp.ResponseCode() != protocol.ResSuccess {
			t.Fatalf("queued request: %+v %v", r.resp, r.err)
		}
	}
}

func TestServer_Pool_MaxWaitFastFailure(t *testing.T) {
	release := make(chan struct{})
	var ran atomic.Int32
	pool := &Pool{Name: "send", Workers: 1, Queue: 10, MaxWait: 50 * time.Millisecond}
	s := startServer(t, Options{}, []Route{{Code: testCodeEcho, Pool: pool, Handler: func(x *Context, r *protocol.Command) (*protocol.Command, error) {
		ran.Add(1)
		<-release
		return echo(x, r)
	}}})
	cl := newClient(t)
	first := make(chan *protocol.Command, 1)
	cl.InvokeAsync(s.Addrs()[0], request(testCodeEcho, "a"), 5*time.Second, func(c *protocol.Command, _ error) { first <- c })
	eventually(t, 3*time.Second, "first request running", func() bool { return ran.Load() == 1 })
	second := make(chan *protocol.Command, 1)
	cl.InvokeAsync(s.Addrs()[0], request(testCodeEcho, "b"), 5*time.Second, func(c *protocol.Command, _ error) { second <- c })
	eventually(t, 3*time.Second, "second request queued past MaxWait", func() bool { return pool.Len() == 1 })
	time.Sleep(60 * time.Millisecond) // let it age past MaxWait: the behaviour under test is age-based
	close(release)
	<-first
	resp := <-second
	if resp.ResponseCode() != protocol.ResSystemBusy || !strings.HasPrefix(resp.Remark, "[TIMEOUT_CLEAN_QUEUE]broker busy") {
		t.Fatalf("got %v %q", resp.ResponseCode(), resp.Remark)
	}
}

func TestServer_IdleConnectionsClosed(t *testing.T) {
	s := startServer(t, Options{IdleTimeout: 200 * time.Millisecond}, []Route{{Code: testCodeEcho, Handler: echo}})
	rc := dialRaw(t, s.Addrs()[0])
	if _, err := rc.read(5 * time.Second); !errors.Is(err, io.EOF) {
		t.Fatalf("want EOF from idle close, got %v", err)
	}
}

func TestServer_LongPoll_ReplyLater(t *testing.T) {
	held := make(chan *Context, 1)
	s := startServer(t, Options{}, []Route{{Code: testCodeEcho, Handler: func(x *Context, _ *protocol.Command) (*protocol.Command, error) {
		held <- x
		return nil, nil
	}}})
	cl := newClient(t)
	got := make(chan *protocol.Command, 1)
	req := request(testCodeEcho, "poll")
	cl.InvokeAsync(s.Addrs()[0], req, 5*time.Second, func(c *protocol.Command, _ error) { got <- c })
	x := <-held
	var doneCalled atomic.Bool
	resp := protocol.NewResponse(nil, protocol.ResSuccess, "")
	resp.Body = []byte("head-")
	x.ReplyParts(resp, [][]byte{[]byte("part1-"), []byte("part2")}, func() { doneCalled.Store(true) })
	r := <-got
	if r.Opaque != req.Opaque || string(r.Body) != "head-part1-part2" {
		t.Fatalf("got %+v body %q", r, r.Body)
	}
	eventually(t, time.Second, "done callback", doneCalled.Load)
}

func TestServer_ExcludedCodeOnListener(t *testing.T) {
	s := startServer(t, Options{Listeners: []Listener{{Addr: "127.0.0.1:0"}, {Addr: "127.0.0.1:0", Exclude: []protocol.RequestCode{protocol.CodePullMessage}}}},
		[]Route{{Code: protocol.CodePullMessage, Handler: echo}})
	cl := newClient(t)
	main, err := cl.Invoke(context.Background(), s.Addrs()[0], protocol.NewRequest(protocol.CodePullMessage), 3*time.Second)
	if err != nil || main.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("main port: %+v %v", main, err)
	}
	vip, err := cl.Invoke(context.Background(), s.Addrs()[1], protocol.NewRequest(protocol.CodePullMessage), 3*time.Second)
	if err != nil || vip.ResponseCode() != protocol.ResRequestCodeNotSupported {
		t.Fatalf("vip port: %+v %v", vip, err)
	}
}

func TestServer_InvokeClient(t *testing.T) {
	conns := make(chan *Conn, 1)
	s := startServer(t, Options{OnOpen: func(c *Conn) { conns <- c }}, []Route{{Code: testCodeEcho, Handler: echo}})
	cl := NewClient(ClientOptions{OnRequest: func(_ *ClientConn, req *protocol.Command) *protocol.Command {
		r := protocol.NewResponse(req, protocol.ResSuccess, "")
		r.Body = []byte("running info")
		return r
	}})
	defer cl.Close()
	if _, err := cl.Conn(s.Addrs()[0]); err != nil {
		t.Fatal(err)
	}
	c := <-conns
	resp, err := c.Invoke(context.Background(), protocol.NewRequest(protocol.CodeGetConsumerRunningInfo), 3*time.Second)
	if err != nil || string(resp.Body) != "running info" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}

func TestServer_Shutdown_DrainsQueuedRequests(t *testing.T) {
	release := make(chan struct{})
	pool := &Pool{Name: "slow", Workers: 1, Queue: 10}
	s := NewServer(Options{Listeners: []Listener{{Addr: "127.0.0.1:0"}}}, []Route{{Code: testCodeEcho, Pool: pool, Handler: func(x *Context, r *protocol.Command) (*protocol.Command, error) {
		<-release
		return echo(x, r)
	}}})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	cl := newClient(t)
	got := make(chan *protocol.Command, 2)
	for i := 0; i < 2; i++ {
		cl.InvokeAsync(s.Addrs()[0], request(testCodeEcho, "drain"), 5*time.Second, func(c *protocol.Command, _ error) { got <- c })
	}
	eventually(t, 3*time.Second, "one queued", func() bool { return pool.Len() == 1 })
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stopped <- s.Shutdown(ctx)
	}()
	close(release)
	for i := 0; i < 2; i++ {
		if c := <-got; c == nil || c.ResponseCode() != protocol.ResSuccess {
			t.Fatalf("in-flight request %d not answered: %+v", i, c)
		}
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}
