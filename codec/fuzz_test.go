package codec

import (
	"errors"
	"testing"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// FuzzDecodeFrame feeds arbitrary bytes to the frame reader, both whole and one byte at
// a time, and checks that whatever decodes re-encodes to an equal command.
// Seeds: the Go client's GET_ROUTEINFO frame in JSON and in ROCKETMQ form, a response
// with escapes in extFields, an oversized length word, and a truncated header.
func FuzzDecodeFrame(f *testing.F) {
	f.Add(goRouteJSON)
	f.Add(goRouteRocketMQ)
	resp := protocol.NewResponse(&protocol.Command{Opaque: 9}, protocol.ResSuccess, "ok\x01")
	resp.Ext.Set("msgId", "C0A8000100002A9F0000000000000000")
	f.Add(AppendFrame(nil, resp))
	f.Add(mustHex("7fffffff00000000"))
	f.Add(mustHex("0000000a0000000a7b22636f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		whole := &byteReader{data: data, avail: len(data)}
		var a []*protocol.Command
		for {
			c, err := ReadCommand(whole, 1<<20)
			if err != nil {
				break
			}
			a = append(a, c)
		}
		split := &byteReader{data: data}
		var b []*protocol.Command
	feed:
		for split.avail < len(data) {
			split.avail++
			for {
				c, err := ReadCommand(split, 1<<20)
				if errors.Is(err, ErrIncomplete) {
					break
				}
				if err != nil {
					break feed
				}
				b = append(b, c)
			}
		}
		if len(a) != len(b) {
			t.Fatalf("whole decoded %d commands, split %d", len(a), len(b))
		}
		for _, c := range a {
			checkReencode(t, c)
		}
	})
}

func checkReencode(t *testing.T, c *protocol.Command) {
	t.Helper()
	if c.Serialize > protocol.SerializeRocketMQ {
		t.Fatalf("serialize type %d decoded", c.Serialize)
	}
	back, err := Decode(AppendFrame(nil, c))
	if err != nil {
		t.Fatalf("re-decode: %v", err)
	}
	if back.Code != c.Code || back.Opaque != c.Opaque || back.Flag != c.Flag || back.Remark != c.Remark || string(back.Body) != string(c.Body) {
		// ROCKETMQ headers keep code and version in 16 bits.
		if c.Serialize == protocol.SerializeRocketMQ || (c.Code == int32(int16(c.Code))) {
			t.Fatalf("round trip changed the command:\n%+v\n%+v", c, back)
		}
	}
	if len(back.Ext) != len(c.Ext) {
		if c.Serialize == protocol.SerializeJSON {
			t.Fatalf("ext count %d -> %d", len(c.Ext), len(back.Ext))
		}
	}
}

// FuzzDecodeHeaderJSON targets the JSON header scanner directly.
// Seeds: the Go client's header, Java's response header shape, and nested unknown keys.
func FuzzDecodeHeaderJSON(f *testing.F) {
	f.Add([]byte(`{"code":105,"language":"GO","version":317,"opaque":1,"flag":0,"remark":"","extFields":{"topic":"T"}}`))
	f.Add([]byte(`{"code":0,"flag":1,"language":"JAVA","opaque":0,"serializeTypeCurrentRPC":"JSON","version":403}`))
	f.Add([]byte(`{"x":{"y":[1,{"z":"\ud83d\ude00"}]},"extFields":{"a":"\u0001\u0002"}}`))
	f.Fuzz(func(t *testing.T, hdr []byte) {
		c, err := Decode(AppendRawFrame(nil, protocol.SerializeJSON, hdr, nil))
		if err != nil {
			return
		}
		checkReencode(t, c)
	})
}

// FuzzDecodeHeaderRocketMQ targets the binary header decoder.
// Seeds: the Go client's binary GET_ROUTEINFO header and a header with a remark.
func FuzzDecodeHeaderRocketMQ(f *testing.F) {
	f.Add(goRouteRocketMQ[8:])
	c := protocol.NewResponse(&protocol.Command{Serialize: protocol.SerializeRocketMQ}, protocol.ResSystemError, "boom")
	c.Ext.Set("k", "v")
	f.Add(AppendFrame(nil, c)[8:])
	f.Fuzz(func(t *testing.T, hdr []byte) {
		c, err := Decode(AppendRawFrame(nil, protocol.SerializeRocketMQ, hdr, nil))
		if err != nil {
			return
		}
		checkReencode(t, c)
	})
}
