package remoting

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// bigAnswer answers every request with a 4 KiB body: a client that does not read makes
// the answers pile up fast.
func bigAnswer(_ *Context, req *protocol.Command) (*protocol.Command, error) {
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = make([]byte, 4<<10)
	return resp, nil
}

// writeWithoutReading writes requests on a raw connection until total bytes are written
// or the server closes it (or 30 s pass). It never reads. It returns the bytes written.
func writeWithoutReading(t *testing.T, addr string, total int) (net.Conn, int) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var batch []byte
	for range 256 {
		batch = codec.AppendFrame(batch, request(testCodeEcho, "T"))
	}
	written := 0
	giveUp := time.Now().Add(30 * time.Second)
	for written < total && time.Now().Before(giveUp) {
		_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
		n, err := conn.Write(batch)
		written += n
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			continue // a slow loop (race detector, loaded machine): the server may still read
		}
		if err != nil {
			break // closed by the server
		}
	}
	return conn, written
}

func TestServer_Flow_ClientThatDoesNotRead_BoundedAndClosed(t *testing.T) {
	lim := Limits{WriteHighWater: 1 << 20, WriteLowWater: 256 << 10, MaxPausedInbound: 4 << 20}
	s := startServer(t, Options{Limits: lim}, []Route{{Code: testCodeEcho, Handler: bigAnswer}})
	addr := s.Addrs()[0]

	done := make(chan int, 1)
	go func() {
		_, n := writeWithoutReading(t, addr, 200<<20)
		done <- n
	}()
	var peak Stats
	deadline := time.After(60 * time.Second)
	for sampling := true; sampling; {
		select {
		case n := <-done:
			t.Logf("client wrote %d MiB before the server stopped taking them", n>>20)
			sampling = false
		case <-deadline:
			t.Fatal("the writer never stopped")
		case <-time.After(2 * time.Millisecond):
		}
		st := s.Stats()
		if st.Unsent > peak.Unsent {
			peak.Unsent = st.Unsent
		}
		if st.HeldInbound > peak.HeldInbound {
			peak.HeldInbound = st.HeldInbound
		}
	}
	t.Logf("peak unsent %d KiB, peak held inbound %d KiB", peak.Unsent>>10, peak.HeldInbound>>10)
	// The answers stop at the high water mark plus one OnTraffic's worth (a 64 KiB read
	// is ~750 requests, ~3 MiB of answers); the held input at MaxPausedInbound plus one read.
	if peak.Unsent > int64(lim.WriteHighWater)+4<<20 {
		t.Errorf("unsent answers reached %d bytes, high water %d", peak.Unsent, lim.WriteHighWater)
	}
	if peak.HeldInbound > int64(lim.MaxPausedInbound)+128<<10 {
		t.Errorf("held inbound reached %d bytes, limit %d", peak.HeldInbound, lim.MaxPausedInbound)
	}
	eventually(t, 5*time.Second, "the non-reading connection closed and its memory released", func() bool {
		st := s.Stats()
		return st.Conns == 0 && st.Paused == 0 && st.HeldInbound == 0
	})
	// Other clients are served meanwhile and after.
	cl := newClient(t)
	if _, err := cl.Invoke(context.Background(), addr, request(testCodeEcho, "T"), 3*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestServer_Flow_PausedClientResumesWhenItReads(t *testing.T) {
	lim := Limits{WriteHighWater: 512 << 10, WriteLowWater: 128 << 10, MaxPausedInbound: 64 << 20}
	s := startServer(t, Options{Limits: lim}, []Route{{Code: testCodeEcho, Handler: bigAnswer}})
	addr := s.Addrs()[0]
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const requests = 4000 // 16 MB of answers: far over the high water mark
	var batch []byte
	for range requests {
		batch = codec.AppendFrame(batch, request(testCodeEcho, "T"))
	}
	if _, err := conn.Write(batch); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "input paused", func() bool { return s.Stats().Paused == 1 })
	// Another connection is served while this one is paused.
	cl := newClient(t)
	if _, err := cl.Invoke(context.Background(), addr, request(testCodeEcho, "T"), 3*time.Second); err != nil {
		t.Fatal(err)
	}
	// Reading every answer resumes the input until all requests are answered.
	r := &rawConn{t, conn}
	for i := range requests {
		if _, err := r.read(5 * time.Second); err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
	}
	eventually(t, 5*time.Second, "pause over", func() bool { st := s.Stats(); return st.Paused == 0 && st.HeldInbound == 0 })
}

func TestServer_Flow_MaxConnections(t *testing.T) {
	s := startServer(t, Options{Limits: Limits{MaxConnections: 2}}, []Route{{Code: testCodeEcho, Handler: echo}})
	addr := s.Addrs()[0]
	a, b := dialRaw(t, addr), dialRaw(t, addr)
	for _, r := range []*rawConn{a, b} {
		r.write(codec.AppendFrame(nil, request(testCodeEcho, "T")))
		if _, err := r.read(3 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	third := dialRaw(t, addr)
	if _, err := third.read(3 * time.Second); err == nil {
		t.Fatal("a third connection over MaxConnections=2 was served")
	}
	a.nc.Close()
	eventually(t, 5*time.Second, "a connection slot freed", func() bool {
		r := dialRaw(t, addr)
		defer r.nc.Close()
		r.write(codec.AppendFrame(nil, request(testCodeEcho, "T")))
		_, err := r.read(time.Second)
		return err == nil
	})
}
