package store

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/compat"
)

func TestCommitLog_Append_Rollover(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	defer s.Close()
	var results []PutResult
	for i := 0; i < 1200; i++ {
		results = append(results, mustPut(t, s, testMessage("TopicA", 0, body(i), "TAGS\x01TagA")))
	}
	names := fileNames(t, c.RootDir+"/commitlog")
	if len(names) < 3 || names[0] != "00000000000000000000" || names[1] != "00000000000000065536" || names[2] != "00000000000000131072" {
		t.Fatalf("commitlog files %v", names)
	}
	// The first file ends with an end-of-file blank right after its last record.
	var lastInFirst PutResult
	for _, r := range results {
		if r.WroteOffset < 65536 {
			lastInFirst = r
		}
	}
	end := lastInFirst.WroteOffset + int64(lastInFirst.WroteBytes)
	raw, err := os.ReadFile(filepath.Join(c.RootDir, "commitlog", names[0]))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 65536 {
		t.Fatalf("file size %d", len(raw))
	}
	size, magic, _ := message.PeekHeader(raw[end:])
	if magic != message.MagicBlank || int64(size) != 65536-end {
		t.Fatalf("blank at %d: size %d magic %#x", end, size, magic)
	}
	for i, r := range results {
		if r.QueueOffset != int64(i) {
			t.Fatalf("message %d has queue offset %d", i, r.QueueOffset)
		}
		if r.WroteOffset/65536 != (r.WroteOffset+int64(r.WroteBytes)-1)/65536 {
			t.Fatalf("record %d straddles two files", i)
		}
	}
	waitDispatched(t, s)
	if got := bodies(t, s, "TopicA", 0); len(got) != 1200 || got[1199] != body(1199) {
		t.Fatalf("read back %d messages", len(got))
	}
}

func TestConsumeQueue_Units_JavaLayout(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	var results []PutResult
	for i := 0; i < 150; i++ {
		tags := "TagA"
		if i%2 == 1 {
			tags = "中文" // tag codes hash UTF-16 units
		}
		results = append(results, mustPut(t, s, testMessage("TopicCQ", 3, body(i), "TAGS\x01"+tags)))
	}
	mustPut(t, s, testMessage("TopicCQ", 3, "no tags", ""))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(c.RootDir, "consumequeue", "TopicCQ", "3")
	names := fileNames(t, dir)
	if len(names) != 2 || names[0] != "00000000000000000000" || names[1] != "00000000000000002000" {
		t.Fatalf("consume queue files %v", names)
	}
	var all []byte
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != 2000 {
			t.Fatalf("cq file size %d", len(b))
		}
		all = append(all, b...)
	}
	be := binary.BigEndian
	for i, r := range results {
		u := all[i*20:]
		wantTag := int64(compat.JavaHashCode("TagA"))
		if i%2 == 1 {
			wantTag = int64(compat.JavaHashCode("中文"))
		}
		if int64(be.Uint64(u)) != r.WroteOffset || int32(be.Uint32(u[8:])) != r.WroteBytes || int64(be.Uint64(u[12:])) != wantTag {
			t.Fatalf("unit %d = % x, want phy %d size %d tag %d", i, u[:20], r.WroteOffset, r.WroteBytes, wantTag)
		}
	}
	if tag := int64(be.Uint64(all[150*20+12:])); tag != 0 {
		t.Fatalf("untagged message has tag code %d", tag)
	}
	if u := all[151*20 : 152*20]; !allZero(u) {
		t.Fatalf("unit after the end is not empty: % x", u)
	}
}

func TestCheckpoint_Close_WritesTimestamps(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	r := mustPut(t, s, testMessage("T", 0, "x", "KEYS\x01k"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(c.RootDir, "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	be := binary.BigEndian
	if len(b) != 4096 {
		t.Fatalf("checkpoint size %d", len(b))
	}
	physic, logics, index := int64(be.Uint64(b)), int64(be.Uint64(b[8:])), int64(be.Uint64(b[16:]))
	if physic != r.StoreTimestamp || logics != r.StoreTimestamp || index != r.StoreTimestamp {
		t.Fatalf("checkpoint %d %d %d, want %d", physic, logics, index, r.StoreTimestamp)
	}
}

func TestStore_PutMessages_Batch(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	defer s.Close()
	mustPut(t, s, testMessage("TopicB", 0, "single", ""))
	var batch []byte
	for i := 0; i < 3; i++ {
		batch = message.AppendBatchElement(batch, int32(i), []byte(body(i)), []byte("UNIQ_KEY\x01U"+body(i)))
	}
	hdr := testMessage("TopicB", 0, "", "CLUSTER\x01DefaultCluster")
	r, err := s.PutMessages(hdr, batch)
	if err != nil || r.MsgNum != 3 || r.QueueOffset != 1 || len(r.BatchOffsets) != 3 || r.BatchOffsets[0] != r.WroteOffset {
		t.Fatalf("batch result %+v %v", r, err)
	}
	waitDispatched(t, s)
	g := s.GetMessage("g", "TopicB", 0, 1, 32, nil)
	defer g.Release()
	if g.Status != GetFound || len(g.Buffers) != 3 {
		t.Fatalf("get %v %d", g.Status, len(g.Buffers))
	}
	for i, b := range g.Buffers {
		rec, err := message.DecodeRecord(b)
		if err != nil || rec.QueueOffset != int64(1+i) || rec.Flag != int32(i) || rec.PhysicalOffset != r.BatchOffsets[i] ||
			string(rec.Properties) != "UNIQ_KEY\x01U"+body(i)+"\x02CLUSTER\x01DefaultCluster" || !rec.CRCValid() {
			t.Fatalf("record %d: %+v %v", i, rec, err)
		}
	}
	q := s.QueryMessage("TopicB", "U"+body(2), 10, 0, 1<<62)
	defer q.Release()
	if len(q.Buffers) != 1 {
		t.Fatalf("uniq key query found %d", len(q.Buffers))
	}
	bad := []*message.Message{testMessage("TopicB", 0, "", "DELAY\x013"), testMessage("TopicB", 0, "", "")}
	bad[1].SysFlag = message.TransactionPrepared
	for _, m := range bad {
		if r, err := s.PutMessages(m, batch); r.Status != PutMessageIllegal || err == nil {
			t.Fatalf("illegal batch accepted: %v %v", r.Status, err)
		}
	}
	if r, _ := s.PutMessages(hdr, batch[:10]); r.Status != PutMessageIllegal {
		t.Fatalf("truncated batch: %v", r.Status)
	}
}

func TestStore_PutMessages_BatchNeverStraddlesFiles(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	defer s.Close()
	var batch []byte
	for i := 0; i < 10; i++ {
		batch = message.AppendBatchElement(batch, 0, make([]byte, 500), nil)
	}
	for i := 0; i < 20; i++ {
		r, err := s.PutMessages(testMessage("T", 0, "", ""), batch)
		if err != nil {
			t.Fatal(err)
		}
		if r.WroteOffset/65536 != (r.WroteOffset+int64(r.WroteBytes)-1)/65536 {
			t.Fatalf("batch %d straddles files: %d+%d", i, r.WroteOffset, r.WroteBytes)
		}
	}
}

func TestStore_Transactions_OnlyNotAndCommitInQueue(t *testing.T) {
	s := openStore(t, testConfig(t))
	defer s.Close()
	prep := testMessage("TX", 0, "half", "KEYS\x01kp")
	prep.SysFlag = message.TransactionPrepared
	rp := mustPut(t, s, prep)
	commit := testMessage("TX", 0, "commit", "KEYS\x01kc")
	commit.SysFlag = message.TransactionCommit
	commit.PreparedTransactionOffset = rp.WroteOffset
	rc := mustPut(t, s, commit)
	rb := testMessage("TX", 0, "rollback", "KEYS\x01kr")
	rb.SysFlag = message.TransactionRollback
	rr := mustPut(t, s, rb)
	if rp.QueueOffset != 0 || rc.QueueOffset != 0 || rr.QueueOffset != 0 {
		t.Fatalf("queue offsets %d %d %d", rp.QueueOffset, rc.QueueOffset, rr.QueueOffset)
	}
	waitDispatched(t, s)
	if got := bodies(t, s, "TX", 0); len(got) != 1 || got[0] != "commit" {
		t.Fatalf("queue holds %v", got)
	}
	for key, want := range map[string]int{"kp": 1, "kc": 1, "kr": 0} {
		q := s.QueryMessage("TX", key, 10, 0, 1<<62)
		if len(q.Buffers) != want {
			t.Errorf("key %s: %d hits, want %d", key, len(q.Buffers), want)
		}
		q.Release()
	}
}

func TestDispatch_ScheduleTopic_TagsCodeIsDeliverTime(t *testing.T) {
	s := openStore(t, testConfig(t))
	defer s.Close()
	r := mustPut(t, s, testMessage(scheduleTopic, 2, "delayed", "DELAY\x013\x02TAGS\x01x"))
	waitDispatched(t, s)
	u := s.ConsumeQueueUnits(scheduleTopic, 2, 0, 5)
	if len(u) != 1 || u[0].TagsCode != r.StoreTimestamp+10000 || u[0].PhyOffset != r.WroteOffset {
		t.Fatalf("units %+v, want tags code %d", u, r.StoreTimestamp+10000)
	}
}

func TestDispatch_OnArrive(t *testing.T) {
	c := testConfig(t)
	type arrival struct {
		topic   string
		queue   int32
		offset  int64
		tagCode int64
	}
	got := make(chan arrival, 4)
	c.OnArrive = func(topic string, q int32, off, tag, ts int64, props []byte) {
		got <- arrival{topic, q, off, tag}
	}
	s := openStore(t, c)
	defer s.Close()
	mustPut(t, s, testMessage("TopicArr", 5, "x", "TAGS\x01TagA"))
	a := <-got
	if a != (arrival{"TopicArr", 5, 1, int64(compat.JavaHashCode("TagA"))}) {
		t.Fatalf("arrival %+v", a)
	}
}
