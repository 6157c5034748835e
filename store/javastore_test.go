package store

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

// TestStore_OpenJavaStore opens, on a copy, each store directory that a Java 4.9.x
// broker wrote under testdata/java-store/ (conformance/java/make-java-store.sh: "clean"
// after a normal shutdown, "running" copied while the broker ran, with its abort file),
// and reads back every message of its manifest.json: queue offset, CommitLog offset,
// body (SHA-256, after undoing the producer's compression), tags, UNIQ_KEY, offset
// msgId, and the index lookup by UNIQ_KEY. A missing fixture fails the test.
func TestStore_OpenJavaStore(t *testing.T) {
	fixture := "testdata/java-store"
	if d := os.Getenv("SKYROCKET_JAVA_STORE"); d != "" { // another Java-written store, same layout
		fixture = d
	}
	dirs, _ := filepath.Glob(filepath.Join(fixture, "*", "commitlog"))
	if len(dirs) == 0 {
		t.Fatalf("no Java-written store (*/commitlog) under %s: the fixture is missing (regenerate it with conformance/java/make-java-store.sh)", fixture)
	}
	conf := readJavaProperties(t, filepath.Join(fixture, "broker.conf"))
	manifest := readJavaManifest(t, filepath.Join(fixture, "manifest.json"))
	for _, d := range dirs {
		dir := filepath.Dir(d)
		t.Run(filepath.Base(dir), func(t *testing.T) { checkJavaStore(t, dir, conf, manifest) })
	}
}

func readJavaProperties(t *testing.T, path string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("fixture without broker.conf: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

type javaManifestMessage struct {
	Topic           string `json:"topic"`
	QueueID         int32  `json:"queueId"`
	QueueOffset     int64  `json:"queueOffset"`
	CommitLogOffset int64  `json:"commitLogOffset"`
	Tags            string `json:"tags"`
	BodyLength      int    `json:"bodyLength"`
	BodySha256      string `json:"bodySha256"`
	UniqKey         string `json:"uniqKey"`
	OffsetMsgID     string `json:"offsetMsgId"`
}

func readJavaManifest(t *testing.T, path string) []javaManifestMessage {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("fixture without manifest.json: %v", err)
	}
	var m struct {
		Messages []javaManifestMessage `json:"messages"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || len(m.Messages) == 0 {
		t.Fatalf("manifest.json: %v (%d messages)", err, len(m.Messages))
	}
	return m.Messages
}

func checkJavaStore(t *testing.T, src string, conf map[string]string, manifest []javaManifestMessage) {
	c := DefaultConfig(t.TempDir())
	copyDir(t, src, c.RootDir)
	num := func(k string, def int64) int64 {
		if v, err := strconv.ParseInt(conf[k], 10, 64); err == nil {
			return v
		}
		return def
	}
	c.MappedFileSizeCommitLog = num("mappedFileSizeCommitLog", c.MappedFileSizeCommitLog)
	c.MappedFileSizeConsumeQueue = num("mappedFileSizeConsumeQueue", c.MappedFileSizeConsumeQueue)
	c.MaxHashSlotNum = int(num("maxHashSlotNum", int64(c.MaxHashSlotNum)))
	c.MaxIndexNum = int(num("maxIndexNum", int64(c.MaxIndexNum)))
	s, err := Open(c)
	if err != nil {
		t.Fatalf("Open the Java store: %v", err)
	}
	defer s.Close()
	defer func() { t.Logf("%d manifest messages read back", len(manifest)) }()
	for i, m := range manifest {
		r := s.GetMessage("g", m.Topic, m.QueueID, m.QueueOffset, 1, nil)
		if r.Status != GetFound {
			t.Fatalf("message %d (%s/%d@%d): %v", i, m.Topic, m.QueueID, m.QueueOffset, r.Status)
		}
		rec, err := message.DecodeRecord(r.Buffers[0])
		if err != nil || !rec.CRCValid() {
			t.Fatalf("message %d: %v", i, err)
		}
		body := rec.Body
		if rec.SysFlag&message.FlagCompressed != 0 {
			zr, err := zlib.NewReader(bytes.NewReader(body))
			if err == nil {
				body, err = io.ReadAll(zr)
			}
			if err != nil {
				t.Fatalf("message %d: inflate: %v", i, err)
			}
		}
		sum := sha256.Sum256(body)
		tags, _ := rec.Property(message.PropertyTags)
		uniq, _ := rec.Property(message.PropertyUniqClientMessageIDKeyIdx)
		if rec.PhysicalOffset != m.CommitLogOffset || len(body) != m.BodyLength ||
			!strings.EqualFold(hex.EncodeToString(sum[:]), m.BodySha256) || string(tags) != m.Tags ||
			string(uniq) != m.UniqKey || rec.OffsetMsgID() != m.OffsetMsgID {
			t.Fatalf("message %d: read %+v, manifest %+v", i, rec, m)
		}
		r.Release()
		if m.UniqKey != "" && s.index != nil {
			q := s.QueryMessage(m.Topic, m.UniqKey, 32, 0, 1<<62)
			hit := false
			for _, b := range q.Buffers {
				if rr, err := message.DecodeRecord(b); err == nil && rr.PhysicalOffset == m.CommitLogOffset {
					hit = true
				}
			}
			q.Release()
			if !hit {
				t.Errorf("message %d: UNIQ_KEY %s not found in the index", i, m.UniqKey)
			}
		}
	}
}
