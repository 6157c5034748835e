package message

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

// Goldens written by Java 4.9.8's own classes (store/testdata/java/README.md).
const goldenDir = "../../store/testdata/java"

func TestGolden_JavaRecords_DecodeAndReencode(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(goldenDir, "index.json"))
	if err != nil {
		t.Fatalf("Java goldens missing: %v", err)
	}
	var ix struct {
		Files []struct {
			File    string `json:"file"`
			Decoded *struct {
				StoreSize      int32             `json:"storeSize"`
				BodyCRC        int32             `json:"bodyCRC"`
				QueueID        int32             `json:"queueId"`
				QueueOffset    int64             `json:"queueOffset"`
				CommitLogOff   int64             `json:"commitLogOffset"`
				SysFlag        int32             `json:"sysFlag"`
				BornTimestamp  int64             `json:"bornTimestamp"`
				BornHost       string            `json:"bornHost"`
				BornPort       uint16            `json:"bornPort"`
				StoreTimestamp int64             `json:"storeTimestamp"`
				StoreHost      string            `json:"storeHost"`
				StorePort      uint16            `json:"storePort"`
				Body           string            `json:"body"`
				Topic          string            `json:"topic"`
				Properties     map[string]string `json:"properties"`
				MsgID          string            `json:"msgId"`
			} `json:"decoded"`
		} `json:"files"`
	}
	if err := json.Unmarshal(raw, &ix); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range ix.Files {
		d := f.Decoded
		if d == nil {
			continue
		}
		n++
		b, err := os.ReadFile(filepath.Join(goldenDir, f.File))
		if err != nil {
			t.Fatal(err)
		}
		r, err := DecodeRecord(b)
		if err != nil {
			t.Fatalf("%s: %v", f.File, err)
		}
		bornHost := netip.AddrPortFrom(netip.MustParseAddr(d.BornHost), d.BornPort)
		storeHost := netip.AddrPortFrom(netip.MustParseAddr(d.StoreHost), d.StorePort)
		if r.StoreSize != d.StoreSize || r.BodyCRC != d.BodyCRC || !r.CRCValid() || r.QueueID != d.QueueID ||
			r.QueueOffset != d.QueueOffset || r.PhysicalOffset != d.CommitLogOff || r.SysFlag != d.SysFlag ||
			r.BornTimestamp != d.BornTimestamp || r.BornHost != bornHost || r.StoreTimestamp != d.StoreTimestamp ||
			r.StoreHost != storeHost || string(r.Body) != d.Body || string(r.Topic) != d.Topic || r.OffsetMsgID() != d.MsgID {
			t.Fatalf("%s decoded as %+v, Java %+v", f.File, r, d)
		}
		p := ParseProperties(string(r.Properties))
		if p.Len() != len(d.Properties) {
			t.Fatalf("%s: %d properties, Java %d", f.File, p.Len(), len(d.Properties))
		}
		for k, v := range d.Properties {
			if got, ok := p.Get(k); !ok || got != v {
				t.Fatalf("%s: %s=%q, Java %q", f.File, k, got, v)
			}
		}
		m := &Message{Topic: d.Topic, QueueID: d.QueueID, Body: r.Body, SysFlag: d.SysFlag, BornTimestamp: d.BornTimestamp,
			BornHost: bornHost, StoreHost: storeHost, Properties: r.Properties}
		out := make([]byte, RecordSize(m))
		EncodeRecord(out, m, BodyCRC(m.Body), d.QueueOffset, d.CommitLogOff, d.StoreTimestamp)
		if !bytes.Equal(out, b) {
			t.Fatalf("%s: our encoding\n% x\nJava\n% x", f.File, out, b)
		}
	}
	if n < 4 {
		t.Fatalf("only %d record goldens", n)
	}
}

func TestGolden_JavaOffsetMsgIDs(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(goldenDir, "ids.json"))
	if err != nil {
		t.Fatalf("Java goldens missing: %v", err)
	}
	var ids struct {
		OffsetMsgIDs []struct {
			Host        string `json:"host"`
			Port        uint16 `json:"port"`
			Offset      int64  `json:"offset"`
			OffsetMsgID string `json:"offsetMsgId"`
		} `json:"offsetMsgIds"`
	}
	if err := json.Unmarshal(raw, &ids); err != nil || len(ids.OffsetMsgIDs) == 0 {
		t.Fatalf("ids.json: %v", err)
	}
	for _, id := range ids.OffsetMsgIDs {
		host := netip.AddrPortFrom(netip.MustParseAddr(id.Host), id.Port)
		if got := CreateOffsetMsgID(host, id.Offset); got != id.OffsetMsgID {
			t.Errorf("create %v/%d = %s, Java %s", host, id.Offset, got, id.OffsetMsgID)
		}
		h, off, err := DecodeOffsetMsgID(id.OffsetMsgID)
		if err != nil || h != host || off != id.Offset {
			t.Errorf("decode %s = %v %d %v", id.OffsetMsgID, h, off, err)
		}
	}
}
