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
