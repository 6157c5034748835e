package ha

import (
	"encoding/binary"
	"sync/atomic"
	"testing"
	"time"
)

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// SlaveOK, AckedOffset, AckNotify and Slaves as the broker uses them for SYNC_MASTER.
func TestMaster_SlaveOK_AckedOffset_AckNotify(t *testing.T) {
	ms := openStore(t, storeConfig(t.TempDir(), false))
	defer ms.Close()
	putN(t, ms, "TopicHA", 0, 100)
	cfg := haConfig(nil)
	cfg.SlaveFallbehindMax = 1000
	m := startMaster(t, ms, cfg)
	if m.SlaveOK(0) || m.AckedOffset() != 0 || len(m.Slaves()) != 0 {
		t.Fatalf("no slave: ok %v acked %d slaves %v", m.SlaveOK(0), m.AckedOffset(), m.Slaves())
	}
	a := dialFake(t, m.Addr())
	// A connection counts before its first report (Java: connectionCount).
	eventually(t, 5*time.Second, "the connection", func() bool { return len(m.Slaves()) == 1 })
	if !m.SlaveOK(999) || m.SlaveOK(1000) {
		t.Fatalf("fall-behind limit: ok(999) %v ok(1000) %v", m.SlaveOK(999), m.SlaveOK(1000))
	}
	if si := m.Slaves()[0]; si.AckedOffset != -1 || si.Since.IsZero() || si.Remote != a.nc.LocalAddr().String() {
		t.Fatalf("slave info %+v (local %s)", si, a.nc.LocalAddr())
	}

	var hooked atomic.Int64 // the offset each hook run saw; runs only on advances
	var hooks atomic.Int32
	m.SetAckHook(func() { hooks.Add(1); hooked.Store(m.AckedOffset()) })
	ch := m.AckNotify()
	a.report(100)
	eventually(t, 5*time.Second, "ack 100", func() bool { return closed(ch) })
	eventually(t, 5*time.Second, "the ack hook", func() bool { return hooks.Load() == 1 && hooked.Load() == 100 })
	if m.AckedOffset() != 100 || !m.SlaveOK(1099) || m.SlaveOK(1100) {
		t.Fatalf("acked %d", m.AckedOffset())
	}
	ch = m.AckNotify()
	a.report(50) // lower: the shared offset never goes back
	eventually(t, 5*time.Second, "report 50", func() bool { return m.Slaves()[0].AckedOffset == 50 })
	if closed(ch) || m.AckedOffset() != 100 {
		t.Fatalf("went back: closed %v acked %d", closed(ch), m.AckedOffset())
	}
	b := dialFake(t, m.Addr())
	b.report(200) // any connection raises it
	eventually(t, 5*time.Second, "ack 200", func() bool { return closed(ch) })
	if m.AckedOffset() != 200 {
		t.Fatalf("acked %d", m.AckedOffset())
	}
	eventually(t, 5*time.Second, "the ack hook at 200", func() bool { return hooked.Load() == 200 })
	if n := hooks.Load(); n != 2 {
		t.Fatalf("ack hook ran %d times for 2 advances (a lower report is none)", n)
	}
	m.SetAckHook(nil)
	// Several reports in one read: the newest whole one counts.
	ch = m.AckNotify()
	var three [24]byte
	for i, v := range []int64{300, 250, 400} {
		binary.BigEndian.PutUint64(three[8*i:], uint64(v))
	}
	b.write(three[:])
	eventually(t, 5*time.Second, "ack 400", func() bool { return m.AckedOffset() == 400 })
	if !closed(ch) {
		t.Fatal("AckNotify not closed")
	}
	_ = a.nc.Close()
	_ = b.nc.Close()
	eventually(t, 5*time.Second, "the connections to go", func() bool { return len(m.Slaves()) == 0 })
	if m.SlaveOK(400) || m.AckedOffset() != 400 {
		t.Fatalf("after the slaves left: ok %v acked %d", m.SlaveOK(400), m.AckedOffset())
	}
}

// Nothing is sent before the first report; then frames from where the slave asked, of
// at most TransferBatchSize, never across a file, ending each full file with its
// blank and padding; a heartbeat after HeartbeatInterval of silence.
func TestMaster_Frames(t *testing.T) {
	ms := openStore(t, storeConfig(t.TempDir(), false))
	defer ms.Close()
	putN(t, ms, "TopicHA", 0, 400)
	cfg := haConfig(nil)
	cfg.TransferBatchSize = 10000
	cfg.HeartbeatInterval = 100 * time.Millisecond
	m := startMaster(t, ms, cfg)
	f := dialFake(t, m.Addr())
	if _, _, err := f.frame(300 * time.Millisecond); err == nil {
		t.Fatal("a frame before the first report")
	}
	start := int64(testFileSize - 5000)
	f.report(start)
	next := start
	for next < ms.MaxPhyOffset() {
		off, b, err := f.frame(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if off != next || len(b) == 0 || len(b) > 10000 {
			t.Fatalf("frame at %d (want %d) of %d bytes", off, next, len(b))
		}
		if off/testFileSize != (off+int64(len(b))-1)/testFileSize {
			t.Fatalf("frame [%d,%d) crosses a file", off, off+int64(len(b)))
		}
		ch := ms.CommitLogChunk(off)
		if string(ch.Data[:len(b)]) != string(b) {
			t.Fatalf("frame at %d differs from the commitlog", off)
		}
		ch.Release()
		next += int64(len(b))
		if next == testFileSize { // the first file's last frame: its blank and padding too
			blank := ms.CommitLogChunk(start)
			if len(blank.Data) != testFileSize-int(start) {
				t.Fatalf("the full file's data ends at %d", start+int64(len(blank.Data)))
			}
			blank.Release()
		}
	}
	if next < testFileSize {
		t.Fatal("no file boundary crossed")
	}
	off, b, err := f.frame(5 * time.Second)
	if err != nil || off != next || len(b) != 0 {
		t.Fatalf("heartbeat: offset %d (want %d), %d bytes, %v", off, next, len(b), err)
	}
}

// A SYNC_MASTER put's WakeTransfer sends the data at once, not at the writer's next poll.
func TestMaster_WakeTransfer(t *testing.T) {
	ms := openStore(t, storeConfig(t.TempDir(), false))
	defer ms.Close()
	putN(t, ms, "TopicHA", 0, 10)
	m := NewMaster(ms, haConfig(nil))
	m.idle = time.Hour // without a wake-up the writer would sleep for good
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	f := dialFake(t, m.Addr())
	f.report(ms.MaxPhyOffset())
	waitFollowing(t, m, 1)
	eventually(t, 5*time.Second, "the writer to wait idle (the slave has everything)", func() bool {
		l := *m.live.Load()
		return len(l) == 1 && l[0].idles.Load() >= 1
	})
	r := mustPut(t, ms, testMessage("TopicHA", 0, "sync"))
	m.WakeTransfer()
	off, b, err := f.frame(5 * time.Second)
	if err != nil || off != r.WroteOffset || len(b) != int(r.WroteBytes) {
		t.Fatalf("frame at %d of %d bytes (%v), want %d of %d", off, len(b), err, r.WroteOffset, r.WroteBytes)
	}
	m.WakeTransfer() // never blocks, even with a wake-up pending and none taken
	m.WakeTransfer()
}

// An empty master: a slave reporting 0 gets the first message as soon as it is stored.
func TestMaster_EmptyStore_ThenData(t *testing.T) {
	ms := openStore(t, storeConfig(t.TempDir(), false))
	defer ms.Close()
	m := startMaster(t, ms, haConfig(nil))
	f := dialFake(t, m.Addr())
	f.report(0)
	waitFollowing(t, m, 1)
	r := mustPut(t, ms, testMessage("TopicHA", 0, "first"))
	off, b, err := f.frame(5 * time.Second)
	if err != nil || off != 0 || len(b) != int(r.WroteBytes) {
		t.Fatalf("frame at %d of %d bytes: %v", off, len(b), err)
	}
}

// Start without a listen address does nothing; Close is idempotent.
func TestMaster_NoListenAddr(t *testing.T) {
	ms := openStore(t, storeConfig(t.TempDir(), false))
	defer ms.Close()
	m := NewMaster(ms, DefaultConfig())
	if err := m.Start(); err != nil || m.Addr() != "" {
		t.Fatalf("start: %v addr %q", err, m.Addr())
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
}
