package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// realBytes is what the file holds on disk (st_blocks), and its apparent size.
func realBytes(t *testing.T, path string) (real, size int64) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512, st.Size
}

// A ConsumeQueue file is created sparse with 16 KiB reserved and grows by fallocate ahead
// of the units; when a growth step finds the disk full, dispatch holds the puts (as for a
// file creation) and takes up where it stopped once space returns: no unit lost, none
// twice. After a restart the loaded file grows from its write position.
func TestConsumeQueue_LazyReserve_GrowsFailsAndResumes(t *testing.T) {
	c := testConfig(t)
	c.MappedFileSizeConsumeQueue = 30000 * cqUnitSize // 600,000 bytes
	c.MessageIndexEnable = false
	var full atomic.Bool
	var grows []int64 // offsets the ConsumeQueue reserved from
	c.fallocate = func(f *os.File, off, n int64) error {
		if strings.Contains(f.Name(), "consumequeue") {
			if full.Load() {
				return syscall.ENOSPC
			}
			grows = append(grows, off) // dispatcher goroutine only
		}
		return preallocate(f, off, n)
	}
	s := openStore(t, c)
	const first = 1000 // 20,000 bytes of units: past the first 16 KiB
	for i := 0; i < first; i++ {
		mustPut(t, s, testMessage("TopicL", 0, body(i), ""))
	}
	waitDispatched(t, s)
	path := filepath.Join(c.RootDir, "consumequeue", "TopicL", "0", fileName(0))
	real, size := realBytes(t, path)
	if size != c.MappedFileSizeConsumeQueue || real > 32<<10 {
		t.Fatalf("ConsumeQueue file: %d bytes on disk of %d, want whole size and <= 32 KiB", real, size)
	}
	if len(grows) != 2 || grows[0] != 0 || grows[1] != 16384 {
		t.Fatalf("reservations from %v, want [0 16384]", grows)
	}
	// Fill up to the reserved end (32 KiB = 1638 units), then the disk is full.
	n := first
	for ; n < 1638; n++ {
		mustPut(t, s, testMessage("TopicL", 0, body(n), ""))
	}
	waitDispatched(t, s)
	full.Store(true)
	eventually(t, 5*time.Second, "puts refused", func() bool {
		r, err := s.PutMessage(testMessage("TopicL", 0, body(n), ""))
		if err == nil {
			n++
			return false
		}
		if r.Status != PutServiceNotAvailable || !errors.Is(err, ErrServiceNotAvailable) {
			t.Fatalf("put: %v %v", r.Status, err)
		}
		return true
	})
	full.Store(false)
	eventually(t, 5*time.Second, "puts accepted", func() bool {
		_, err := s.PutMessage(testMessage("TopicL", 0, body(n), ""))
		return err == nil
	})
	n++
	waitDispatched(t, s)
	check := func(s *Store, want int) {
		t.Helper()
		got := bodies(t, s, "TopicL", 0)
		if len(got) != want {
			t.Fatalf("%d messages, want %d", len(got), want)
		}
		for i := range got {
			if got[i] != body(i) {
				t.Fatalf("message %d = %q", i, got[i])
			}
		}
	}
	check(s, n)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	grows = nil
	s = openStore(t, c)
	defer s.Close()
	check(s, n)
	for i := 0; i < 400; i++ {
		mustPut(t, s, testMessage("TopicL", 0, body(n), ""))
		n++
	}
	waitDispatched(t, s)
	check(s, n)
	if len(grows) == 0 || grows[0] < pageUp(int64(n-400)*cqUnitSize) {
		t.Fatalf("after the restart reservations from %v: the first must start past the loaded units", grows)
	}
	if real, _ := realBytes(t, path); real > 128<<10 {
		t.Fatalf("ConsumeQueue file holds %d bytes on disk for %d units", real, n)
	}
}

// An IndexFile reserves its header and slot table when created and its entries as they
// come; a new CommitLog file is pre-created only once the current one is half written.
func TestStore_IndexSparse_SpareOnlyWhenHalfFull(t *testing.T) {
	c := testConfig(t)
	c.MaxHashSlotNum = 1000
	c.MaxIndexNum = 100000 // 2 MB of entries
	s := openStore(t, c)
	defer s.Close()
	mustPut(t, s, testMessage("TopicI", 0, "x", "KEYS\x01k0"))
	waitDispatched(t, s)
	files := fileNames(t, filepath.Join(c.RootDir, "index"))
	if len(files) != 1 {
		t.Fatalf("index files %v", files)
	}
	real, size := realBytes(t, filepath.Join(c.RootDir, "index", files[0]))
	slots := int64(indexHeaderSize + c.MaxHashSlotNum*indexSlotSize)
	if size != int64(indexFileSize(c.MaxHashSlotNum, c.MaxIndexNum)) || real < slots || real > slots+32<<10 {
		t.Fatalf("index file %d bytes on disk of %d, want the slot table (%d) + at most 32 KiB", real, size, slots)
	}
	if s.cl.spareFile() != nil || len(fileNames(t, s.cfg.CommitLogDir)) != 1 {
		t.Fatalf("a next CommitLog file exists while the first holds one message: %v", fileNames(t, s.cfg.CommitLogDir))
	}
	for s.cl.last().wrote.Load() < c.MappedFileSizeCommitLog/2 {
		mustPut(t, s, testMessage("TopicI", 0, strings.Repeat("y", 1000), ""))
	}
	eventually(t, 5*time.Second, "the next CommitLog file pre-created", func() bool { return s.cl.spareFile() != nil })
	got := s.QueryMessage("TopicI", "k0", 32, 0, time.Now().UnixMilli()+1000)
	defer got.Release()
	if len(got.Buffers) != 1 {
		t.Fatalf("query k0: %d records", len(got.Buffers))
	}
}
