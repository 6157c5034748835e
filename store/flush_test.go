package store

import (
	"errors"
	"sync"
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
