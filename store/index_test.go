package store

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/compat"
)

func TestIndexFile_Layout_JavaFormat(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	r1 := mustPut(t, s, testMessage("TopicI", 0, "a", "UNIQ_KEY\x01U1\x02KEYS\x01k1  k2"))
	r2 := mustPut(t, s, testMessage("TopicI", 0, "b", "KEYS\x01k1"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	names := fileNames(t, filepath.Join(c.RootDir, "index"))
	if len(names) != 1 || !regexp.MustCompile(`^\d{17}$`).MatchString(names[0]) {
		t.Fatalf("index files %v", names)
	}
	if _, err := time.ParseInLocation("20060102150405", names[0][:14], time.Local); err != nil {
		t.Fatalf("name is not a local yyyyMMddHHmmssSSS time: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(c.RootDir, "index", names[0]))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 40+64*4+256*20 {
		t.Fatalf("index file size %d", len(b))
	}
	be := binary.BigEndian
	// Header: begin/end timestamp, begin/end phy offset, slot count, index count.
	if int64(be.Uint64(b[0:])) != r1.StoreTimestamp || int64(be.Uint64(b[8:])) != r2.StoreTimestamp ||
		int64(be.Uint64(b[16:])) != r1.WroteOffset || int64(be.Uint64(b[24:])) != r2.WroteOffset ||
		be.Uint32(b[36:]) != 5 {
		t.Fatalf("header % x", b[:40])
	}
	// Entries 1..4: TopicI#U1, TopicI#k1, TopicI#k2 (empty token skipped), TopicI#k1 again.
	keys := []string{"TopicI#U1", "TopicI#k1", "TopicI#k2", "TopicI#k1"}
	phys := []int64{r1.WroteOffset, r1.WroteOffset, r1.WroteOffset, r2.WroteOffset}
	entries := 40 + 64*4
	for i, k := range keys {
		e := b[entries+(i+1)*20:]
		h := int32(be.Uint32(e))
		if h != keyHash(k) || int64(be.Uint64(e[4:])) != phys[i] {
			t.Fatalf("entry %d: hash %d phy %d", i+1, h, int64(be.Uint64(e[4:])))
		}
		slot := 40 + int(keyHash(k))%64*4
		if i == 1 {
			// k1's slot points at entry 4, whose prev is entry 2.
			if be.Uint32(b[slot:]) != 4 || be.Uint32(b[entries+4*20+16:]) != 2 {
				t.Fatalf("k1 chain: slot %d prev %d", be.Uint32(b[slot:]), be.Uint32(b[entries+4*20+16:]))
			}
		}
	}
	if keyHash("TopicI#k1") != abs32(compat.JavaHashCode("TopicI#k1")) {
		t.Fatal("key hash is not abs(String.hashCode)")
	}
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

func TestIndex_Query_AcrossFilesAndTimeRange(t *testing.T) {
	c := testConfig(t)
	c.MaxIndexNum = 8 // 7 entries per file
	s := openStore(t, c)
	defer s.Close()
	var rs []PutResult
	for i := 0; i < 30; i++ {
		rs = append(rs, mustPut(t, s, testMessage("TopicQ", 0, body(i), "KEYS\x01same")))
	}
	waitDispatched(t, s)
	if n := len(fileNames(t, filepath.Join(c.RootDir, "index"))); n < 4 {
		t.Fatalf("%d index files", n)
	}
	q := s.QueryMessage("TopicQ", "same", 64, 0, 1<<62)
	if len(q.Buffers) != 30 || q.IndexLastUpdatePhyoffset != rs[29].WroteOffset {
		t.Fatalf("%d hits, last phy %d", len(q.Buffers), q.IndexLastUpdatePhyoffset)
	}
	q.Release()
	q = s.QueryMessage("TopicQ", "same", 5, 0, 1<<62)
	if len(q.Buffers) != 5 {
		t.Fatalf("maxNum 5: %d hits", len(q.Buffers))
	}
	q.Release()
	q = s.QueryMessage("TopicQ", "other", 64, 0, 1<<62)
	if len(q.Buffers) != 0 {
		t.Fatalf("unknown key: %d hits", len(q.Buffers))
	}
	q.Release()
	q = s.QueryMessage("TopicQ", "same", 64, rs[29].StoreTimestamp+10000, rs[29].StoreTimestamp+20000)
	if len(q.Buffers) != 0 {
		t.Fatalf("future range: %d hits", len(q.Buffers))
	}
	q.Release()
}
