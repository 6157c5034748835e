package main

import (
	"testing"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// sendResponseFrame is a SEND_MESSAGE_V2 success as a broker writes it.
func sendResponseFrame(st protocol.SerializeType, opaque int32) []byte {
	req := &protocol.Command{Opaque: opaque, Serialize: st}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	h := protocol.SendMessageResponseHeader{MsgID: "7F00000100002A9F0000000000001234", QueueID: 3, QueueOffset: 99,
		MsgRegion: "DefaultRegion", TraceOn: "true"}
	h.Encode(&resp.Ext)
	return codec.AppendFrame(nil, resp)[4:]
}

func TestReadHeader_FastPath_MatchesCodec(t *testing.T) {
	frames := map[string][]byte{
		"json send response":     sendResponseFrame(protocol.SerializeJSON, 123456),
		"rocketmq send response": sendResponseFrame(protocol.SerializeRocketMQ, -5),
	}
	busy := protocol.NewResponse(&protocol.Command{Opaque: 7}, protocol.ResSystemBusy, `[REJECTREQUEST]system "busy"\`)
	busy.Ext.Set("k", "{not json}")
	frames["json error with escapes"] = codec.AppendFrame(nil, busy)[4:]
	for name, f := range frames {
		want, err := codec.Decode(append([]byte{0, 0, 0, 0}, f...))
		if err != nil {
			t.Fatal(err)
		}
		got, err := scanHeaderFast(f)
		if err != nil {
			t.Fatalf("%s: fast scan failed: %v", name, err)
		}
		if got.code != want.Code || got.opaque != want.Opaque || got.flag != want.Flag {
			t.Fatalf("%s: fast %+v, codec code %d opaque %d flag %d", name, got, want.Code, want.Opaque, want.Flag)
		}
	}
}

func TestReadHeader_Lenient_FallsBack(t *testing.T) {
	cases := map[string]string{
		"escaped key":       `{"co\u0064e":17,"opaque":3,"flag":1}`,
		"number as string":  `{"code":"19","opaque":"-4","flag":1}`,
		"null remark":       `{"code":0,"remark":null,"flag":1,"opaque":8}`,
		"nested extFields":  `{"extFields":{"a":{"b":[1,2,"}"]}},"code":2,"flag":1,"opaque":9}`,
		"plus sign integer": `{"code":+5,"flag":1,"opaque":1}`,
	}
	for name, hdr := range cases {
		f := codec.AppendRawFrame(nil, protocol.SerializeJSON, []byte(hdr), nil)
		want, err := codec.Decode(f)
		if err != nil {
			t.Fatalf("%s: codec: %v", name, err)
		}
		got, err := readHeader(f[4:])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.code != want.Code || got.opaque != want.Opaque || got.flag != want.Flag {
			t.Fatalf("%s: got %+v, codec code %d opaque %d flag %d", name, got, want.Code, want.Opaque, want.Flag)
		}
	}
}

// FuzzReadHeader: whenever the full decoder accepts a frame, readHeader (fast scan or
// its fallback) returns the same code, opaque and flag.
func FuzzReadHeader(f *testing.F) {
	f.Add(byte(0), []byte(`{"code":0,"extFields":{"msgId":"7F00","queueId":"3"},"flag":1,"language":"JAVA","opaque":42,"serializeTypeCurrentRPC":"JSON","version":409}`))
	f.Add(byte(0), []byte(`{"code":"1","opaque":"2147483647","flag":-1}`))
	f.Add(byte(0), []byte(`{"code":2147483648,"opaque":1}`))
	f.Add(byte(0), []byte(`{"remark":"a\"b\\","code":3, "opaque" : 4 ,"flag":1}`))
	f.Add(byte(0), []byte(`{"code":1.5}`))
	f.Add(byte(1), sendResponseFrame(protocol.SerializeRocketMQ, 77)[4:])
	f.Fuzz(func(t *testing.T, st byte, hdr []byte) {
		frame := codec.AppendRawFrame(nil, protocol.SerializeType(st%3), hdr, []byte("body"))
		want, err := codec.Decode(frame)
		if err != nil {
			return
		}
		got, err := readHeader(frame[4:])
		if err != nil {
			t.Fatalf("codec accepts, readHeader fails: %v", err)
		}
		if got.code != want.Code || got.opaque != want.Opaque || got.flag != want.Flag {
			t.Fatalf("got %+v, codec code %d opaque %d flag %d", got, want.Code, want.Opaque, want.Flag)
		}
	})
}
