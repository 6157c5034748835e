package store

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestFlush_SyncFlush_WaitFlushed(t *testing.T) {
	c := testConfig(t)
	c.FlushDiskType = SyncFlush
	s := openStore(t, c)
	defer s.Close()
	r := mustPut(t, s, testMessage("T", 0, "durable", ""))
	end := r.WroteOffset + int64(r.WroteBytes)
	if err := s.WaitFlushed(end, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if s.FlushedOffset() < end {
		t.Fatalf("flushed %d < %d after WaitFlushed", s.FlushedOffset(), end)
	}
	if err := s.WaitFlushed(1<<40, 30*time.Millisecond); !errors.Is(err, ErrFlushTimeout) {
		t.Fatalf("unreachable offset: %v", err)
	}
}

// TestFlush_TimerTimesEachFlushThatWrote: the flush timer sees each CommitLog flush that
// advanced the flushed offset, with its duration, before the flush releases its waiters;
// a removed timer is not called.
func TestFlush_TimerTimesEachFlushThatWrote(t *testing.T) {
	c := testConfig(t)
	c.FlushDiskType = SyncFlush
	s := openStore(t, c)
	defer s.Close()
	var calls, total atomic.Int64
	s.SetFlushTimer(func(d time.Duration) { calls.Add(1); total.Add(int64(d)) })
	for i := 1; i <= 3; i++ {
		r := mustPut(t, s, testMessage("T", 0, "durable", ""))
		if err := s.WaitFlushed(r.WroteOffset+int64(r.WroteBytes), 5*time.Second); err != nil {
			t.Fatal(err)
		}
		// Each put waited for by itself needs a flush of its own; a flush with nothing
		// new to write (the 10 ms ticks in between) is not timed.
		if got := calls.Load(); got != int64(i) {
			t.Fatalf("after %d waited puts the timer was called %d times", i, got)
		}
	}
	if total.Load() <= 0 {
		t.Fatalf("flushes timed at %v in total", time.Duration(total.Load()))
	}
	s.SetFlushTimer(nil)
	r := mustPut(t, s, testMessage("T", 0, "durable", ""))
	if err := s.WaitFlushed(r.WroteOffset+int64(r.WroteBytes), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := calls.Load(); got != 3 {
		t.Fatalf("removed timer called: %d calls", got)
	}
}

func TestFlush_SyncFlush_GroupCommit(t *testing.T) {
	c := testConfig(t)
	c.FlushDiskType = SyncFlush
	c.MappedFileSizeCommitLog = 1 << 20
	s := openStore(t, c)
	defer s.Close()
	const writers, each = 16, 25
	before := s.cl.syncs.Load()
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				r, err := s.PutMessage(testMessage("T", 0, body(i), ""))
				if err == nil {
					err = s.WaitFlushed(r.WroteOffset+int64(r.WroteBytes), 5*time.Second)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	syncs := s.cl.syncs.Load() - before
	t.Logf("%d durable appends, %d msyncs", writers*each, syncs)
	if syncs >= writers*each {
		t.Fatalf("no group commit: %d msyncs for %d appends", syncs, writers*each)
	}
}

func TestFlush_AsyncFlush_Periodic(t *testing.T) {
	c := testConfig(t)
	c.FlushCommitLogLeastPages = 1
	s := openStore(t, c)
	defer s.Close()
	var end int64
	for i := 0; i < 60; i++ { // more than one page
		r := mustPut(t, s, testMessage("T", 0, body(i), ""))
		end = r.WroteOffset + int64(r.WroteBytes)
	}
	// The first pass flushes whatever is there (thorough); later passes whole pages.
	eventually(t, 5*time.Second, "async flush", func() bool { return s.FlushedOffset() >= end&^4095 })
	if err := s.WaitFlushed(end, 5*time.Second); err != nil { // WaitFlushed forces a full flush
		t.Fatal(err)
	}
}

// ASYNC_FLUSH on the mapped write path: between two flushes the flush service starts
// the writeback of the whole pages appended (writeback), never of the page still being
// filled, and that is not a flush: the flushed offset does not move.
func TestFlush_AsyncFlush_WritebackBetweenFlushes(t *testing.T) {
	c := testConfig(t)
	c.MappedFileSizeCommitLog = 1 << 20
	c.FlushInterval = time.Hour
	c.FlushCommitLogThoroughInterval = time.Hour
	s := openStore(t, c)
	defer s.Close()
	if s.wb == nil {
		t.Fatal("no writeback under ASYNC_FLUSH with a 1 h flush interval")
	}
	flushed := s.FlushedOffset()
	body := strings.Repeat("x", 1000)
	var end int64
	for i := 0; end < 100<<10; i++ {
		r := mustPut(t, s, testMessage("T", 0, body, ""))
		end = r.WroteOffset + int64(r.WroteBytes)
	}
	if end%osPageSize == 0 {
		mustPut(t, s, testMessage("T", 0, "partial", "")) // leave a page being filled
	}
	whole := s.cl.last().wrote.Load() &^ (osPageSize - 1)
	eventually(t, 5*time.Second, "the writeback to reach the last whole page", func() bool {
		return s.wb.from.Load() == whole
	})
	if got := s.FlushedOffset(); got != flushed {
		t.Fatalf("flushed offset moved from %d to %d without a flush", flushed, got)
	}
}

// The writeback applies only to ASYNC_FLUSH on the mapped write path with flushes
// further apart than its own interval.
func TestFlush_WritebackOnlyWhereItApplies(t *testing.T) {
	c := DefaultConfig(t.TempDir())
	if newWriteback(c, c.commitLogFD()) == nil {
		t.Error("default ASYNC_FLUSH config: no writeback")
	}
	for name, mod := range map[string]func(*Config){
		"SYNC_FLUSH":        func(c *Config) { c.FlushDiskType = SyncFlush },
		"descriptor writes": func(c *Config) { c.CommitLogWrite = CommitLogWriteFD },
		"disabled":          func(c *Config) { c.DisableWriteback = true },
		"10ms flushes":      func(c *Config) { c.FlushInterval = writebackInterval },
	} {
		c := DefaultConfig(t.TempDir())
		mod(&c)
		if newWriteback(c, c.commitLogFD()) != nil {
			t.Errorf("%s: writeback set up", name)
		}
	}
}
