package ha

import (
	"errors"
	"math/rand"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/store"
)

// Concurrent puts on the master while the slave follows from an empty store that
// connected before the first put: everything, across several file boundaries.
func TestReplicate_ConcurrentPuts_AcrossFiles(t *testing.T) {
	mdir, sdir := t.TempDir(), t.TempDir()
	ms := openStore(t, storeConfig(mdir, false))
	defer ms.Close()
	ss := openStore(t, storeConfig(sdir, true))
	defer ss.Close()
	m := startMaster(t, ms, haConfig(nil))
	s := startSlave(t, ss, haConfig(nil), m.Addr())
	waitFollowing(t, m, 1)

	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				mustPut(t, ms, testMessage("TopicHA", int32(w), body(w*1000+i)))
				if i%50 == 0 {
					m.WakeTransfer()
				}
			}
		}(w)
	}
	wg.Wait()
	if ms.MaxPhyOffset() < 3*testFileSize {
		t.Fatalf("only %d bytes: no file boundaries crossed", ms.MaxPhyOffset())
	}
	waitCaughtUp(t, ms, ss)
	eventually(t, 5*time.Second, "the ack of the end", func() bool { return m.AckedOffset() == ms.MaxPhyOffset() })
	if !s.Connected() || ss.MinPhyOffset() != 0 {
		t.Fatalf("connected %v, slave min %d", s.Connected(), ss.MinPhyOffset())
	}
	sameCommitLog(t, mdir, sdir, 0, ms.MaxPhyOffset())
	sameQueues(t, ms, ss, "TopicHA")
	if got := bodies(t, ss, "TopicHA", 2); len(got) != 300 {
		t.Fatalf("queue 2 on the slave: %d messages", len(got))
	}
	if qr := ss.QueryMessage("TopicHA", "k-"+body(3007), 4, 0, 1<<62); len(qr.Buffers) != 1 {
		t.Fatalf("slave index: %d hits", len(qr.Buffers))
	} else {
		qr.Release()
	}
}

// An empty slave joining a master with history gets the master's newest file only, from
// its start (Java), and serves the messages stored from there.
func TestReplicate_EmptySlave_StartsAtNewestFile(t *testing.T) {
	mdir, sdir := t.TempDir(), t.TempDir()
	ms := openStore(t, storeConfig(mdir, false))
	defer ms.Close()
	putN(t, ms, "TopicHA", 0, 700)
	newest := ms.MaxPhyOffset() - ms.MaxPhyOffset()%testFileSize
	if newest < 2*testFileSize {
		t.Fatalf("newest file at %d", newest)
	}
	m := startMaster(t, ms, haConfig(nil))
	ss := openStore(t, storeConfig(sdir, true))
	defer ss.Close()
	startSlave(t, ss, haConfig(nil), m.Addr())
	waitCaughtUp(t, ms, ss)
	if ss.MinPhyOffset() != newest {
		t.Fatalf("slave starts at %d, want %d", ss.MinPhyOffset(), newest)
	}
	putN(t, ms, "TopicHA", 700, 300) // and follows on, into the next files
	waitCaughtUp(t, ms, ss)
	sameCommitLog(t, mdir, sdir, newest, ms.MaxPhyOffset())
	sameQueues(t, ms, ss, "TopicHA")
}

// A slave restarted (store closed and reopened) resumes from its own end.
func TestReplicate_SlaveRestart_Resumes(t *testing.T) {
	mdir, sdir := t.TempDir(), t.TempDir()
	ms := openStore(t, storeConfig(mdir, false))
	defer ms.Close()
	lb := &logBuf{}
	m := startMaster(t, ms, haConfig(lb))
	ss := openStore(t, storeConfig(sdir, true))
	s := startSlave(t, ss, haConfig(nil), m.Addr())
	waitFollowing(t, m, 1)
	putN(t, ms, "TopicHA", 0, 400)
	waitCaughtUp(t, ms, ss)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ss.Close(); err != nil {
		t.Fatal(err)
	}
	stopped := ms.MaxPhyOffset()
	putN(t, ms, "TopicHA", 400, 400)

	ss = openStore(t, storeConfig(sdir, true))
	defer ss.Close()
	if ss.MaxPhyOffset() != stopped {
		t.Fatalf("slave reopened at %d, stopped at %d", ss.MaxPhyOffset(), stopped)
	}
	startSlave(t, ss, haConfig(nil), m.Addr())
	waitCaughtUp(t, ms, ss)
	sameCommitLog(t, mdir, sdir, 0, ms.MaxPhyOffset())
	sameQueues(t, ms, ss, "TopicHA")
	if n := lb.count(`"offset":` + itoa(stopped) + `,"message":"ha: transfer starts"`); n != 1 {
		t.Fatalf("transfer from %d started %d times; log:\n%s", stopped, n, lb)
	}
}

// The master restarts on the same address: the slave reconnects and goes on; the new
// Master's AckedOffset starts at 0 and rises with the slave's first report.
func TestReplicate_MasterRestart(t *testing.T) {
	mdir, sdir := t.TempDir(), t.TempDir()
	ms := openStore(t, storeConfig(mdir, false))
	m := NewMaster(ms, haConfig(nil))
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	addr := m.Addr()
	ss := openStore(t, storeConfig(sdir, true))
	defer ss.Close()
	s := startSlave(t, ss, haConfig(nil), addr)
	waitFollowing(t, m, 1)
	putN(t, ms, "TopicHA", 0, 300)
	waitCaughtUp(t, ms, ss)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ms.Close(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the slave to notice", func() bool { return !s.Connected() })

	ms = openStore(t, storeConfig(mdir, false))
	defer ms.Close()
	putN(t, ms, "TopicHA", 300, 300)
	cfg := haConfig(nil)
	cfg.ListenAddr = addr
	m = NewMaster(ms, cfg)
	if m.AckedOffset() != 0 || m.SlaveOK(1) {
		t.Fatalf("fresh master: acked %d, slave ok %v", m.AckedOffset(), m.SlaveOK(1))
	}
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err = m.Start(); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	waitCaughtUp(t, ms, ss)
	eventually(t, 5*time.Second, "acks", func() bool { return m.AckedOffset() == ms.MaxPhyOffset() })
	sameCommitLog(t, mdir, sdir, 0, ms.MaxPhyOffset())
	sameQueues(t, ms, ss, "TopicHA")
}

// A slave killed while appending recovers to its last whole record and resumes from
// there without a gap: (1) its directory copied, as a kill -9 leaves it (abort file
// present), between two appends while puts and the stream go on, so ConsumeQueues,
// index and checkpoint are caught mid-flight; (2) a chunk of whole records and part of
// the next one's body written by a crash in the middle of an append.
func TestReplicate_TornAppend_Recovered(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	mdir, sdir := t.TempDir(), t.TempDir()
	ms := openStore(t, storeConfig(mdir, false))
	defer ms.Close()
	m := startMaster(t, ms, haConfig(nil))
	ss := openStore(t, storeConfig(sdir, true))
	defer ss.Close()
	s := NewSlave(ss, haConfig(nil))
	crash1 := t.TempDir()
	snapAt := int64(3 + r.Intn(20))
	var appends atomic.Int64
	s.appended = func() {
		if appends.Add(1) == snapAt {
			copyDir(t, sdir, crash1)
		}
	}
	s.SetMasterAddr(m.Addr())
	s.Start()
	defer s.Close()
	waitFollowing(t, m, 1)
	// Many small appends on the slave: batches of 20 with a pause between them, at least
	// 600 records, and on until the slave has made the snapshot's append (a slow or
	// loaded run can take several batches in one append: 21 appends seen for 30 batches).
	n := 0
	deadline := time.Now().Add(20 * time.Second)
	for n < 600 || appends.Load() < snapAt {
		if time.Now().After(deadline) {
			t.Fatalf("only %d appends after %d records", appends.Load(), n)
		}
		putN(t, ms, "TopicHA", n, 20)
		n += 20
		time.Sleep(time.Millisecond)
		if n >= 600 && appends.Load() < snapAt {
			waitCaughtUp(t, ms, ss) // let the slave append what it has before another batch
		}
	}
	waitCaughtUp(t, ms, ss)

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	putN(t, ms, "TopicHA", n, 5)
	end := ss.MaxPhyOffset()
	ch := ms.CommitLogChunk(end)
	// Cut inside the body of a record after the first: the whole ones before it are
	// written, the torn one must go.
	var recs []int
	for pos := 0; pos < len(ch.Data); {
		rec, err := message.DecodeRecord(ch.Data[pos:])
		if err != nil {
			break
		}
		recs = append(recs, pos)
		pos += int(rec.StoreSize)
	}
	if len(recs) < 3 {
		t.Fatalf("%d records after %d", len(recs), end)
	}
	torn := recs[1+r.Intn(len(recs)-2)]
	rec, _ := message.DecodeRecord(ch.Data[torn:])
	bodyAt := int(rec.StoreSize) - len(rec.Properties) - 2 - len(rec.Topic) - 1 - len(rec.Body)
	cut := torn + bodyAt + r.Intn(len(rec.Body))
	if err := ss.AppendToCommitLog(end, append([]byte(nil), ch.Data[:cut]...)); err != nil {
		t.Fatal(err)
	}
	ch.Release()
	crash2 := t.TempDir()
	copyDir(t, sdir, crash2)

	for i, dir := range []string{crash1, crash2} {
		cs := openStore(t, storeConfig(dir, true))
		t.Logf("copy %d recovered to %d", i+1, cs.MaxPhyOffset())
		if i == 1 && cs.MaxPhyOffset() != end+int64(torn) {
			t.Fatalf("copy 2 recovered to %d, want the torn record's start %d", cs.MaxPhyOffset(), end+int64(torn))
		}
		sl := startSlave(t, cs, haConfig(nil), m.Addr())
		putN(t, ms, "TopicHA", n+5+10*i, 10)
		waitCaughtUp(t, ms, cs)
		sameCommitLog(t, mdir, dir, 0, ms.MaxPhyOffset())
		sameQueues(t, ms, cs, "TopicHA")
		_ = sl.Close()
		_ = cs.Close()
	}
}

// The master needs data it no longer has (the slave is behind the oldest file): it
// heartbeats, as Java, and says so once.
func TestMaster_SlaveBehindOldestFile_HeartbeatsAndLogsOnce(t *testing.T) {
	src := openStore(t, storeConfig(t.TempDir(), false))
	defer src.Close()
	putN(t, src, "TopicHA", 0, 400)
	// A master whose CommitLog starts at its third file.
	ms := openStore(t, storeConfig(t.TempDir(), false))
	defer ms.Close()
	for off := int64(2 * testFileSize); off < src.MaxPhyOffset(); {
		ch := src.CommitLogChunk(off)
		if err := ms.AppendToCommitLog(off, append([]byte(nil), ch.Data...)); err != nil {
			t.Fatal(err)
		}
		off += int64(len(ch.Data))
		ch.Release()
	}
	lb := &logBuf{}
	cfg := haConfig(lb)
	cfg.HeartbeatInterval = 50 * time.Millisecond
	m := startMaster(t, ms, cfg)
	f := dialFake(t, m.Addr())
	f.report(testFileSize) // inside the deleted range
	for i := 0; i < 3; i++ {
		off, b, err := f.frame(5 * time.Second)
		if err != nil || off != testFileSize || len(b) != 0 {
			t.Fatalf("frame %d: offset %d, %d bytes, %v", i, off, len(b), err)
		}
	}
	if n := lb.count("deleted here"); n != 1 {
		t.Fatalf("logged %d times:\n%s", n, lb)
	}
}

// waitFollowing waits until n connections have sent their first report.
func waitFollowing(t testing.TB, m *Master, n int) {
	t.Helper()
	eventually(t, 5*time.Second, "slaves' first reports", func() bool {
		k := 0
		for _, si := range m.Slaves() {
			if si.AckedOffset >= 0 {
				k++
			}
		}
		return k == n
	})
}

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; v > 0; v /= 10 {
		i--
		b[i] = byte('0' + v%10)
	}
	return string(b[i:])
}

var _ = errors.Is
var _ = filepath.Join
var _ = store.PutOK
