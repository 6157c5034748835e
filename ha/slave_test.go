package ha

import (
	"context"
	"encoding/binary"
	"io"
	"math/rand"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/store"
)

// stream is what a master would send for [from, to) of src: frames of at most batch
// bytes that never cross a file, with a heartbeat before each file.
func stream(t testing.TB, src *store.Store, from, to int64, batch int) []byte {
	t.Helper()
	var out []byte
	for off := from; off < to; {
		ch := src.CommitLogChunk(off)
		if ch.Data == nil {
			t.Fatalf("no data at %d", off)
		}
		if off%testFileSize == 0 {
			out = appendFrame(out, off, nil)
		}
		n := min(len(ch.Data), batch, int(to-off))
		out = appendFrame(out, off, ch.Data[:n])
		ch.Release()
		off += int64(n)
	}
	return out
}

func appendFrame(dst []byte, off int64, body []byte) []byte {
	var h [HeaderSize]byte
	putHeader(h[:], off, int32(len(body)))
	return append(append(dst, h[:]...), body...)
}

// pipeMaster is a fake master on a net.Pipe: every Write reaches the slave's Read
// exactly as written, so the test decides where reads split. It records the slave's
// reports.
type pipeMaster struct {
	conns  chan net.Conn
	last   atomic.Int64
	report atomic.Int64 // number of reports read
}

func newPipeSlave(t testing.TB, st *store.Store, cfg Config) (*Slave, *pipeMaster) {
	pm := &pipeMaster{conns: make(chan net.Conn, 4)}
	s := NewSlave(st, cfg)
	s.retry = 20 * time.Millisecond
	s.dial = func(ctx context.Context, addr string) (net.Conn, error) {
		a, b := net.Pipe()
		pm.conns <- b
		go pm.readReports(b)
		return a, nil
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, pm
}

func (pm *pipeMaster) readReports(c net.Conn) {
	var b [8]byte
	for {
		if _, err := io.ReadFull(c, b[:]); err != nil {
			return
		}
		pm.last.Store(int64(binary.BigEndian.Uint64(b[:])))
		pm.report.Add(1)
	}
}

func (pm *pipeMaster) accept(t testing.TB) net.Conn {
	t.Helper()
	select {
	case c := <-pm.conns:
		t.Cleanup(func() { _ = c.Close() })
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("the slave did not connect")
		return nil
	}
}

// A frame split at every byte position (each byte its own read), then at random
// positions: the slave ends with the master's bytes, across a file boundary.
func TestSlave_FramesSplitAnywhere(t *testing.T) {
	mdir := t.TempDir()
	ms := openStore(t, storeConfig(mdir, false))
	defer ms.Close()
	putN(t, ms, "TopicHA", 0, 300) // about 2.3 files
	end := ms.MaxPhyOffset()
	waitCaughtUp(t, ms, ms)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	for _, mode := range []string{"every byte", "random"} {
		t.Run(mode, func(t *testing.T) {
			sdir := t.TempDir()
			ss := openStore(t, storeConfig(sdir, true))
			defer ss.Close()
			s, pm := newPipeSlave(t, ss, haConfig(nil))
			s.SetMasterAddr("pipe")
			s.Start()
			c := pm.accept(t)
			data := stream(t, ms, 0, end, 4096)
			for len(data) > 0 {
				n := 1
				if mode == "random" {
					n = 1 + r.Intn(min(len(data), 9000))
				}
				if _, err := c.Write(data[:n]); err != nil {
					t.Fatal(err)
				}
				data = data[n:]
			}
			eventually(t, 10*time.Second, "the last report", func() bool { return pm.last.Load() == end })
			waitCaughtUp(t, ms, ss)
			sameCommitLog(t, mdir, sdir, 0, end)
			sameQueues(t, ms, ss, "TopicHA")
		})
	}
}

// The frame reader alone: a stream cut at every pair of positions gives the same
// frames as the stream in one piece.
func TestFrameReader_EverySplit(t *testing.T) {
	var data []byte
	data = appendFrame(data, 100, nil)
	data = appendFrame(data, 100, []byte("abcdefgh"))
	data = appendFrame(data, 108, []byte("x"))
	data = appendFrame(data, 109, nil)
	type frame struct {
		off  int64
		body string
	}
	read := func(pieces ...[]byte) []frame {
		fr := newFrameReader(64)
		var out []frame
		for _, p := range pieces {
			for len(p) > 0 {
				n := copy(fr.space(), p)
				fr.filled(n)
				p = p[n:]
				for {
					off, body, ok, err := fr.next()
					if err != nil {
						t.Fatal(err)
					}
					if !ok {
						break
					}
					out = append(out, frame{off, string(body)})
				}
				fr.compact()
			}
		}
		return out
	}
	want := read(data)
	if len(want) != 4 || want[1] != (frame{100, "abcdefgh"}) {
		t.Fatalf("frames %v", want)
	}
	for i := 0; i <= len(data); i++ {
		for j := i; j <= len(data); j++ {
			got := read(data[:i], data[i:j], data[j:])
			if len(got) != len(want) {
				t.Fatalf("split %d/%d: %v", i, j, got)
			}
			for k := range got {
				if got[k] != want[k] {
					t.Fatalf("split %d/%d: frame %d %v, want %v", i, j, k, got[k], want[k])
				}
			}
		}
	}
}

// The slave reports its end at once on connect (Java waits about 5 s), after data, and
// every HeartbeatInterval while idle.
func TestSlave_Reports(t *testing.T) {
	src := openStore(t, storeConfig(t.TempDir(), false))
	defer src.Close()
	putN(t, src, "TopicHA", 0, 20)
	ss := openStore(t, storeConfig(t.TempDir(), true))
	defer ss.Close()
	cfg := haConfig(nil)
	cfg.HeartbeatInterval = 100 * time.Millisecond
	s, pm := newPipeSlave(t, ss, cfg)
	s.SetMasterAddr("pipe")
	began := time.Now()
	s.Start()
	c := pm.accept(t)
	eventually(t, time.Second, "the first report", func() bool { return pm.report.Load() == 1 })
	if d := time.Since(began); d > 500*time.Millisecond || pm.last.Load() != 0 {
		t.Fatalf("first report %d after %v", pm.last.Load(), d)
	}
	if _, err := c.Write(stream(t, src, 0, src.MaxPhyOffset(), 32768)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the report of the data", func() bool { return pm.last.Load() == src.MaxPhyOffset() })
	n := pm.report.Load()
	time.Sleep(550 * time.Millisecond)
	if k := pm.report.Load() - n; k < 3 || k > 7 {
		t.Fatalf("%d heartbeat reports in 550ms at 100ms", k)
	}
	if !s.Connected() {
		t.Fatal("not connected")
	}
}

// fakeMaster is a TCP listener standing in for a master.
type fakeMaster struct {
	t  testing.TB
	ln net.Listener
}

func listenFake(t testing.TB) *fakeMaster {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return &fakeMaster{t: t, ln: ln}
}

// accept takes the slave's next connection and its first report.
func (f *fakeMaster) accept() (net.Conn, int64) {
	f.t.Helper()
	_ = f.ln.(*net.TCPListener).SetDeadline(time.Now().Add(5 * time.Second))
	c, err := f.ln.Accept()
	if err != nil {
		f.t.Fatalf("no connection: %v", err)
	}
	f.t.Cleanup(func() { _ = c.Close() })
	var b [8]byte
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, b[:]); err != nil {
		f.t.Fatalf("no first report: %v", err)
	}
	return c, int64(binary.BigEndian.Uint64(b[:]))
}

// closedBySlave reads (and drops reports) until the slave closes, within d.
func closedBySlave(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	return err == nil
}

// A broken or hostile master: the slave closes with the reason logged, reconnects, and
// its store is untouched by what it refused.
func TestSlave_HostileMaster(t *testing.T) {
	src := openStore(t, storeConfig(t.TempDir(), false))
	defer src.Close()
	putN(t, src, "TopicHA", 0, 200)
	frame := func(off int64, size int32, body []byte) []byte {
		var h [HeaderSize]byte
		putHeader(h[:], off, size)
		return append(h[:], body...)
	}
	// rec: the first records, whole, about 2000 bytes; rec1 the first alone.
	first := src.CommitLogChunk(0)
	var rec, rec1 []byte
	for pos := 0; pos < 2000; {
		size := int(binary.BigEndian.Uint32(first.Data[pos:]))
		if rec1 == nil {
			rec1 = append([]byte(nil), first.Data[:size]...)
		}
		pos += size
		rec = append(rec[:0], first.Data[:pos]...)
	}
	first.Release()
	n := int64(len(rec))
	cases := []struct {
		name     string
		nonEmpty bool // the slave holds data from 0 first
		send     []byte
		log      string
	}{
		{"negative size", false, frame(0, -1, nil), "bad frame size: -1"},
		{"oversized frame", false, frame(0, MaxFrameBody+1, nil), "bad frame size: 4194293"},
		{"offset mismatch", true, frame(12345, 0, nil), "master pushed offset not equal the max phy offset in slave, SLAVE: " + itoa(n) + " MASTER: 12345"},
		{"empty slave, start off a file boundary", false, frame(100, int32(len(rec1)), rec1), "does not match the CommitLog end"},
		{"not a record", false, frame(0, 16, []byte("0123456789abcdef")), "master sent no valid record at 0"},
		{"record past the file end", true, frame(n, 8, []byte{0, 1, 0, 0, 0xDA, 0xA3, 0x20, 0xA7}), "master sent no valid record at " + itoa(n) + " (size 65536"},
		{"http garbage", false, []byte("HTTP/1.1 400 Bad Request\r\n\r\n"), "bad frame size"},
		{"closed mid-frame", true, frame(n, 100, []byte("abc")), "in the middle of a frame"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ss := openStore(t, storeConfig(t.TempDir(), true))
			defer ss.Close()
			lb := &logBuf{}
			fm := listenFake(t)
			s := startSlave(t, ss, haConfig(lb), fm.ln.Addr().String())
			conn, off := fm.accept()
			if off != 0 {
				t.Fatalf("first report %d", off)
			}
			if c.nonEmpty {
				if _, err := conn.Write(frame(0, int32(len(rec)), rec)); err != nil {
					t.Fatal(err)
				}
				eventually(t, 5*time.Second, "the first records", func() bool { return ss.MaxPhyOffset() > 0 })
			}
			before := ss.MaxPhyOffset()
			if _, err := conn.Write(c.send); err != nil {
				t.Fatal(err)
			}
			if c.name == "closed mid-frame" {
				_ = conn.(*net.TCPConn).CloseWrite()
			}
			if !closedBySlave(conn, 5*time.Second) {
				t.Fatal("the slave kept the connection")
			}
			eventually(t, 5*time.Second, "the reason in the log", func() bool { return lb.count(c.log) > 0 })
			_, off = fm.accept() // it comes back, from where it was
			if off != before || ss.MaxPhyOffset() != before {
				t.Fatalf("reconnected at %d, store at %d, was %d", off, ss.MaxPhyOffset(), before)
			}
			_ = s
		})
	}
}

// A master that sends nothing at all for HousekeepingInterval is given up on, and the
// slave reconnects.
func TestSlave_Housekeeping(t *testing.T) {
	ss := openStore(t, storeConfig(t.TempDir(), true))
	defer ss.Close()
	lb := &logBuf{}
	cfg := haConfig(lb)
	cfg.HeartbeatInterval = 50 * time.Millisecond
	cfg.HousekeepingInterval = 300 * time.Millisecond
	fm := listenFake(t)
	s := startSlave(t, ss, cfg, fm.ln.Addr().String())
	c, _ := fm.accept()
	eventually(t, 5*time.Second, "connected", s.Connected)
	if !closedBySlave(c, 5*time.Second) {
		t.Fatal("still connected")
	}
	eventually(t, 5*time.Second, "the reason in the log", func() bool { return lb.count("nothing read from the master for 300ms") == 1 })
	fm.accept()
}

// SetMasterAddr: no address, no connection; an address connects at once (not at the
// 5 s retry); a change while connected waits for the next connect, as in Java.
func TestSlave_SetMasterAddr(t *testing.T) {
	ss := openStore(t, storeConfig(t.TempDir(), true))
	defer ss.Close()
	s := NewSlave(ss, haConfig(nil)) // the real 5 s retry
	defer s.Close()
	s.Start()
	eventually(t, 5*time.Second, "the connect loop to wait for an address", func() bool { return s.pauses.Load() >= 1 })
	if s.Connected() || s.MasterAddr() != "" {
		t.Fatal("connected without an address")
	}
	a, b := listenFake(t), listenFake(t)
	began := time.Now()
	s.SetMasterAddr(a.ln.Addr().String())
	ca, _ := a.accept()
	if d := time.Since(began); d > 2*time.Second {
		t.Fatalf("connected after %v", d)
	}
	eventually(t, 5*time.Second, "connected", s.Connected)
	s.SetMasterAddr(b.ln.Addr().String())
	if s.MasterAddr() != b.ln.Addr().String() {
		t.Fatal("address not set")
	}
	time.Sleep(100 * time.Millisecond)
	if !s.Connected() {
		t.Fatal("an address change dropped the connection")
	}
	_ = ca.Close() // the old master goes away: the next connect is to the new one
	b.accept()
	eventually(t, 5*time.Second, "connected", s.Connected)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Connected() {
		t.Fatal("connected after Close")
	}
}

// Close interrupts a connect in progress and a wait for the retry.
func TestSlave_CloseWhileWaiting(t *testing.T) {
	ss := openStore(t, storeConfig(t.TempDir(), true))
	defer ss.Close()
	s := NewSlave(ss, haConfig(nil))
	s.SetMasterAddr("127.0.0.1:1") // refused: waits 5 s to retry
	s.Start()
	eventually(t, 5*time.Second, "the connect loop to wait for its retry", func() bool { return s.pauses.Load() >= 1 })
	began := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d > time.Second {
		t.Fatalf("Close took %v", d)
	}
}

// A connection lost while a record is half received: the held-back part is dropped,
// the slave reconnects reporting the record's start, and takes it again from there.
func TestSlave_RecordCutByReconnect(t *testing.T) {
	mdir, sdir := t.TempDir(), t.TempDir()
	ms := openStore(t, storeConfig(mdir, false))
	defer ms.Close()
	putN(t, ms, "TopicHA", 0, 50)
	end := ms.MaxPhyOffset()
	ss := openStore(t, storeConfig(sdir, true))
	defer ss.Close()
	s, pm := newPipeSlave(t, ss, haConfig(nil))
	s.SetMasterAddr("pipe")
	s.Start()
	c := pm.accept(t)
	ch := ms.CommitLogChunk(0)
	second := int(binary.BigEndian.Uint32(ch.Data)) // where the second record starts
	cut := second + 50                              // inside the second record
	if _, err := c.Write(appendFrame(nil, 0, ch.Data[:cut])); err != nil {
		t.Fatal(err)
	}
	ch.Release()
	eventually(t, 5*time.Second, "the first record", func() bool { return pm.last.Load() == int64(second) })
	if ss.MaxPhyOffset() != int64(second) {
		t.Fatalf("slave at %d, want %d: a partial record was stored", ss.MaxPhyOffset(), second)
	}
	_ = c.Close()
	c = pm.accept(t)
	eventually(t, 5*time.Second, "the report after reconnecting", func() bool { return pm.report.Load() >= 3 })
	if pm.last.Load() != int64(second) {
		t.Fatalf("reconnected at %d", pm.last.Load())
	}
	if _, err := c.Write(stream(t, ms, int64(second), end, 1000)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the end", func() bool { return pm.last.Load() == end })
	waitCaughtUp(t, ms, ss)
	sameCommitLog(t, mdir, sdir, 0, end)
	sameQueues(t, ms, ss, "TopicHA")
}
