package codec

// Golden frames printed by Java's RemotingCommand (RocketMQ 4.9.8), checked in under
// testdata/golden and never edited by hand (conformance/java regenerates and diffs them).
// Every frame must decode to the fields Java recorded, and re-encoding the decoded command
// must give Java's bytes back whenever Java's own Netty encoder produced them
// (sameAsNettyEncoder).

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

type goldenFrame struct {
	File               string            `json:"file"`
	SerializeType      string            `json:"serializeType"`
	Code               int32             `json:"code"`
	Language           string            `json:"language"`
	Version            int32             `json:"version"`
	Opaque             int32             `json:"opaque"`
	Flag               int32             `json:"flag"`
	Remark             *string           `json:"remark"`
	ExtFields          map[string]string `json:"extFields"`
	ExtFieldsOrder     []string          `json:"extFieldsOrder"`
	BodyLength         int               `json:"bodyLength"`
	BodyHex            *string           `json:"bodyHex"`
	SameAsNettyEncoder bool              `json:"sameAsNettyEncoder"`
}

func loadGoldenFrames(t *testing.T) []goldenFrame {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Files []goldenFrame `json:"files"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	if len(idx.Files) < 20 {
		t.Fatalf("only %d golden frames", len(idx.Files))
	}
	return idx.Files
}

func readHexFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(strings.Join(strings.Fields(string(data)), ""))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b
}

func TestGolden_JavaFrames_DecodeAndReencode(t *testing.T) {
	for _, g := range loadGoldenFrames(t) {
		t.Run(g.File, func(t *testing.T) {
			frame := readHexFile(t, g.File)
			c, err := Decode(frame)
			if err != nil {
				t.Fatal(err)
			}
			wantST := protocol.SerializeJSON
			if g.SerializeType == "ROCKETMQ" {
				wantST = protocol.SerializeRocketMQ
			}
			if c.Serialize != wantST || c.Code != g.Code || c.Version != g.Version || c.Opaque != g.Opaque || c.Flag != g.Flag ||
				c.Language.String() != g.Language {
				t.Fatalf("fixed fields: %+v", c)
			}
			if (g.Remark == nil) == c.HasRemark || (g.Remark != nil && *g.Remark != c.Remark) {
				t.Fatalf("remark %q (has %v), want %v", c.Remark, c.HasRemark, g.Remark)
			}
			if len(c.Ext) != len(g.ExtFields) {
				t.Fatalf("ext %v, want %v", c.Ext, g.ExtFields)
			}
			for i, kv := range c.Ext {
				if g.ExtFields[kv.Key] != kv.Value {
					t.Fatalf("ext %s = %q, want %q", kv.Key, kv.Value, g.ExtFields[kv.Key])
				}
				if i < len(g.ExtFieldsOrder) && g.ExtFieldsOrder[i] != kv.Key {
					t.Fatalf("ext order %v, Java's %v", c.Ext, g.ExtFieldsOrder)
				}
			}
			if len(c.Body) != g.BodyLength {
				t.Fatalf("body %d bytes, want %d", len(c.Body), g.BodyLength)
			}
			if g.BodyHex != nil {
				if want, _ := hex.DecodeString(*g.BodyHex); !bytes.Equal(c.Body, want) {
					t.Fatal("body differs")
				}
			}
			if !g.SameAsNettyEncoder {
				return // Java's in-memory encoder differs from what its Netty encoder puts on the wire
			}
			if got := AppendFrame(nil, c); !bytes.Equal(got, frame) {
				t.Fatalf("re-encoded frame differs from Java's\n got %x\nwant %x", got, frame)
			}
		})
	}
}
