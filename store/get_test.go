package store

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/compat"
)

type tagFilter int64

func (f tagFilter) MatchByConsumeQueue(code int64) bool { return code == int64(f) }
func (f tagFilter) MatchByCommitLog([]byte) bool        { return true }

type rejectRecords struct{}

func (rejectRecords) MatchByConsumeQueue(int64) bool { return true }
func (rejectRecords) MatchByCommitLog([]byte) bool   { return false }

// putN stores n messages in TopicG/0 and waits for dispatch.
func putN(t *testing.T, s *Store, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		mustPut(t, s, testMessage("TopicG", 0, body(i), "TAGS\x01TagA"))
	}
	waitDispatched(t, s)
}

func checkGet(t *testing.T, s *Store, offset int64, maxNums int, f Filter, status GetStatus, next int64, count int) {
	t.Helper()
	r := s.GetMessage("g", "TopicG", 0, offset, maxNums, f)
	defer r.Release()
	if r.Status != status || r.NextBeginOffset != next || len(r.Buffers) != count {
		t.Fatalf("offset %d: status %v next %d count %d; want %v %d %d", offset, r.Status, r.NextBeginOffset,
			len(r.Buffers), status, next, count)
	}
}

func TestGetMessage_NoMessageInQueue(t *testing.T) {
	s := openStore(t, testConfig(t))
	defer s.Close()
	// Java creates the missing queue on lookup, so an unknown queue is an empty one.
	checkGet(t, s, 5, 32, nil, GetNoMessageInQueue, 0, 0)
}

func TestGetMessage_Found_NextBeginOffset(t *testing.T) {
	s := openStore(t, testConfig(t))
	defer s.Close()
	putN(t, s, 10)
	checkGet(t, s, 2, 5, nil, GetFound, 7, 5)
	r := s.GetMessage("g", "TopicG", 0, 2, 5, nil)
	if r.MinOffset != 0 || r.MaxOffset != 10 || r.QueueOffsets[0] != 2 || r.QueueOffsets[4] != 6 || r.BufferTotalSize == 0 {
		t.Fatalf("result %+v", r)
	}
	r.Release()
}

func TestGetMessage_OffsetOverflowOne(t *testing.T) {
	s := openStore(t, testConfig(t))
	defer s.Close()
	putN(t, s, 3)
	checkGet(t, s, 3, 32, nil, GetOffsetOverflowOne, 3, 0)
}

func TestGetMessage_OffsetOverflowBadly(t *testing.T) {
	s := openStore(t, testConfig(t))
	defer s.Close()
	putN(t, s, 3)
	checkGet(t, s, 50, 32, nil, GetOffsetOverflowBadly, 3, 0)
}

func TestGetMessage_OffsetTooSmall(t *testing.T) {
	c := testConfig(t)
	c.DeleteCommitLogFilesInterval = time.Millisecond
	s := openStore(t, c)
	defer s.Close()
	putN(t, s, 1200) // 3 commitlog files
	s.ExecuteDeleteFilesManually()
	s.cfg.now = func() time.Time { return time.Now().Add(100 * time.Hour) }
	s.cleanFilesOnce()
	minOff := s.MinOffsetInQueue("TopicG", 0)
	if minOff == 0 {
		t.Fatal("no file expired")
	}
	checkGet(t, s, 0, 32, nil, GetOffsetTooSmall, minOff, 0)
	checkGet(t, s, minOff, 1, nil, GetFound, minOff+1, 1)
}

func TestGetMessage_NoMatchedMessage_ByTag(t *testing.T) {
	s := openStore(t, testConfig(t))
	defer s.Close()
	putN(t, s, 10)
	// Every unit was scanned and rejected: the consumer moves past them.
	checkGet(t, s, 0, 32, tagFilter(compat.JavaHashCode("TagB")), GetNoMatchedMessage, 10, 0)
	checkGet(t, s, 0, 32, tagFilter(compat.JavaHashCode("TagA")), GetFound, 10, 10)
}

func TestGetMessage_NoMatchedMessage_ByCommitLog(t *testing.T) {
	s := openStore(t, testConfig(t))
	defer s.Close()
	putN(t, s, 4)
	checkGet(t, s, 0, 32, rejectRecords{}, GetNoMatchedMessage, 4, 0)
}

func TestGetMessage_MessageWasRemoving(t *testing.T) {
	c := testConfig(t)
	c.DeleteCommitLogFilesInterval = time.Millisecond
	s := openStore(t, c)
	defer s.Close()
	putN(t, s, 1200)
	s.ExecuteDeleteFilesManually()
	s.cfg.now = func() time.Time { return time.Now().Add(100 * time.Hour) }
	s.deleteExpiredCommitLog() // the CommitLog files go, the ConsumeQueue is not cleaned yet
	r := s.GetMessage("g", "TopicG", 0, 0, 32, nil)
	defer r.Release()
	if r.Status != GetMessageWasRemoving || r.NextBeginOffset != 100 || len(r.Buffers) != 0 {
		t.Fatalf("status %v next %d count %d", r.Status, r.NextBeginOffset, len(r.Buffers))
	}
}

func TestGetMessage_OffsetFoundNull(t *testing.T) {
	s := openStore(t, testConfig(t))
	defer s.Close()
	putN(t, s, 250) // 3 consume queue files of 100 units
	cq := s.findCQ("TopicG", 0)
	files := cq.q.snapshot()
	cq.q.removeFiles(files[1:2]) // unit 150's file is gone, the min offset was not moved
	checkGet(t, s, 150, 32, nil, GetOffsetFoundNull, 200, 0)
}

func TestGetMessage_MaxMsgNumsZero_ReturnsFirstMessage(t *testing.T) {
	s := openStore(t, testConfig(t))
	defer s.Close()
	putN(t, s, 5)
	checkGet(t, s, 0, 0, nil, GetFound, 1, 1)
}

func TestGetMessage_TransferLimits(t *testing.T) {
	c := testConfig(t)
	c.MaxTransferCountOnMessageInMemory = 4
	s := openStore(t, c)
	defer s.Close()
	putN(t, s, 10)
	checkGet(t, s, 0, 32, nil, GetFound, 4, 4)
	s.cfg.MaxTransferCountOnMessageInMemory = 32
	s.cfg.MaxTransferBytesOnMessageInMemory = 300 // two ~130-byte records
	checkGet(t, s, 0, 32, nil, GetFound, 2, 2)
	s.cfg.AccessMessageInMemoryMaxRatio = 0 // everything counts as on disk: disk limits
	s.cfg.MaxTransferCountOnMessageInDisk = 3
	s.cfg.MaxTransferBytesOnMessageInDisk = 1 << 20
	checkGet(t, s, 0, 32, nil, GetFound, 3, 3)
	r := s.GetMessage("g", "TopicG", 0, 0, 1, nil)
	if !r.SuggestPullingFromSlave {
		t.Error("no slave suggestion with 0% in memory")
	}
	r.Release()
}

// Java's accessMessageInMemoryMaxRatio=0 is configured as a negative ratio (0 is the
// default 40) and must survive Open: every pull with a backlog suggests the slave.
func TestGetMessage_ZeroInMemoryRatio_SuggestsSlave(t *testing.T) {
	c := testConfig(t)
	c.AccessMessageInMemoryMaxRatio = -1
	s := openStore(t, c)
	defer s.Close()
	putN(t, s, 2)
	r := s.GetMessage("g", "TopicG", 0, 0, 1, nil)
	defer r.Release()
	if r.Status != GetFound || !r.SuggestPullingFromSlave {
		t.Fatalf("status %v, suggest slave %v: want FOUND and the slave suggested (ratio %d after Open)",
			r.Status, r.SuggestPullingFromSlave, s.cfg.AccessMessageInMemoryMaxRatio)
	}
}

func TestGetMessage_Slave_KeepsOffset(t *testing.T) {
	c := testConfig(t)
	c.Slave = true
	s := openStore(t, c)
	defer s.Close()
	checkGet(t, s, 7, 32, nil, GetNoMessageInQueue, 7, 0)
}

func TestGetMessage_ZeroCopy(t *testing.T) {
	s := openStore(t, testConfig(t))
	defer s.Close()
	putN(t, s, 2)
	r := s.GetMessage("g", "TopicG", 0, 0, 32, nil)
	defer r.Release()
	mf := s.cl.first()
	for _, b := range r.Buffers {
		if uintptrOf(b) < uintptrOf(mf.data) || uintptrOf(b) >= uintptrOf(mf.data)+uintptr(len(mf.data)) {
			t.Fatal("buffer is not a slice of the mapped file")
		}
	}
}

func TestStore_OffsetInQueueByTime(t *testing.T) {
	c := testConfig(t)
	base := time.UnixMilli(1700000000000)
	var clock time.Time
	c.now = func() time.Time { return clock }
	s := openStore(t, c)
	defer s.Close()
	for i := 0; i < 10; i++ {
		clock = base.Add(time.Duration(i) * time.Second) // store times base+0s ... base+9s
		mustPut(t, s, testMessage("TopicT", 0, body(i), ""))
	}
	waitDispatched(t, s)
	ms := base.UnixMilli()
	cases := []struct {
		ts   int64
		want int64
	}{
		{ms + 3000, 3},  // exact
		{ms + 3400, 3},  // closer to 3
		{ms + 3600, 4},  // closer to 4
		{ms - 5000, 0},  // before everything: the first
		{ms + 60000, 9}, // after everything: the last
		{ms + 9000, 9},  // exact last
		{ms + 1500, 1},  // a tie goes left (Java: > picks right only when strictly closer)
	}
	for _, c := range cases {
		if got := s.OffsetInQueueByTime("TopicT", 0, c.ts); got != c.want {
			t.Errorf("ts %+d: offset %d, want %d", c.ts-ms, got, c.want)
		}
	}
	if got := s.EarliestMessageTime("TopicT", 0); got != ms {
		t.Errorf("earliest %d", got)
	}
	if got := s.MessageStoreTimestamp("TopicT", 0, 4); got != ms+4000 {
		t.Errorf("store time of 4: %d", got)
	}
	if s.OffsetInQueueByTime("Nope", 0, ms) != 0 || s.EarliestMessageTime("Nope", 0) != -1 {
		t.Error("unknown queue answers")
	}
}

// A get of an offset a put already answered, made before the dispatcher reached it (here it
// is held creating another queue's first ConsumeQueue file), answers OFFSET_OVERFLOW_ONE at
// that offset, so the broker answers PULL_NOT_FOUND and the consumer keeps it; Java answers
// OFFSET_OVERFLOW_BADLY / NO_MESSAGE_IN_QUEUE (PULL_OFFSET_MOVED), and a Go lite pull
// consumer that sought there restarts the queue before it (issue 8). Past the puts, and once
// dispatched, the answers are Java's.
func TestGetMessage_PutButNotDispatched(t *testing.T) {
	c := testConfig(t)
	gate, held := make(chan struct{}), make(chan struct{})
	var heldOnce, gateOnce sync.Once
	c.fallocate = func(f *os.File, off, n int64) error {
		if strings.Contains(f.Name(), filepath.Join("consumequeue", "TopicG", "1")) {
			heldOnce.Do(func() { close(held) })
			<-gate
		}
		return preallocate(f, off, n)
	}
	s := openStore(t, c)
	defer s.Close()
	open := func() { gateOnce.Do(func() { close(gate) }) }
	defer open() // before Close, which waits for the dispatcher
	mustPut(t, s, testMessage("TopicG", 0, body(0), ""))
	waitDispatched(t, s)
	mustPut(t, s, testMessage("TopicG", 1, body(0), ""))
	<-held
	for i := 1; i < 5; i++ {
		mustPut(t, s, testMessage("TopicG", 0, body(i), ""))
	}
	if got := s.MaxOffsetInQueue("TopicG", 0); got != 1 {
		t.Fatalf("max offset of queue 0 while dispatch is held: %d, want 1", got)
	}
	checkGet(t, s, 2, 32, nil, GetOffsetOverflowOne, 2, 0) // Java: OFFSET_OVERFLOW_BADLY, next 1
	checkGet(t, s, 5, 32, nil, GetOffsetOverflowOne, 5, 0)
	checkGet(t, s, 6, 32, nil, GetOffsetOverflowBadly, 1, 0) // never put: Java's answer
	checkGet(t, s, 0, 32, nil, GetFound, 1, 1)
	for _, c := range []struct {
		offset, next int64
		status       GetStatus
	}{{1, 1, GetOffsetOverflowOne}, {3, 0, GetNoMessageInQueue}} { // queue 1: no ConsumeQueue yet
		r := s.GetMessage("g", "TopicG", 1, c.offset, 32, nil)
		if r.Status != c.status || r.NextBeginOffset != c.next {
			t.Fatalf("queue 1 offset %d: %v next %d, want %v %d", c.offset, r.Status, r.NextBeginOffset, c.status, c.next)
		}
		r.Release()
	}
	open()
	waitDispatched(t, s)
	checkGet(t, s, 2, 32, nil, GetFound, 5, 3)
	checkGet(t, s, 6, 32, nil, GetOffsetOverflowBadly, 5, 0)
}
