package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

// TestCommitLog_WritePaths_SameBytes: the same messages, single and batched, across
// several file roll-overs, give byte-identical CommitLog files through the mapping and
// through the descriptor, and read back the same.
func TestCommitLog_WritePaths_SameBytes(t *testing.T) {
	clock := time.UnixMilli(1_700_000_000_000)
	write := func(mode CommitLogWriteMode, flush FlushDiskType) (string, []string) {
		c := testConfig(t)
		c.now = func() time.Time { return clock }
		c.CommitLogWrite = mode
		c.FlushDiskType = flush
		s := openStore(t, c)
		if s.fdWrite != (mode == CommitLogWriteFD) {
			t.Fatalf("mode %v: fdWrite %v", mode, s.fdWrite)
		}
		var batch []byte
		for i := range 5 {
			batch = message.AppendBatchElement(batch, 0, []byte(body(1000+i)), []byte("TAGS\x01B"))
		}
		for i := range 800 { // 800 records of 200-400 bytes: several 64 KiB files
			m := testMessage("TopicW", int32(i%2), body(i)+string(bytes.Repeat([]byte{'x'}, i%200)), "TAGS\x01A")
			r := mustPut(t, s, m)
			if flush == SyncFlush {
				if err := s.WaitFlushed(r.WroteOffset+int64(r.WroteBytes), 5*time.Second); err != nil {
					t.Fatal(err)
				}
			}
			if i%50 == 0 {
				bm := testMessage("TopicW", 1, "", "")
				if _, err := s.PutMessages(bm, batch); err != nil {
					t.Fatal(err)
				}
			}
		}
		waitDispatched(t, s)
		got := append(bodies(t, s, "TopicW", 0), bodies(t, s, "TopicW", 1)...)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(c.RootDir, "commitlog"), got
	}
	mappedDir, mappedBodies := write(CommitLogWriteMapped, AsyncFlush)
	for _, flush := range []FlushDiskType{SyncFlush, AsyncFlush} {
		fdDir, fdBodies := write(CommitLogWriteFD, flush)
		names := fileNames(t, mappedDir)
		if len(names) < 3 || len(fileNames(t, fdDir)) != len(names) {
			t.Fatalf("files: mapped %v, fd %v (want the same, at least 3)", names, fileNames(t, fdDir))
		}
		for _, n := range names {
			a, err := os.ReadFile(filepath.Join(mappedDir, n))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(fdDir, n))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Fatalf("%s differs between the write paths (flush %v)", n, flush)
			}
		}
		if len(fdBodies) != len(mappedBodies) || len(fdBodies) < 800 {
			t.Fatalf("read back %d through fd, %d through the mapping", len(fdBodies), len(mappedBodies))
		}
	}
}

// TestCommitLog_FDWriteFailure_PublishesNothing: when pwrite fails the put answers
// PutUnknownError with ErrWrite and the CommitLog end does not move: no reader or
// dispatch ever sees the bytes.
func TestCommitLog_FDWriteFailure_PublishesNothing(t *testing.T) {
	c := testConfig(t)
	c.FlushDiskType = SyncFlush
	s := openStore(t, c)
	defer s.crashForTest()
	mustPut(t, s, testMessage("TopicF", 0, "first", ""))
	end := s.MaxPhyOffset()
	mf := s.cl.last()
	if mf.fd == nil {
		t.Fatal("SYNC_FLUSH file has no descriptor")
	}
	// Put a read-only descriptor of the same file under the file's descriptor number:
	// every later pwrite fails with EBADF, fdatasync still works.
	ro, err := os.Open(mf.path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := syscall.Dup3(int(ro.Fd()), mf.sysfd, syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, err := s.PutMessage(testMessage("TopicF", 0, "second", ""))
	if r.Status != PutUnknownError || !errors.Is(err, ErrWrite) {
		t.Fatalf("status %v err %v, want PutUnknownError / ErrWrite", r.Status, err)
	}
	if s.MaxPhyOffset() != end {
		t.Fatalf("end moved from %d to %d after a failed write", end, s.MaxPhyOffset())
	}
	waitDispatched(t, s)
	if got := bodies(t, s, "TopicF", 0); len(got) != 1 || got[0] != "first" {
		t.Fatalf("bodies %q", got)
	}
}

// TestStore_FDWrite_ConvertsUnwrittenExtentsAhead: on the descriptor write path the
// warmer writes zeros over the fallocated (unwritten) extents ahead of the write
// position of the first file, which no zero fill covered, so group commits do not pay
// the extent conversion; the records written meanwhile stay intact.
func TestStore_FDWrite_ConvertsUnwrittenExtentsAhead(t *testing.T) {
	c := testConfig(t)
	c.MappedFileSizeCommitLog = 8 << 20 // within the warmer's reach ahead
	c.FlushDiskType = SyncFlush
	s := openStore(t, c)
	defer s.Close()
	var last PutResult
	for i := range 200 {
		last = mustPut(t, s, testMessage("ConvertTopic", 0, body(i), ""))
	}
	if err := s.WaitFlushed(last.WroteOffset+int64(last.WroteBytes), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	mf := s.cl.last()
	if _, ok := hasUnwritten(mf.sysfd, 0, int64(mf.size)); !ok {
		t.Skip("the filesystem does not report extents (FIEMAP)")
	}
	eventually(t, 10*time.Second, "the extents ahead converted", func() bool {
		from := (mf.wrote.Load() + pageSize - 1) &^ (pageSize - 1)
		unwritten, _ := hasUnwritten(mf.sysfd, from, int64(mf.size)-from)
		return !unwritten && mf.zeroTo.Load() == int64(mf.size)
	})
	if s.warm.converted.Load() == 0 {
		t.Fatal("nothing converted: the file had no unwritten extents to begin with")
	}
	for i := range 200 {
		mustPut(t, s, testMessage("ConvertTopic", 0, body(200+i), ""))
	}
	waitDispatched(t, s)
	got := bodies(t, s, "ConvertTopic", 0)
	if len(got) != 400 {
		t.Fatalf("%d bodies", len(got))
	}
	for i, b := range got {
		if b != body(i) {
			t.Fatalf("body %d = %q", i, b)
		}
	}
}
