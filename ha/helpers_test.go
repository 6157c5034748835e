package ha

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
	"github.com/skyrocket-mq/skyrocket/store"
)

const testFileSize = 64 << 10 // mappedFileSizeCommitLog on both sides

// storeConfig is a small store in dir: 64 KiB CommitLog files, so a few hundred
// messages cross file boundaries.
func storeConfig(dir string, slave bool) store.Config {
	c := store.DefaultConfig(dir)
	c.MappedFileSizeCommitLog = testFileSize
	c.MappedFileSizeConsumeQueue = 1000 * 20
	c.MaxHashSlotNum = 256
	c.MaxIndexNum = 4096
	c.FlushInterval = 10 * time.Millisecond
	c.Slave = slave
	return c
}

func openStore(t testing.TB, c store.Config) *store.Store {
	t.Helper()
	s, err := store.Open(c)
	if err != nil {
		t.Fatalf("store.Open(%s): %v", c.RootDir, err)
	}
	return s
}

// logBuf collects a component's log lines for assertions.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuf) count(s string) int { return strings.Count(l.String(), s) }

// haConfig is DefaultConfig with a loopback listen address and a logger into lb
// (nil: Nop).
func haConfig(lb *logBuf) Config {
	c := DefaultConfig()
	c.ListenAddr = "127.0.0.1:0"
	if lb != nil {
		c.Log = zerolog.New(lb)
	}
	return c
}

func startMaster(t testing.TB, st *store.Store, cfg Config) *Master {
	t.Helper()
	m := NewMaster(st, cfg)
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func startSlave(t testing.TB, st *store.Store, cfg Config, masterAddr string) *Slave {
	t.Helper()
	s := NewSlave(st, cfg)
	s.retry = 50 * time.Millisecond
	s.SetMasterAddr(masterAddr)
	s.Start()
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var (
	bornHost  = netip.MustParseAddrPort("10.0.0.1:50000")
	storeHost = netip.MustParseAddrPort("127.0.0.1:10911")
)

func testMessage(topic string, queueID int32, body string) *message.Message {
	return &message.Message{
		Topic: topic, QueueID: queueID, Body: []byte(body), BornTimestamp: 1700000000000,
		BornHost: bornHost, StoreHost: storeHost, Properties: []byte("KEYS\x01k-" + body + "\x02"),
	}
}

func mustPut(t testing.TB, s *store.Store, m *message.Message) store.PutResult {
	t.Helper()
	r, err := s.PutMessage(m)
	if err != nil || r.Status != store.PutOK {
		t.Fatalf("PutMessage: %v %v", r.Status, err)
	}
	return r
}

// body is message i's body: a few hundred bytes of varying length.
func body(i int) string {
	return fmt.Sprintf("body-%06d-", i) + strings.Repeat("x", (i*37)%600)
}

// putN puts n messages numbered from first over queues 0..3 of topic.
func putN(t testing.TB, s *store.Store, topic string, first, n int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		mustPut(t, s, testMessage(topic, int32(i%4), body(i)))
	}
}

// eventually: conformance/testkit.Eventually.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, d, what, cond)
}

func waitCaughtUp(t testing.TB, master, slave *store.Store) {
	t.Helper()
	eventually(t, 15*time.Second, "the slave to catch up", func() bool {
		return slave.MaxPhyOffset() == master.MaxPhyOffset()
	})
	eventually(t, 5*time.Second, "dispatch", func() bool {
		return slave.DispatchBehindBytes() == 0 && master.DispatchBehindBytes() == 0
	})
}

// sameCommitLog checks that the slave's CommitLog files hold exactly the master's bytes
// over [from, to), reading the files from disk.
func sameCommitLog(t testing.TB, masterDir, slaveDir string, from, to int64) {
	t.Helper()
	if from >= to {
		t.Fatalf("empty range [%d, %d)", from, to)
	}
	for f := from - from%testFileSize; f < to; f += testFileSize {
		name := fmt.Sprintf("%020d", f)
		mb, err := os.ReadFile(filepath.Join(masterDir, "commitlog", name))
		if err != nil {
			t.Fatal(err)
		}
		sb, err := os.ReadFile(filepath.Join(slaveDir, "commitlog", name))
		if err != nil {
			t.Fatalf("slave lacks a file: %v", err)
		}
		lo, hi := max(from-f, 0), min(to-f, testFileSize)
		if !bytes.Equal(mb[lo:hi], sb[lo:hi]) {
			i := lo
			for mb[i] == sb[i] {
				i++
			}
			t.Fatalf("file %s differs at %d (offset %d)", name, i, f+i)
		}
	}
}

// bodies reads every message of a queue from its min offset.
func bodies(t testing.TB, s *store.Store, topic string, queueID int32) []string {
	t.Helper()
	var out []string
	for off := s.MinOffsetInQueue(topic, queueID); ; {
		r := s.GetMessage("g", topic, queueID, off, 32, nil)
		if r.Status != store.GetFound {
			r.Release()
			return out
		}
		for _, b := range r.Buffers {
			rec, err := message.DecodeRecord(b)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			out = append(out, string(rec.Body))
		}
		off = r.NextBeginOffset
		r.Release()
	}
}

// sameQueues checks that the slave serves each queue's messages as the master does:
// all of them, or (when the slave started later) the master's last ones.
func sameQueues(t testing.TB, master, slave *store.Store, topic string) {
	t.Helper()
	for q := int32(0); q < 4; q++ {
		m, s := bodies(t, master, topic, q), bodies(t, slave, topic, q)
		if len(s) == 0 || len(s) > len(m) {
			t.Fatalf("queue %d: slave has %d messages, master %d", q, len(s), len(m))
		}
		tail := m[len(m)-len(s):]
		for i := range s {
			if s[i] != tail[i] {
				t.Fatalf("queue %d message %d: slave %q, master %q", q, i, s[i], tail[i])
			}
		}
		if master.MaxOffsetInQueue(topic, q) != slave.MaxOffsetInQueue(topic, q) {
			t.Fatalf("queue %d: max offset master %d slave %d", q, master.MaxOffsetInQueue(topic, q), slave.MaxOffsetInQueue(topic, q))
		}
	}
}

// fakeSlave is a raw HA client for driving a master by hand.
type fakeSlave struct {
	t  testing.TB
	nc net.Conn
}

func dialFake(t testing.TB, addr string) *fakeSlave {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return &fakeSlave{t: t, nc: nc}
}

func (f *fakeSlave) report(v int64) {
	f.t.Helper()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v))
	f.write(b[:])
}

func (f *fakeSlave) write(b []byte) {
	f.t.Helper()
	if _, err := f.nc.Write(b); err != nil {
		f.t.Fatal(err)
	}
}

// frame reads one frame within d.
func (f *fakeSlave) frame(d time.Duration) (offset int64, body []byte, err error) {
	_ = f.nc.SetReadDeadline(time.Now().Add(d))
	var h [HeaderSize]byte
	if _, err := io.ReadFull(f.nc, h[:]); err != nil {
		return 0, nil, err
	}
	offset = int64(binary.BigEndian.Uint64(h[:]))
	body = make([]byte, binary.BigEndian.Uint32(h[8:]))
	_, err = io.ReadFull(f.nc, body)
	return offset, body, err
}

// closedWithin reports whether the master closes the connection within d (reading and
// dropping whatever it sends meanwhile).
func (f *fakeSlave) closedWithin(d time.Duration) bool {
	_ = f.nc.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, f.nc)
	return err == nil // io.Copy returns nil at EOF; a timeout is an error
}

// copyDir copies a store directory (files only, one level of subdirectories deep or
// more), as a crash would leave it: whatever the page cache holds at that moment.
func copyDir(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) { // deleted meanwhile (a .tmp renamed)
			return nil
		}
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
