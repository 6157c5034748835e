package store

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

// TestStore_OpenJavaStore opens each store directory written by Java 4.9.x under
// testdata/java-store* (produced by conformance/java; see its README) on a copy, reads
// every ConsumeQueue unit back through GetMessage and checks the records. When the
// fixture's manifest.json lists messages (topic, queueId, body), they must all be there.
// It is skipped until the fixture exists.
func TestStore_OpenJavaStore(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/java-store*")
	found := false
	for _, dir := range dirs {
		if st, err := os.Stat(filepath.Join(dir, "commitlog")); err != nil || !st.IsDir() {
			continue
		}
		found = true
		t.Run(filepath.Base(dir), func(t *testing.T) { checkJavaStore(t, dir) })
	}
	if !found {
		t.Skip("no Java-written store fixture under store/testdata/java-store yet")
	}
}

func firstFileSize(t *testing.T, pattern string) int64 {
	t.Helper()
	files, _ := filepath.Glob(pattern)
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	}
	return 0
}

func checkJavaStore(t *testing.T, src string) {
	c := DefaultConfig(t.TempDir())
	copyDir(t, src, c.RootDir)
	_ = os.Remove(filepath.Join(c.RootDir, "lock"))
	c.MappedFileSizeCommitLog = firstFileSize(t, filepath.Join(c.RootDir, "commitlog", "*"))
	if n := firstFileSize(t, filepath.Join(c.RootDir, "consumequeue", "*", "*", "*")); n > 0 {
		c.MappedFileSizeConsumeQueue = n
	}
	c.MessageIndexEnable = false
	if n := firstFileSize(t, filepath.Join(c.RootDir, "index", "*")); n > 40 && (n-40)%84 == 0 {
		// Java's default maxIndexNum is 4 x maxHashSlotNum.
		c.MessageIndexEnable = true
		c.MaxHashSlotNum = int((n - 40) / 84)
		c.MaxIndexNum = 4 * c.MaxHashSlotNum
	}
	s, err := Open(c)
	if err != nil {
		t.Fatalf("Open a Java store: %v", err)
	}
	defer s.Close()
	got := map[cqKey][]string{}
	for _, topic := range s.Topics() {
		queues, _ := os.ReadDir(filepath.Join(c.RootDir, "consumequeue", topic))
		for _, q := range queues {
			id, err := strconv.Atoi(q.Name())
			if err != nil {
				continue
			}
			qid := int32(id)
			for off := s.MinOffsetInQueue(topic, qid); off < s.MaxOffsetInQueue(topic, qid); {
				r := s.GetMessage("g", topic, qid, off, 32, nil)
				if r.Status != GetFound {
					t.Fatalf("%s/%d at %d: %v", topic, qid, off, r.Status)
				}
				for i, b := range r.Buffers {
					rec, err := message.DecodeRecord(b)
					if err != nil || !rec.CRCValid() || string(rec.Topic) != topic || rec.QueueID != qid || rec.QueueOffset != r.QueueOffsets[i] {
						t.Fatalf("%s/%d record %d: %+v %v", topic, qid, r.QueueOffsets[i], rec, err)
					}
					body := rec.Body
					if rec.SysFlag&message.FlagCompressed != 0 { // the broker stores what the producer compressed
						if zr, err := zlib.NewReader(bytes.NewReader(body)); err == nil {
							if plain, err := io.ReadAll(zr); err == nil {
								body = plain
							}
						}
					}
					got[cqKey{topic, qid}] = append(got[cqKey{topic, qid}], string(body))
				}
				off = r.NextBeginOffset
				r.Release()
			}
		}
	}
	if len(got) == 0 {
		t.Fatal("no message read from the Java store")
	}
	want := readManifest(t, filepath.Join(src, "manifest.json"))
	if want == nil {
		t.Logf("manifest.json not understood: checked %d queues structurally only", len(got))
		return
	}
	for k, bodies := range want {
		have := map[string]int{}
		for _, b := range got[k] {
			have[b]++
		}
		for _, b := range bodies {
			if have[b] == 0 {
				t.Errorf("%s/%d: message %q from the manifest not read back", k.topic, k.queueID, b)
			}
			have[b]--
		}
	}
}

// readManifest understands a JSON array of messages, or an object whose "messages"
// field is one, each with "topic", "queueId" and a string "body"; nil otherwise.
func readManifest(t *testing.T, path string) map[cqKey][]string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var list []map[string]any
	if json.Unmarshal(raw, &list) != nil {
		var obj struct {
			Messages []map[string]any `json:"messages"`
		}
		if json.Unmarshal(raw, &obj) != nil {
			return nil
		}
		list = obj.Messages
	}
	out := map[cqKey][]string{}
	for _, m := range list {
		topic, ok1 := m["topic"].(string)
		qid, ok2 := m["queueId"].(float64)
		body, ok3 := m["body"].(string)
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		out[cqKey{topic, int32(qid)}] = append(out[cqKey{topic, int32(qid)}], body)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
