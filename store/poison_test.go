package store

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

// Records whose topic cannot name a ConsumeQueue directory ("poisoned" records) reach a
// store in two ways: an older Skyrocket wrote them for CONSUMER_SEND_MSG_BACK with a
// group such as "adv/boot", and a Java master (which accepts such groups) replicates
// them to a slave. These tests build such CommitLogs through the slave's
// AppendToCommitLog, then check that dispatch and recovery keep every other record.

// poisonTopics are structurally sound topics that the store refuses on put.
var poisonTopics = []string{"%DLQ%adv/boot", "%RETRY%../../x", "..", ".", "", "a b", "t\x00z", `%RETRY%a\b`}

// rawLog builds a CommitLog of n ordinary records of TopicP/0 (body(i), key k+body(i))
// with a poisoned record after every third one, appended to a slave store at c. It
// returns the log's end offset.
func rawLog(t testing.TB, c Config, n int, poison []string) int64 {
	t.Helper()
	c.Slave = true
	s := openStore(t, c)
	defer s.Close()
	var log []byte
	q := int64(0)
	for i := 0; i < n; i++ {
		m := testMessage("TopicP", 0, body(i), "KEYS\x01k"+body(i))
		log = message.AppendRecord(log, m, q, int64(len(log)), 1700000000000+int64(i))
		q++
		if i%3 == 0 && len(poison) > 0 {
			p := testMessage(poison[(i/3)%len(poison)], 0, "poison", "KEYS\x01p"+body(i))
			log = message.AppendRecord(log, p, 0, int64(len(log)), 1700000000000+int64(i))
		}
	}
	if int64(len(log)) >= c.MappedFileSizeCommitLog {
		t.Fatalf("test log of %d bytes does not fit one file", len(log))
	}
	if err := s.AppendToCommitLog(0, log); err != nil {
		t.Fatal(err)
	}
	waitDispatched(t, s)
	if got := len(bodies(t, s, "TopicP", 0)); got != n {
		t.Fatalf("slave dispatched %d of %d ordinary records", got, n)
	}
	return int64(len(log))
}

// checkOrdinary asserts that all n ordinary records of rawLog are readable in order and
// indexed, that the log still ends at end, and that the store takes the next put there.
func checkOrdinary(t testing.TB, s *Store, n int, end int64) {
	t.Helper()
	if got := s.MaxPhyOffset(); got != end {
		t.Fatalf("commitlog ends at %d, want %d: records were cut", got, end)
	}
	got := bodies(t, s, "TopicP", 0)
	if len(got) != n {
		t.Fatalf("%d of %d ordinary messages readable", len(got), n)
	}
	for i, b := range got {
		if b != body(i) {
			t.Fatalf("message %d = %q", i, b)
		}
	}
	qr := s.QueryMessage("TopicP", "k"+body(n-1), 4, 0, 1<<62)
	if len(qr.Buffers) != 1 {
		t.Fatalf("index: %d hits for the last key", len(qr.Buffers))
	}
	qr.Release()
	r := mustPut(t, s, testMessage("TopicP", 0, "next", ""))
	if r.WroteOffset != end || r.QueueOffset != int64(n) {
		t.Fatalf("next put at %d queue offset %d, want %d %d", r.WroteOffset, r.QueueOffset, end, n)
	}
}

// checkNoStrayDirs asserts that the only ConsumeQueue directory is TopicP's and that
// nothing was created next to the store.
func checkNoStrayDirs(t testing.TB, c Config) {
	t.Helper()
	if names := fileNames(t, filepath.Join(c.RootDir, "consumequeue")); len(names) != 1 || names[0] != "TopicP" {
		t.Fatalf("consumequeue holds %q", names)
	}
	if names := fileNames(t, filepath.Dir(c.RootDir)); len(names) != 1 {
		t.Fatalf("the store's parent holds %q", names)
	}
}

func TestPoison_Put_Refused(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	defer s.Close()
	for _, topic := range poisonTopics {
		if r, err := s.PutMessage(testMessage(topic, 0, "x", "")); r.Status != PutMessageIllegal || err == nil {
			t.Fatalf("put to %q: %v %v", topic, r.Status, err)
		}
		m := testMessage(topic, 0, "", "")
		if r, err := s.PutMessages(m, message.AppendBatchElement(nil, 0, []byte("x"), nil)); r.Status != PutMessageIllegal || err == nil {
			t.Fatalf("batch put to %q: %v %v", topic, r.Status, err)
		}
	}
	if s.MaxPhyOffset() != 0 {
		t.Fatalf("refused puts wrote %d bytes", s.MaxPhyOffset())
	}
}

func TestPoison_SlaveDispatch_SkipsOnlyThePoisonedRecords(t *testing.T) {
	c := testConfig(t)
	c.RootDir, c.CommitLogDir = filepath.Join(t.TempDir(), "store"), ""
	rawLog(t, c, 60, poisonTopics)
	checkNoStrayDirs(t, c)
}

func TestPoison_Master_RestartKeepsEveryRecord(t *testing.T) {
	for _, crash := range []bool{false, true} {
		name := "clean"
		if crash {
			name = "kill9"
		}
		t.Run(name, func(t *testing.T) {
			c := testConfig(t)
			c.RootDir, c.CommitLogDir = filepath.Join(t.TempDir(), "store"), ""
			end := rawLog(t, c, 60, poisonTopics)
			if crash {
				touchAbort(t, c)
			}
			s := openStore(t, c) // the same files, now as a master
			checkOrdinary(t, s, 60, end)
			// Dispatch goes on past the poisoned records: more records after them arrive.
			for i := 0; i < 20; i++ {
				mustPut(t, s, testMessage("TopicP", 0, body(61+i), ""))
			}
			waitDispatched(t, s)
			if got := len(bodies(t, s, "TopicP", 0)); got != 81 {
				t.Fatalf("%d messages after more puts, want 81", got)
			}
			s.crashForTest()
			touchAbort(t, c)
			s = openStore(t, c)
			defer s.Close()
			if got := len(bodies(t, s, "TopicP", 0)); got != 81 {
				t.Fatalf("%d messages after kill -9, want 81", got)
			}
			checkNoStrayDirs(t, c)
		})
	}
}

// A master whose dispatch meets a poisoned record (appended before this version refused
// them) goes on with the records after it instead of skipping the rest of the file.
func TestPoison_Dispatch_MasterGoesOn(t *testing.T) {
	c := testConfig(t)
	c.RootDir, c.CommitLogDir = filepath.Join(t.TempDir(), "store"), ""
	s := openStore(t, c)
	mustPut(t, s, testMessage("TopicP", 0, body(0), ""))
	waitDispatched(t, s)
	// Write a poisoned record and two ordinary ones the way the old put path did.
	end := s.MaxPhyOffset()
	var raw []byte
	raw = message.AppendRecord(raw, testMessage("%DLQ%adv/boot", 0, "poison", ""), 0, end, 1700000000001)
	raw = message.AppendRecord(raw, testMessage("TopicP", 0, body(1), ""), 1, end+int64(len(raw)), 1700000000002)
	raw = message.AppendRecord(raw, testMessage("TopicP", 0, body(2), ""), 2, end+int64(len(raw)), 1700000000003)
	s.putMu.Lock()
	mf := s.cl.last()
	if !mf.appendBytes(raw) {
		s.putMu.Unlock()
		t.Fatal("append")
	}
	s.topicQueue[cqKey{"TopicP", 0}] = new(int64)
	*s.topicQueue[cqKey{"TopicP", 0}] = 3
	s.putMu.Unlock()
	s.wakeDispatch()
	waitDispatched(t, s)
	if got := bodies(t, s, "TopicP", 0); len(got) != 3 || got[2] != body(2) {
		t.Fatalf("dispatch after a poisoned record: %q", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	checkNoStrayDirs(t, c)
}

// TestPoison_IndexAheadOfCut is the unbootable store of the critical issue: a clean
// restart cut the CommitLog below the index's last offset (there, at a record the scan
// refused by name; here, at a corrupt CRC), new records were written over the cut, and
// the next start replayed the index from an offset inside one of them.
func TestPoison_IndexAheadOfCut(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	var rs []PutResult
	for i := 0; i < 10; i++ {
		rs = append(rs, mustPut(t, s, testMessage("TopicR", 0, body(i), "KEYS\x01key"+body(i))))
	}
	waitDispatched(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Flip a body byte of record 5: a clean restart's CRC scan cuts the log there, while
	// the index (kept after a clean stop) has indexed up to record 9.
	f, err := os.OpenFile(clFile(c, rs[5].WroteOffset), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	f.ReadAt(b, rs[5].WroteOffset+88)
	b[0] ^= 0xFF
	f.WriteAt(b, rs[5].WroteOffset+88)
	f.Close()
	cut := rs[5].WroteOffset
	s = openStore(t, c)
	if s.MaxPhyOffset() != cut {
		t.Fatalf("recovered to %d, want %d", s.MaxPhyOffset(), cut)
	}
	// Records of another size now cover the old offsets; their keys must be indexed.
	long := strings.Repeat("L", 37)
	for i := 0; i < 20; i++ {
		mustPut(t, s, testMessage("TopicR", 0, long+body(i), "KEYS\x01new"+body(i)))
	}
	waitDispatched(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, crash := range []bool{false, true} {
		if crash {
			touchAbort(t, c)
		}
		s, err := Open(c)
		if err != nil {
			t.Fatalf("Open (crash %v): %v", crash, err)
		}
		if got := len(bodies(t, s, "TopicR", 0)); got != 25 {
			t.Fatalf("%d messages, want 25", got)
		}
		for _, k := range []string{"new" + body(0), "new" + body(19)} {
			qr := s.QueryMessage("TopicR", k, 4, 0, 1<<62)
			if len(qr.Buffers) != 1 {
				t.Fatalf("key %s: %d hits", k, len(qr.Buffers))
			}
			qr.Release()
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A store left by the previous version in that state (the index's last offset inside a
// record, below the CommitLog's end) opens, and later keys are indexed.
func TestPoison_IndexEndInsideRecord_Opens(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	var rs []PutResult
	for i := 0; i < 10; i++ {
		rs = append(rs, mustPut(t, s, testMessage("TopicR", 0, body(i), "KEYS\x01key"+body(i))))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	names := fileNames(t, filepath.Join(c.RootDir, "index"))
	if len(names) != 1 {
		t.Fatalf("index files %q", names)
	}
	path := filepath.Join(c.RootDir, "index", names[0])
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	binary.BigEndian.PutUint64(b[24:], uint64(rs[3].WroteOffset+7))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, c)
	defer s.Close()
	checkRecovered(t, s, 10, rs[9].WroteOffset+int64(rs[9].WroteBytes))
	mustPut(t, s, testMessage("TopicR", 0, "later", "KEYS\x01later"))
	waitDispatched(t, s)
	qr := s.QueryMessage("TopicR", "later", 4, 0, 1<<62)
	defer qr.Release()
	if len(qr.Buffers) != 1 {
		t.Fatalf("later key: %d hits", len(qr.Buffers))
	}
}

// FuzzRecoverTopicNames interleaves records of arbitrary topics (any bytes, up to 127)
// with ordinary ones, "kill -9"s and reopens as a master: every ordinary record stays,
// and no ConsumeQueue directory other than the ordinary topic's appears.
func FuzzRecoverTopicNames(f *testing.F) {
	for _, p := range poisonTopics {
		f.Add(p, p)
	}
	f.Add("%DLQ%../../../../tmp/x", "TopicP")
	f.Add("con", "nul\x7f")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 127 || len(b) > 127 {
			t.Skip("a record's topic length is one signed byte")
		}
		var poison []string
		for _, p := range []string{a, b} {
			if !validTopic([]byte(p)) {
				poison = append(poison, p)
			}
		}
		c := testConfig(t)
		c.RootDir, c.CommitLogDir = filepath.Join(t.TempDir(), "store"), ""
		end := rawLog(t, c, 12, poison)
		touchAbort(t, c)
		s, err := Open(c)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer s.Close()
		checkOrdinary(t, s, 12, end)
		checkNoStrayDirs(t, c)
	})
}
