package store

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
)

// testConfig is a small store: 64 KiB CommitLog files, 100-unit ConsumeQueue files and
// a tiny index, so rollover and cleanup happen after a few messages.
func testConfig(t testing.TB) Config {
	t.Helper()
	c := DefaultConfig(t.TempDir())
	c.MappedFileSizeCommitLog = 64 << 10
	c.MappedFileSizeConsumeQueue = 100 * cqUnitSize
	c.MaxHashSlotNum = 64
	c.MaxIndexNum = 256
	c.FlushInterval = 10 * time.Millisecond
	return c
}

func openStore(t testing.TB, c Config) *Store {
	t.Helper()
	s, err := Open(c)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func testMessage(topic string, queueID int32, body string, props string) *message.Message {
	return &message.Message{
		Topic:         topic,
		QueueID:       queueID,
		Body:          []byte(body),
		BornTimestamp: 1700000000000,
		BornHost:      netip.MustParseAddrPort("10.0.0.1:50000"),
		StoreHost:     netip.MustParseAddrPort("127.0.0.1:10911"),
		Properties:    []byte(props),
	}
}

func mustPut(t testing.TB, s *Store, m *message.Message) PutResult {
	t.Helper()
	r, err := s.PutMessage(m)
	if err != nil || r.Status != PutOK {
		t.Fatalf("PutMessage: %v %v", r.Status, err)
	}
	return r
}

// eventually: conformance/testkit.Eventually.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, d, what, cond)
}

func waitDispatched(t testing.TB, s *Store) {
	t.Helper()
	eventually(t, 5*time.Second, "dispatch", func() bool { return s.DispatchBehindBytes() == 0 })
}

// bodies reads every message of a queue from offset 0.
func bodies(t testing.TB, s *Store, topic string, queueID int32) []string {
	t.Helper()
	var out []string
	for off := int64(0); ; {
		r := s.GetMessage("g", topic, queueID, off, 32, nil)
		if r.Status != GetFound {
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

func fileNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func touchAbort(t testing.TB, c Config) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(c.RootDir, "abort"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func body(i int) string { return fmt.Sprintf("body-%04d", i) }

// crashForTest stops the services and drops everything without flushing, removing the
// abort file or writing the checkpoint: what a kill -9 leaves (the page cache keeps
// what was written to the mappings).
func (s *Store) crashForTest() {
	if !s.closed.CompareAndSwap(false, true) {
		return
	}
	close(s.stop)
	s.wg.Wait()
	_ = syscall.Munmap(s.ckpt.data)
	s.releaseAll()
}
