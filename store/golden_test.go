package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// Goldens written by Java 4.9.8's own classes (testdata/java/README.md).

type javaIndex struct {
	Files []struct {
		File            string `json:"file"`
		MappedFileSize  int    `json:"mappedFileSize"`
		CommitLogOffset int64  `json:"commitLogOffset"`
		Size            int32  `json:"size"`
		TagsCode        int64  `json:"tagsCode"`
		CQOffset        int64  `json:"cqOffset"`
		HashSlotNum     int    `json:"hashSlotNum"`
		IndexNum        int    `json:"indexNum"`
		Puts            []struct {
			Key            string `json:"key"`
			PhyOffset      int64  `json:"phyOffset"`
			StoreTimestamp int64  `json:"storeTimestamp"`
			KeyHash        int32  `json:"keyHash"`
		} `json:"puts"`
		Physic int64 `json:"physicMsgTimestamp"`
		Logics int64 `json:"logicsMsgTimestamp"`
		Index  int64 `json:"indexMsgTimestamp"`
	} `json:"files"`
}

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "java", name))
	if err != nil {
		t.Fatalf("Java golden missing: %v", err)
	}
	return b
}

func goldenIndex(t *testing.T) javaIndex {
	var ix javaIndex
	if err := json.Unmarshal(readGolden(t, "index.json"), &ix); err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestGolden_ConsumeQueueUnit(t *testing.T) {
	var u [cqUnitSize]byte
	putUnit(u[:], CQUnit{PhyOffset: 4096, Size: 183, TagsCode: int64(compat.JavaHashCode("TagA"))})
	if want := readGolden(t, "cq_unit.bin"); !bytes.Equal(u[:], want) {
		t.Fatalf("unit % x, Java % x", u, want)
	}
}

func goldenCQ(t *testing.T, fileSize int) *consumeQueue {
	cq := newConsumeQueue(t.TempDir(), "TopicTest", 0, fileSize, preallocate)
	t.Cleanup(cq.q.shutdownAll)
	return cq
}

func TestGolden_ConsumeQueueFile_TwoUnits(t *testing.T) {
	cq := goldenCQ(t, 100)
	for _, u := range []struct {
		phy  int64
		size int32
		tag  int64
		off  int64
	}{{4096, 183, int64(compat.JavaHashCode("TagA")), 0}, {4279, 150, 0, 1}} {
		if ok, err := cq.putPosition(u.phy, u.size, u.tag, u.off); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if got, want := cq.q.first().data, readGolden(t, "cq_file_two_units.bin"); !bytes.Equal(got, want) {
		t.Fatalf("file\n% x\nJava\n% x", got, want)
	}
}

func TestGolden_ConsumeQueueFile_PreBlank(t *testing.T) {
	var f = goldenIndex(t).Files[6]
	if f.File != "cq_file_preblank.bin" {
		t.Fatalf("index.json order changed: %s", f.File)
	}
	cq := goldenCQ(t, f.MappedFileSize)
	if ok, err := cq.putPosition(f.CommitLogOffset, f.Size, f.TagsCode, f.CQOffset); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if got, want := cq.q.first().data, readGolden(t, f.File); !bytes.Equal(got, want) {
		t.Fatalf("file\n% x\nJava\n% x", got, want)
	}
	if cq.minOffsetInQueue() != 3 || cq.maxOffsetInQueue() != 4 {
		t.Fatalf("min %d max %d", cq.minOffsetInQueue(), cq.maxOffsetInQueue())
	}
}

func TestGolden_IndexFile(t *testing.T) {
	var spec = goldenIndex(t).Files[7]
	if spec.File != "indexfile_small.bin" {
		t.Fatalf("index.json order changed: %s", spec.File)
	}
	mf, err := createReservedFile(t.TempDir(), "idx", 0, indexFileSize(spec.HashSlotNum, spec.IndexNum), preallocate, false)
	if err != nil {
		t.Fatal(err)
	}
	defer mf.shutdown()
	f := newIndexFile(mf, spec.HashSlotNum, spec.IndexNum)
	for _, p := range spec.Puts {
		if h := keyHash(p.Key); h != p.KeyHash {
			t.Fatalf("hash of %s = %d, Java %d", p.Key, h, p.KeyHash)
		}
		if !f.putKey(keyHash(p.Key), p.PhyOffset, p.StoreTimestamp) {
			t.Fatal("putKey refused")
		}
	}
	if want := readGolden(t, spec.File); !bytes.Equal(mf.data, want) {
		t.Fatalf("index file\n% x\nJava\n% x", mf.data, want)
	}
	got := f.selectPhyOffsets(nil, keyHash("TopicTest#KEY1"), 10, 0, 1<<62)
	if len(got) != 2 || got[0] != 183 || got[1] != 0 {
		t.Fatalf("KEY1 -> %v", got)
	}
}

func TestGolden_Checkpoint(t *testing.T) {
	var spec = goldenIndex(t).Files[8]
	c, err := openCheckpoint(filepath.Join(t.TempDir(), "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	c.physicTs.Store(spec.Physic)
	c.logicsDurable.Store(spec.Logics)
	c.indexTs.Store(spec.Index)
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	if want := readGolden(t, "checkpoint.bin"); !bytes.Equal(c.data, want) {
		t.Fatalf("checkpoint differs from Java's")
	}
	c.close()
}

func TestGolden_Hashes(t *testing.T) {
	var h struct {
		Rows []struct {
			String       string `json:"string"`
			TagsCode     int64  `json:"tagsCode"`
			IndexKeyHash int32  `json:"indexKeyHash"`
			SlotDefault  int    `json:"indexSlotDefault"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(readGolden(t, "hashes.json"), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range h.Rows {
		tags := int64(0)
		if r.String != "" {
			tags = int64(compat.JavaHashCode(r.String))
		}
		if tags != r.TagsCode || keyHash(r.String) != r.IndexKeyHash || int(keyHash(r.String))%5000000 != r.SlotDefault {
			t.Errorf("%q: tags %d hash %d, Java %d %d", r.String, tags, keyHash(r.String), r.TagsCode, r.IndexKeyHash)
		}
	}
}
