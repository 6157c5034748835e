package store

import (
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestStore_FullDisk_CreateFailsCleanlyAndRecovers(t *testing.T) {
	c := testConfig(t)
	c.MappedFileSizeConsumeQueue = 2000 * cqUnitSize // one ConsumeQueue file
	var full atomic.Bool
	c.fallocate = func(f *os.File, off, n int64) error {
		if full.Load() && strings.Contains(f.Name(), "commitlog") { // the ConsumeQueue reserves as it grows
			return syscall.ENOSPC
		}
		return preallocate(f, off, n)
	}
	s := openStore(t, c)
	defer s.Close()
	var stored []string
	var failed int
	// The next file is pre-created in the background once the first is half full, so once
	// the disk is full the store still fills that one before a creation fails.
	for i := 0; i < 3000; i++ {
		if i == 300 {
			waitDispatched(t, s)
			full.Store(true) // the disk fills up while the first file is being written
		}
		r, err := s.PutMessage(testMessage("TopicF", 0, body(i), ""))
		switch {
		case err == nil:
			stored = append(stored, body(i))
		case r.Status == PutCreateMappedFileFailed && errors.Is(err, ErrCreateMappedFile) && errors.Is(err, syscall.ENOSPC):
			failed++
		default:
			t.Fatalf("put %d: %v %v", i, r.Status, err)
		}
	}
	if failed == 0 || len(stored) < 300 {
		t.Fatalf("stored %d, failed %d", len(stored), failed)
	}
	for _, n := range fileNames(t, c.RootDir+"/commitlog") {
		if len(n) != 20 {
			t.Fatalf("leftover file %q after failed creations", n)
		}
	}
	full.Store(false) // space returns: the next put creates the file
	r := mustPut(t, s, testMessage("TopicF", 0, "after", ""))
	if r.WroteOffset < c.MappedFileSizeCommitLog || r.QueueOffset != int64(len(stored)) {
		t.Fatalf("put after recovery at %d, queue offset %d", r.WroteOffset, r.QueueOffset)
	}
	waitDispatched(t, s)
	got := bodies(t, s, "TopicF", 0)
	if len(got) != len(stored)+1 || got[len(got)-1] != "after" {
		t.Fatalf("after recovery %d messages, want %d", len(got), len(stored)+1)
	}
	for i := range stored {
		if got[i] != stored[i] {
			t.Fatalf("message %d = %q, want %q", i, got[i], stored[i])
		}
	}
}

func TestStore_FullDisk_ConsumeQueueFileFails_PutsHeldUntilSpace(t *testing.T) {
	c := testConfig(t) // 100-unit ConsumeQueue files
	var full atomic.Bool
	c.fallocate = func(f *os.File, off, n int64) error {
		if full.Load() && strings.Contains(f.Name(), "consumequeue") {
			return syscall.ENOSPC
		}
		return preallocate(f, off, n)
	}
	s := openStore(t, c)
	defer s.Close()
	for i := 0; i < 100; i++ {
		mustPut(t, s, testMessage("TopicF", 0, body(i), ""))
	}
	waitDispatched(t, s)
	full.Store(true)
	// Stored; its unit needs a new ConsumeQueue file. Puts are accepted until dispatch
	// finds out, then refused.
	n := 100
	eventually(t, 5*time.Second, "puts refused", func() bool {
		r, err := s.PutMessage(testMessage("TopicF", 0, body(n), ""))
		if err == nil {
			n++
			return false
		}
		if r.Status != PutServiceNotAvailable || !errors.Is(err, ErrServiceNotAvailable) {
			t.Fatalf("put: %v %v", r.Status, err)
		}
		return true
	})
	full.Store(false) // dispatch retries every second, then puts are accepted again
	eventually(t, 5*time.Second, "puts accepted", func() bool {
		_, err := s.PutMessage(testMessage("TopicF", 0, body(n), ""))
		return err == nil
	})
	waitDispatched(t, s)
	got := bodies(t, s, "TopicF", 0)
	if len(got) != n+1 {
		t.Fatalf("%d messages after space returned, want %d", len(got), n+1)
	}
	for i := range got {
		if got[i] != body(i) {
			t.Fatalf("message %d = %q", i, got[i])
		}
	}
}

func TestStore_DiskRatio_MarksFullAndBack(t *testing.T) {
	c := testConfig(t)
	var ratio atomic.Value
	ratio.Store(0.5)
	c.diskUsedRatio = func(string) float64 { return ratio.Load().(float64) }
	s := openStore(t, c)
	defer s.Close()
	mustPut(t, s, testMessage("T", 0, "a", ""))
	ratio.Store(0.95)
	s.checkDiskSpace()
	if r, err := s.PutMessage(testMessage("T", 0, "b", "")); r.Status != PutServiceNotAvailable || !errors.Is(err, ErrServiceNotAvailable) {
		t.Fatalf("disk full put: %v %v", r.Status, err)
	}
	ratio.Store(0.5)
	s.checkDiskSpace()
	mustPut(t, s, testMessage("T", 0, "c", ""))
}

func TestClean_ExpiredFiles_FakeClock_PutsNotBlocked(t *testing.T) {
	c := testConfig(t)
	c.DeleteCommitLogFilesInterval = 5 * time.Millisecond
	var now atomic.Value
	now.Store(time.Now())
	c.now = func() time.Time { return now.Load().(time.Time) }
	c.DeleteWhen = "99"               // never the hour: only expiry by time + deleteWhen below
	c.DisableFilePreAllocation = true // the test counts the files in the directory
	s := openStore(t, c)
	defer s.Close()
	for i := 0; i < 2500; i++ { // 5+ commitlog files
		mustPut(t, s, testMessage("TopicE", 0, body(i), "KEYS\x01k"+body(i)))
	}
	waitDispatched(t, s)
	filesBefore := len(fileNames(t, c.RootDir+"/commitlog"))

	// Not old enough: the hour matches but fileReservedTime has not passed.
	s.cfg.DeleteWhen = itoa(now.Load().(time.Time).Hour())
	s.cleanFilesOnce()
	if n := len(fileNames(t, c.RootDir+"/commitlog")); n != filesBefore {
		t.Fatalf("deleted young files: %d -> %d", filesBefore, n)
	}

	later := now.Load().(time.Time).Add(73 * time.Hour)
	now.Store(later)
	s.cfg.DeleteWhen = itoa(later.Hour())
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var puts atomic.Int64
	var slowest atomic.Int64
	wg.Add(1)
	go func() { // a producer that keeps appending during the deletion
		defer wg.Done()
		for i := 0; i < 2000; i++ {
			select {
			case <-stop:
				return
			default:
			}
			begin := time.Now()
			if _, err := s.PutMessage(testMessage("TopicE", 0, "during", "")); err != nil {
				t.Error(err)
				return
			}
			storeMax(&slowest, time.Since(begin).Microseconds())
			puts.Add(1)
		}
	}()
	s.cleanFilesOnce()
	close(stop)
	wg.Wait()
	after := fileNames(t, c.RootDir+"/commitlog")
	if after[0] < fileName(int64(filesBefore-1)*c.MappedFileSizeCommitLog) {
		t.Fatalf("files before %d, after %v", filesBefore, after)
	}
	t.Logf("%d puts during cleanup, slowest %d µs", puts.Load(), slowest.Load())
	if slowest.Load() > int64(time.Second/time.Microsecond) {
		t.Fatalf("a put waited %d µs during cleanup", slowest.Load())
	}
	minPhy := s.MinPhyOffset()
	if minPhy <= 0 || s.MinOffsetInQueue("TopicE", 0) == 0 {
		t.Fatalf("min phy %d, min queue offset %d", minPhy, s.MinOffsetInQueue("TopicE", 0))
	}
	// The consume queue and index files that only pointed into deleted files went too.
	if names := fileNames(t, c.RootDir+"/consumequeue/TopicE/0"); names[0] == "00000000000000000000" {
		t.Fatalf("first consume queue file kept: %v", names)
	}
	q := s.QueryMessage("TopicE", "k"+body(0), 10, 0, 1<<62)
	if len(q.Buffers) != 0 {
		t.Fatalf("expired message still found by key")
	}
	q.Release()
}

func itoa(h int) string { return string([]byte{byte('0' + h/10), byte('0' + h%10)}) }

func TestStore_DeleteTopics_And_CleanUnused(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	defer s.Close()
	for _, topic := range []string{"A", "B", "C", scheduleTopic} {
		mustPut(t, s, testMessage(topic, 0, "x", ""))
	}
	waitDispatched(t, s)
	if n := s.DeleteTopics([]string{"A"}); n != 1 {
		t.Fatalf("deleted %d queues", n)
	}
	if _, err := os.Stat(c.RootDir + "/consumequeue/A/0"); !os.IsNotExist(err) {
		t.Fatalf("queue dir of A still there: %v", err)
	}
	if n := s.CleanUnusedTopics(map[string]bool{"B": true}); n != 1 { // C goes, the schedule topic stays
		t.Fatalf("cleaned %d queues", n)
	}
	if got := s.Topics(); len(got) != 2 || got[0] != "B" || got[1] != scheduleTopic {
		t.Fatalf("topics %v", got)
	}
	// A deleted topic's queue restarts at 0 when used again.
	if r := mustPut(t, s, testMessage("A", 0, "y", "")); r.QueueOffset != 0 {
		t.Fatalf("queue offset %d", r.QueueOffset)
	}
	waitDispatched(t, s)
	if got := bodies(t, s, "A", 0); len(got) != 1 || got[0] != "y" {
		t.Fatalf("A after re-creation: %v", got)
	}
}
