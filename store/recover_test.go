package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

// copyDir copies a store directory (for recovery tests that start many times from the
// same crashed state).
func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// crashedStore writes n messages to TopicR/0 (with keys), then "kill -9"s the store.
func crashedStore(t testing.TB, c Config, n int) []PutResult {
	t.Helper()
	s := openStore(t, c)
	var rs []PutResult
	for i := 0; i < n; i++ {
		rs = append(rs, mustPut(t, s, testMessage("TopicR", 0, body(i), "KEYS\x01key"+body(i))))
	}
	waitDispatched(t, s)
	s.crashForTest()
	return rs
}

func clFile(c Config, offset int64) string {
	return filepath.Join(c.RootDir, "commitlog", fileName(offset-offset%c.MappedFileSizeCommitLog))
}

// zeroRange clears [from, to) of the CommitLog file holding from.
func zeroRange(t testing.TB, c Config, from, to int64) {
	t.Helper()
	f, err := os.OpenFile(clFile(c, from), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(make([]byte, to-from), from%c.MappedFileSizeCommitLog); err != nil {
		t.Fatal(err)
	}
}

func checkRecovered(t testing.TB, s *Store, want int, end int64) {
	t.Helper()
	if got := s.MaxPhyOffset(); got != end {
		t.Fatalf("max phy offset %d, want %d", got, end)
	}
	if got := s.MaxOffsetInQueue("TopicR", 0); got != int64(want) {
		t.Fatalf("consume queue max %d, want %d", got, want)
	}
	got := bodies(t, s, "TopicR", 0)
	if len(got) != want {
		t.Fatalf("%d messages readable, want %d", len(got), want)
	}
	for i, b := range got {
		if b != body(i) {
			t.Fatalf("message %d = %q", i, b)
		}
	}
	// The next put continues the queue where the recovered data ends.
	r := mustPut(t, s, testMessage("TopicR", 0, "next", ""))
	if r.WroteOffset != end || r.QueueOffset != int64(want) {
		t.Fatalf("next put at %d offset %d, want %d %d", r.WroteOffset, r.QueueOffset, end, want)
	}
}

func TestRecover_CleanRestart(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	var end int64
	for i := 0; i < 700; i++ { // two commitlog files
		r := mustPut(t, s, testMessage("TopicR", 0, body(i), ""))
		end = r.WroteOffset + int64(r.WroteBytes)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, c)
	defer s.Close()
	checkRecovered(t, s, 700, end)
}

func TestRecover_Abort_TornTailAtEveryPosition(t *testing.T) {
	base := testConfig(t)
	rs := crashedStore(t, base, 5)
	last := rs[len(rs)-1]
	start, end := last.WroteOffset, last.WroteOffset+int64(last.WroteBytes)
	// The record format has no checksum over the properties: a tear inside them alone
	// is invisible to Java's recovery and to ours. Everything before them is checked.
	propsStart := end - int64(len("KEYS\x01key"+body(4)))
	for cut := start; cut < end; cut++ {
		c := base
		c.RootDir = t.TempDir()
		c.CommitLogDir = ""
		copyDir(t, base.RootDir, c.RootDir)
		zeroRange(t, c, cut, end) // the tail from cut never reached the disk
		s := openStore(t, c)
		if cut < propsStart || s.MaxPhyOffset() != end {
			checkRecovered(t, s, 4, start)
		} else {
			checkRecovered(t, s, 5, end)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRecover_Abort_CorruptCRC(t *testing.T) {
	for _, checkCRC := range []bool{true, false} {
		c := testConfig(t)
		c.CheckCRCOnRecover = checkCRC
		rs := crashedStore(t, c, 6)
		// Flip a body byte of record 3: its CRC no longer matches.
		f, err := os.OpenFile(clFile(c, rs[3].WroteOffset), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		pos := rs[3].WroteOffset + 88
		b := make([]byte, 1)
		f.ReadAt(b, pos)
		b[0] ^= 0xFF
		f.WriteAt(b, pos)
		f.Close()
		s := openStore(t, c)
		if checkCRC {
			checkRecovered(t, s, 3, rs[3].WroteOffset)
		} else if s.MaxPhyOffset() != rs[5].WroteOffset+int64(rs[5].WroteBytes) {
			t.Fatalf("CRC not checked, but the log was cut at %d", s.MaxPhyOffset())
		}
		s.Close()
	}
}

func TestRecover_Normal_ConsumeQueueAheadOfCommitLog(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	var rs []PutResult
	for i := 0; i < 8; i++ {
		rs = append(rs, mustPut(t, s, testMessage("TopicR", 0, body(i), "")))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The last two records are lost (no abort file: a "clean" stop whose data vanished).
	zeroRange(t, c, rs[6].WroteOffset, rs[7].WroteOffset+int64(rs[7].WroteBytes))
	s = openStore(t, c)
	defer s.Close()
	checkRecovered(t, s, 6, rs[6].WroteOffset)
	waitDispatched(t, s)
	if u := s.ConsumeQueueUnits("TopicR", 0, 6, 5); len(u) != 1 || u[0].PhyOffset != rs[6].WroteOffset {
		t.Fatalf("units after truncation %+v", u) // only the "next" message put by checkRecovered
	}
}

func TestRecover_MissingIndex_Rebuilt(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	for i := 0; i < 20; i++ {
		mustPut(t, s, testMessage("TopicR", 0, body(i), "KEYS\x01key"+body(i)))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(c.RootDir, "index")); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, c)
	defer s.Close()
	for _, i := range []int{0, 7, 19} {
		q := s.QueryMessage("TopicR", "key"+body(i), 10, 0, 1<<62)
		if len(q.Buffers) != 1 {
			t.Fatalf("key %d: %d hits after the index was rebuilt", i, len(q.Buffers))
		}
		rec, _ := message.DecodeRecord(q.Buffers[0])
		if string(rec.Body) != body(i) {
			t.Fatalf("key %d found %q", i, rec.Body)
		}
		q.Release()
	}
	// Nothing is indexed twice: one more restart keeps one hit per key.
	s.Close()
	s = openStore(t, c)
	q := s.QueryMessage("TopicR", "key"+body(3), 10, 0, 1<<62)
	if len(q.Buffers) != 1 {
		t.Fatalf("after a second restart: %d hits", len(q.Buffers))
	}
	q.Release()
}

func TestRecover_MissingConsumeQueue_Rebuilt(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	for i := 0; i < 30; i++ {
		mustPut(t, s, testMessage("TopicR", 0, body(i), ""))
	}
	end := s.MaxPhyOffset()
	s.Close()
	if err := os.RemoveAll(filepath.Join(c.RootDir, "consumequeue")); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, c)
	defer s.Close()
	checkRecovered(t, s, 30, end)
}

func TestRecover_Abort_IndexAfterCheckpointDeletedAndRebuilt(t *testing.T) {
	c := testConfig(t)
	crashedStore(t, c, 40) // the checkpoint was never written: every index file is "after" it
	s := openStore(t, c)
	defer s.Close()
	q := s.QueryMessage("TopicR", "key"+body(39), 10, 0, 1<<62)
	defer q.Release()
	if len(q.Buffers) != 1 {
		t.Fatalf("%d hits", len(q.Buffers))
	}
}

// FuzzRecoverCommitLogTail writes arbitrary bytes after three valid records, restarts
// after a crash, and checks that the valid records survive, that everything kept
// decodes with a valid CRC, and that the store accepts puts again.
func FuzzRecoverCommitLogTail(f *testing.F) {
	f.Add([]byte{})                                     // clean end
	f.Add([]byte{0, 0, 0, 120, 0xDA, 0xA3, 0x20, 0xA7}) // a record header with nothing after it
	f.Add([]byte{0, 0, 0, 8, 0xCB, 0xD4, 0x31, 0x94})   // a blank in the middle of the file
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3})      // garbage size
	// One crashed store with three records is the template every input starts from.
	template := DefaultConfig(f.TempDir())
	template.MappedFileSizeCommitLog = 8 << 10
	template.MappedFileSizeConsumeQueue = 100 * cqUnitSize
	template.MaxHashSlotNum, template.MaxIndexNum = 16, 64
	rs := crashedStore(f, template, 3)
	end := rs[2].WroteOffset + int64(rs[2].WroteBytes)
	f.Fuzz(func(t *testing.T, tail []byte) {
		c := template
		c.RootDir, c.CommitLogDir = t.TempDir(), ""
		copyDir(t, template.RootDir, c.RootDir)
		if len(tail) > int(c.MappedFileSizeCommitLog-end) {
			tail = tail[:c.MappedFileSizeCommitLog-end]
		}
		fh, err := os.OpenFile(clFile(c, 0), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh.WriteAt(tail, end)
		fh.Close()
		s, err := Open(c)
		if err != nil {
			t.Fatalf("Open after a bad tail: %v", err)
		}
		defer s.Close()
		if s.MaxPhyOffset() < end {
			t.Fatalf("valid records lost: end %d < %d", s.MaxPhyOffset(), end)
		}
		data, release := s.CommitLogData(0)
		if data == nil {
			t.Fatal("no data")
		}
		err = message.WalkRecords(data, func(r *message.Record) bool {
			if !r.CRCValid() {
				t.Fatalf("kept a record with a bad CRC at %d", r.PhysicalOffset)
			}
			return true
		})
		release()
		// A blank ends a file's data: recovery carries on in the next file (the one the
		// store pre-created), as Java's recoverNormally does.
		if err != nil && !errors.Is(err, message.ErrBlank) {
			t.Fatalf("kept bytes do not decode: %v", err)
		}
		if got := bodies(t, s, "TopicR", 0); len(got) < 3 || got[0] != body(0) || got[2] != body(2) {
			t.Fatalf("messages %q", got)
		}
		mustPut(t, s, testMessage("TopicR", 0, "after", ""))
	})
}

// An empty newest CommitLog or ConsumeQueue file (Java creates a file before it maps it to
// its size; a crash in between leaves it empty, and Java's load then refuses to start) is
// removed with a warning, and the store opens with everything before it.
func TestRecover_EmptyNewestFile_Removed(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	for i := 0; i < 10; i++ {
		mustPut(t, s, testMessage("TopicE", 0, fmt.Sprintf("m%d", i), ""))
	}
	waitDispatched(t, s)
	maxPhy := s.MaxPhyOffset()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	empty := []string{
		filepath.Join(c.RootDir, "commitlog", fileName(c.MappedFileSizeCommitLog)),
		filepath.Join(c.RootDir, "consumequeue", "TopicE", "0", fileName(c.MappedFileSizeConsumeQueue)),
	}
	for _, p := range empty {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s = openStore(t, c)
	defer s.Close()
	// removed (the CommitLog's spare next file may be created again at once, whole)
	for _, p := range empty {
		if st, err := os.Stat(p); err == nil && st.Size() == 0 {
			t.Errorf("%s: still there, empty", p)
		}
	}
	if s.MaxPhyOffset() != maxPhy || s.MaxOffsetInQueue("TopicE", 0) != 10 {
		t.Fatalf("after the restart: commitlog end %d (want %d), queue max %d", s.MaxPhyOffset(), maxPhy, s.MaxOffsetInQueue("TopicE", 0))
	}
	mustPut(t, s, testMessage("TopicE", 0, "after", ""))
	waitDispatched(t, s)
	if s.MaxOffsetInQueue("TopicE", 0) != 11 {
		t.Fatalf("queue max %d after one more put", s.MaxOffsetInQueue("TopicE", 0))
	}
}

// A short newest file that is not empty may hold data: it is still refused, as in Java.
func TestRecover_ShortNewestFile_Refused(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	mustPut(t, s, testMessage("TopicE", 0, "m", ""))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.RootDir, "commitlog", fileName(c.MappedFileSizeCommitLog)), []byte{1, 2, 3}, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(c); !errors.Is(err, ErrFileSize) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Open: %v, want ErrFileSize", err)
	}
}

// A large index backlog after a crash is rebuilt after Open by the dispatch goroutine
// (indexInlineMax forces it here): new records put meanwhile are indexed after the
// backlog, every key is found exactly once when it has caught up, and a stop in the
// middle of the rebuild resumes it at the next start.
func TestRecover_IndexRebuiltInBackground(t *testing.T) {
	for _, stopEarly := range []bool{false, true} {
		t.Run(fmt.Sprintf("stopEarly=%v", stopEarly), func(t *testing.T) {
			c := testConfig(t)
			crashedStore(t, c, 300) // no checkpoint: every index file is deleted at Open
			c.indexInlineMax = 1
			gate := make(chan struct{})
			c.indexCatchUpHook = func() bool { // the rebuild waits until new records are dispatched
				select {
				case <-gate:
					return true
				case <-time.After(time.Millisecond):
					return false
				}
			}
			s := openStore(t, c)
			if s.indexCatchUp.Load() < 0 {
				t.Fatal("the index backlog was replayed inside Open")
			}
			for i := 300; i < 320; i++ {
				mustPut(t, s, testMessage("TopicR", 0, body(i), "KEYS\x01key"+body(i)))
			}
			waitDispatched(t, s)
			if s.IndexBehindBytes() == 0 {
				t.Fatal("IndexBehindBytes is 0 before the rebuild ran")
			}
			close(gate)
			if stopEarly {
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				c.indexInlineMax = 0
				s = openStore(t, c)
			}
			defer s.Close()
			waitDispatched(t, s)
			eventually(t, 10*time.Second, "index caught up", func() bool {
				return s.indexCatchUp.Load() < 0 && s.IndexBehindBytes() == 0
			})
			for i := 0; i < 320; i++ {
				q := s.QueryMessage("TopicR", "key"+body(i), 10, 0, 1<<62)
				n := len(q.Buffers)
				var got string
				if n == 1 {
					rec, _ := message.DecodeRecord(q.Buffers[0])
					got = string(rec.Body)
				}
				q.Release()
				if n != 1 || got != body(i) {
					t.Fatalf("key %d: %d hits (%q)", i, n, got)
				}
			}
		})
	}
}

// An index file that is exactly full at a clean stop: the restart re-dispatches the last
// indexed record, which must not go into a new file a second time.
func TestRecover_IndexFileFullAtStop_NoDuplicate(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	n := int(c.MaxIndexNum) - 1 // one key per message; entry 0 of a file is unused
	for i := 0; i < n; i++ {
		mustPut(t, s, testMessage("TopicR", 0, body(i), "KEYS\x01key"+body(i)))
	}
	waitDispatched(t, s)
	if f := s.index.last(); !f.full() || len(s.index.files) != 1 {
		t.Fatalf("setup: %d index files, last full %v", len(s.index.files), f.full())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, c)
	defer s.Close()
	waitDispatched(t, s)
	q := s.QueryMessage("TopicR", "key"+body(n-1), 10, 0, 1<<62)
	defer q.Release()
	if len(q.Buffers) != 1 {
		t.Fatalf("the last record of the full file: %d hits after a restart", len(q.Buffers))
	}
}
