package remoting

import (
	"context"
	"crypto/tls"
	"net"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec"
)

func testTLS(t *testing.T, mode TLSMode) TLS {
	t.Helper()
	cert, err := SelfSignedCertificate()
	if err != nil {
		t.Fatal(err)
	}
	return TLS{Mode: mode, Config: &tls.Config{Certificates: []tls.Certificate{cert}}}
}

var insecureClient = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // test mode: the client trusts any server, as Java's and Go's clients do

func tlsInvoke(t *testing.T, addr string) error {
	t.Helper()
	cl := NewClient(ClientOptions{TLS: insecureClient})
	defer cl.Close()
	req := request(testCodeEcho, "T1")
	req.Body = make([]byte, 100<<10) // several TLS records
	resp, err := cl.Invoke(context.Background(), addr, req, 3*time.Second)
	if err != nil {
		return err
	}
	if resp.Ext.Value("echo") != "T1" || len(resp.Body) != 100<<10 {
		t.Fatalf("bad answer over TLS: %+v", resp)
	}
	return nil
}

func plainInvoke(addr string) error {
	cl := NewClient(ClientOptions{})
	defer cl.Close()
	_, err := cl.Invoke(context.Background(), addr, request(testCodeEcho, "T1"), 2*time.Second)
	return err
}

func TestServer_TLS_Modes(t *testing.T) {
	for _, tc := range []struct {
		mode           TLSMode
		tlsOK, plainOK bool
	}{
		{TLSPermissive, true, true},
		{TLSEnforcing, true, false},
		{TLSDisabled, false, true},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			s := startServer(t, Options{TLS: testTLS(t, tc.mode)}, []Route{{Code: testCodeEcho, Handler: echo}})
			addr := s.Addrs()[0]
			if err := tlsInvoke(t, addr); (err == nil) != tc.tlsOK {
				t.Errorf("TLS client: err=%v, want ok=%v", err, tc.tlsOK)
			}
			if err := plainInvoke(addr); (err == nil) != tc.plainOK {
				t.Errorf("plaintext client: err=%v, want ok=%v", err, tc.plainOK)
			}
			eventually(t, 5*time.Second, "connections closed", func() bool { return len(s.Conns()) == 0 })
		})
	}
}

// A plaintext client whose first write is a single byte is still plaintext (Java decides
// on the first byte, whatever the chunk size).
func TestServer_TLS_PermissiveOneBytePlaintextChunk(t *testing.T) {
	s := startServer(t, Options{TLS: testTLS(t, TLSPermissive)}, []Route{{Code: testCodeEcho, Handler: echo}})
	r := dialRaw(t, s.Addrs()[0])
	frame := codec.AppendFrame(nil, request(testCodeEcho, "T"))
	r.write(frame[:1])
	time.Sleep(20 * time.Millisecond) //nolint:forbidigo // the server must see the first byte alone
	r.write(frame[1:])
	if _, err := r.read(3 * time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestServer_TLS_ClientThatDoesNotRead_Backpressure(t *testing.T) {
	lim := Limits{WriteHighWater: 1 << 20, WriteLowWater: 256 << 10}
	s := startServer(t, Options{TLS: testTLS(t, TLSEnforcing), Limits: lim}, []Route{{Code: testCodeEcho, Handler: bigAnswer}})
	raw, err := net.Dial("tcp", s.Addrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	conn := tls.Client(raw, insecureClient)
	defer conn.Close()
	var batch []byte
	for range 256 {
		batch = codec.AppendFrame(batch, request(testCodeEcho, "T"))
	}
	written := 0
	for written < 100<<20 {
		_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
		n, err := conn.Write(batch)
		written += n
		if err != nil {
			break
		}
	}
	st := s.Stats()
	t.Logf("client wrote %d MiB before TCP backpressure; unsent answers %d KiB", written>>20, st.Unsent>>10)
	if written >= 100<<20 {
		t.Fatal("the server kept reading a TLS client that does not read")
	}
	if st.Unsent > int64(lim.WriteHighWater)+4<<20 {
		t.Fatalf("unsent answers %d over the high water mark %d", st.Unsent, lim.WriteHighWater)
	}
	// Others are served meanwhile.
	cl := NewClient(ClientOptions{TLS: insecureClient})
	defer cl.Close()
	if _, err := cl.Invoke(context.Background(), s.Addrs()[0], request(testCodeEcho, "T"), 3*time.Second); err != nil {
		t.Fatal(err)
	}
}
