package store

import (
	"errors"
	"math/rand"
	"testing"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

// replicate copies the master's CommitLog to the slave in random chunks, the way HA
// transfers do (never across a file, arbitrary splits inside records).
func replicate(t *testing.T, master, slave *Store, r *rand.Rand) {
	t.Helper()
	for slave.MaxPhyOffset() < master.MaxPhyOffset() {
		from := slave.MaxPhyOffset()
		data, release := master.CommitLogData(from)
		if data == nil {
			t.Fatalf("no master data at %d", from)
		}
		n := min(len(data), 1+r.Intn(300))
		chunk := append([]byte(nil), data[:n]...)
		release()
		if err := slave.AppendToCommitLog(from, chunk); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHA_AppendToCommitLog_SlaveDispatches(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	master := openStore(t, testConfig(t))
	defer master.Close()
	sc := testConfig(t)
	sc.Slave = true
	slave := openStore(t, sc)
	defer slave.Close()
	for i := 0; i < 700; i++ { // crosses a file boundary
		mustPut(t, master, testMessage("TopicH", int32(i%2), body(i), "KEYS\x01k"+body(i)))
	}
	replicate(t, master, slave, r)
	waitDispatched(t, master)
	waitDispatched(t, slave)
	for q := int32(0); q < 2; q++ {
		m, s := bodies(t, master, "TopicH", q), bodies(t, slave, "TopicH", q)
		if len(s) != 350 || len(m) != len(s) || s[349] != m[349] {
			t.Fatalf("queue %d: slave has %d messages, master %d", q, len(s), len(m))
		}
	}
	qr := slave.QueryMessage("TopicH", "k"+body(123), 5, 0, 1<<62)
	if len(qr.Buffers) != 1 {
		t.Fatalf("slave index: %d hits", len(qr.Buffers))
	}
	qr.Release()
	if res, err := slave.PutMessage(testMessage("TopicH", 0, "x", "")); res.Status != PutServiceNotAvailable || !errors.Is(err, ErrServiceNotAvailable) {
		t.Fatalf("slave put: %v %v", res.Status, err)
	}
	if err := slave.AppendToCommitLog(slave.MaxPhyOffset()+1, []byte{1}); !errors.Is(err, ErrOffsetMismatch) {
		t.Fatalf("gap accepted: %v", err)
	}
}

func TestHA_EmptySlave_StartsAtMastersLastFile(t *testing.T) {
	master := openStore(t, testConfig(t))
	defer master.Close()
	for i := 0; i < 700; i++ {
		mustPut(t, master, testMessage("TopicH", 0, body(i), ""))
	}
	sc := testConfig(t)
	sc.Slave = true
	slave := openStore(t, sc)
	defer slave.Close()
	// Java's master feeds an empty slave from the start of its last file.
	start := master.MaxPhyOffset() - master.MaxPhyOffset()%sc.MappedFileSizeCommitLog
	data, release := master.CommitLogData(start)
	err := slave.AppendToCommitLog(start, append([]byte(nil), data...))
	release()
	if err != nil {
		t.Fatal(err)
	}
	waitDispatched(t, slave)
	if slave.MinPhyOffset() != start || slave.MaxPhyOffset() != master.MaxPhyOffset() {
		t.Fatalf("slave range [%d,%d)", slave.MinPhyOffset(), slave.MaxPhyOffset())
	}
	g := slave.GetMessage("g", "TopicH", 0, slave.MinOffsetInQueue("TopicH", 0), 1, nil)
	defer g.Release()
	if g.Status != GetFound {
		t.Fatalf("slave read: %v", g.Status)
	}
	rec, _ := message.DecodeRecord(g.Buffers[0])
	if rec.PhysicalOffset < start {
		t.Fatalf("record at %d", rec.PhysicalOffset)
	}
}

// CommitLogChunk: a full file's data runs to the file end (blank and padding), the next
// offset is the next file; no offset-0 fallback; no allocation.
func TestHA_CommitLogChunk(t *testing.T) {
	c := testConfig(t)
	master := openStore(t, c)
	defer master.Close()
	for i := 0; i < 700; i++ {
		mustPut(t, master, testMessage("TopicH", 0, body(i), ""))
	}
	if master.CommitLogFileSize() != c.MappedFileSizeCommitLog {
		t.Fatalf("file size %d", master.CommitLogFileSize())
	}
	ch := master.CommitLogChunk(100)
	if len(ch.Data) != int(c.MappedFileSizeCommitLog)-100 {
		t.Fatalf("full file: %d bytes from 100", len(ch.Data))
	}
	ch.Release()
	ch.Release()
	ch = master.CommitLogChunk(c.MappedFileSizeCommitLog)
	if len(ch.Data) == 0 {
		t.Fatal("no data in the second file")
	}
	ch.Release()
	if n := testing.AllocsPerRun(100, func() { ch := master.CommitLogChunk(100); ch.Release() }); n != 0 {
		t.Fatalf("%v allocs", n)
	}

	sc := testConfig(t)
	sc.Slave = true
	slave := openStore(t, sc)
	defer slave.Close()
	start := 2 * c.MappedFileSizeCommitLog
	data := master.CommitLogChunk(start)
	err := slave.AppendToCommitLog(start, append([]byte(nil), data.Data...))
	data.Release()
	if err != nil {
		t.Fatal(err)
	}
	if ch := slave.CommitLogChunk(0); ch.Data != nil {
		t.Fatal("offset 0 read the first file, which starts later")
	}
	if ch := slave.CommitLogChunk(-1); ch.Data != nil {
		t.Fatal("negative offset")
	}
	if ch := slave.CommitLogChunk(slave.MaxPhyOffset()); ch.Data != nil {
		t.Fatal("data at the end")
	}
}

// A slave's put figures count the replicated messages, as Java's reput does on a slave
// (DefaultMessageStore: putTps and putMessageTimesTotal show the replication rate).
func TestHA_Slave_CountsReplicatedPuts(t *testing.T) {
	master := openStore(t, testConfig(t))
	defer master.Close()
	sc := testConfig(t)
	sc.Slave = true
	slave := openStore(t, sc)
	defer slave.Close()
	for i := 0; i < 10; i++ {
		mustPut(t, master, testMessage("TopicS", 0, body(i), ""))
	}
	replicate(t, master, slave, rand.New(rand.NewSource(1)))
	waitDispatched(t, slave)
	if got := slave.RuntimeInfo()["putMessageTimesTotal"]; got != "10" {
		t.Fatalf("slave putMessageTimesTotal %q, want 10", got)
	}
	if m, s := master.RuntimeInfo()["putMessageSizeTotal"], slave.RuntimeInfo()["putMessageSizeTotal"]; m != s {
		t.Fatalf("putMessageSizeTotal master %s slave %s", m, s)
	}
}

// A slave that received a whole file (its blank and padding to the end) and nothing after
// it, restarted cleanly, recovers to the file's end — the offset it acknowledged to its
// master, and the master's own end for that data — not to the blank's start as Java's
// recovery does (CommitLog#recoverNormally stops at the blank of the last file). Stopping
// at the blank would make the slave report less than it had acknowledged and the master
// resend the blank; a master whose newest file ends in a blank (the next file could not
// be created) would refuse a slave that holds that blank ("first report beyond the local
// commitlog end"). Appending after the restart goes on at the next file, on both.
func TestHA_Restart_LastFileEndingInABlank_RecoversToTheFileEnd(t *testing.T) {
	master := openStore(t, testConfig(t))
	defer master.Close()
	size := testConfig(t).MappedFileSizeCommitLog
	for i := 0; master.MaxPhyOffset() < size; i++ {
		mustPut(t, master, testMessage("TopicH", 0, body(i), ""))
	}
	sc := testConfig(t)
	sc.Slave = true
	slave := openStore(t, sc)
	data, release := master.CommitLogData(0)
	if int64(len(data)) != size {
		t.Fatalf("the first file holds %d bytes, want the whole %d", len(data), size)
	}
	err := slave.AppendToCommitLog(0, append([]byte(nil), data...))
	release()
	if err != nil {
		t.Fatal(err)
	}
	waitDispatched(t, slave)
	if slave.MaxPhyOffset() != size {
		t.Fatalf("slave holds up to %d, want %d", slave.MaxPhyOffset(), size)
	}
	want := slave.MaxOffsetInQueue("TopicH", 0)
	if err := slave.Close(); err != nil {
		t.Fatal(err)
	}
	slave = openStore(t, sc)
	defer slave.Close()
	if got := slave.MaxPhyOffset(); got != size {
		t.Fatalf("after a clean restart the slave's end is %d, want the file end %d", got, size)
	}
	if got := slave.MaxOffsetInQueue("TopicH", 0); got != want {
		t.Fatalf("queue max offset %d after restart, want %d", got, want)
	}
	// the master's next file, appended as the stream sends it
	next, release := master.CommitLogData(size)
	err = slave.AppendToCommitLog(size, append([]byte(nil), next...))
	release()
	if err != nil {
		t.Fatalf("append at the next file: %v", err)
	}
	waitDispatched(t, slave)
	if slave.MaxPhyOffset() != master.MaxPhyOffset() || slave.MaxOffsetInQueue("TopicH", 0) != master.MaxOffsetInQueue("TopicH", 0) {
		t.Fatalf("slave [%d, q %d], master [%d, q %d]", slave.MaxPhyOffset(), slave.MaxOffsetInQueue("TopicH", 0),
			master.MaxPhyOffset(), master.MaxOffsetInQueue("TopicH", 0))
	}
}
