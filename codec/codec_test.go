package codec

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// goRouteJSON is the frame the Go client (v2, version 317) sends for
// GET_ROUTEINFO_BY_TOPIC topic=T (protocol-facts.md §1.1, captured from the client).
var goRouteJSON = append(mustHex("0000006800000064"),
	`{"code":105,"language":"GO","version":317,"opaque":1,"flag":0,"remark":"","extFields":{"topic":"T"}}`...)

// goRouteRocketMQ is the same request in the ROCKETMQ binary header (§1.1).
var goRouteRocketMQ = mustHex("00000025" + "01000021" + "0069" + "09" + "013d" + "00000001" + "00000000" +
	"00000000" + "0000000c" + "0005" + "746f706963" + "00000001" + "54")

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func checkRoute(t *testing.T, c *protocol.Command, st protocol.SerializeType) {
	t.Helper()
	if c.Code != 105 || c.Language != protocol.LanguageGo || c.Version != 317 || c.Opaque != 1 || c.Flag != 0 {
		t.Fatalf("fixed fields: %+v", c)
	}
	if c.Serialize != st {
		t.Fatalf("serialize %v, want %v", c.Serialize, st)
	}
	if v, ok := c.Ext.Get("topic"); !ok || v != "T" || len(c.Ext) != 1 {
		t.Fatalf("ext %v", c.Ext)
	}
	if c.Body != nil {
		t.Fatalf("body %q", c.Body)
	}
}

func TestDecode_GoClientFrames(t *testing.T) {
	c, err := Decode(goRouteJSON)
	if err != nil {
		t.Fatal(err)
	}
	checkRoute(t, c, protocol.SerializeJSON)
	if c.Remark != "" || !c.HasRemark {
		t.Fatalf("remark %q has=%v", c.Remark, c.HasRemark)
	}
	c, err = Decode(goRouteRocketMQ)
	if err != nil {
		t.Fatal(err)
	}
	checkRoute(t, c, protocol.SerializeRocketMQ)
	if c.HasRemark {
		t.Fatal("zero-length remark must decode as null")
	}
}

func TestEncode_RocketMQ_MatchesGoClientBytes(t *testing.T) {
	c := &protocol.Command{Code: 105, Language: protocol.LanguageGo, Version: 317, Opaque: 1, Serialize: protocol.SerializeRocketMQ}
	c.Ext.Set("topic", "T")
	if got := AppendFrame(nil, c); !bytes.Equal(got, goRouteRocketMQ) {
		t.Fatalf("got  %x\nwant %x", got, goRouteRocketMQ)
	}
}

func TestEncode_JSON_JavaShape(t *testing.T) {
	req, _ := Decode(goRouteJSON)
	resp := protocol.NewResponse(req, protocol.ResTopicNotExist, "No topic route info in name server for the topic: T")
	resp.Ext.Set("k", "a\x01b\x02\"q\"")
	frame := AppendFrame(nil, resp)
	want := `{"code":17,"extFields":{"k":"a\u0001b\u0002\"q\""},"flag":1,"language":"JAVA","opaque":1,` +
		`"remark":"No topic route info in name server for the topic: T","serializeTypeCurrentRPC":"JSON","version":409}`
	if got := string(frame[8:]); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	back, err := Decode(frame)
	if err != nil {
		t.Fatal(err)
	}
	if back.Ext.Value("k") != "a\x01b\x02\"q\"" || back.Code != 17 || !back.IsResponse() {
		t.Fatalf("round trip: %+v", back)
	}
}

func TestDecode_JSON_Lenient(t *testing.T) {
	cases := []struct {
		name, hdr string
		check     func(*protocol.Command) bool
	}{
		{"numbers as strings, unknown keys, nulls", `{ "code" : "34", "extra":{"a":[1,2,{"b":null}]}, "language":"JAVA","remark":null,"extFields":null,"opaque":-7 }`,
			func(c *protocol.Command) bool {
				return c.Code == 34 && c.Opaque == -7 && !c.HasRemark && len(c.Ext) == 0
			}},
		{"ext values of other JSON types", `{"code":10,"extFields":{"n":5,"b":true,"z":null,"s":"x","o":{"y":1}}}`,
			func(c *protocol.Command) bool {
				return c.Ext.Value("n") == "5" && c.Ext.Value("b") == "true" && c.Ext.Value("s") == "x" && c.Ext.Value("o") == `{"y":1}` && len(c.Ext) == 4
			}},
		{"language as a number", `{"code":1,"language":9}`, func(c *protocol.Command) bool { return c.Language == protocol.LanguageGo }},
		{"unicode escapes and surrogates", `{"code":1,"remark":"\u4e2d\ud83d\ude00\n\/"}`, func(c *protocol.Command) bool { return c.Remark == "中😀\n/" }},
		{"empty object", `{}`, func(c *protocol.Command) bool { return c.Code == 0 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			frame := AppendRawFrame(nil, protocol.SerializeJSON, []byte(tc.hdr), nil)
			c, err := Decode(frame)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(c) {
				t.Fatalf("unexpected decode: %+v", c)
			}
		})
	}
}

func TestDecode_Malformed(t *testing.T) {
	bad := map[string][]byte{
		"short":             {0, 0, 0, 4},
		"header too long":   mustHex("0000000800000010" + "7b7d7b7d"),
		"serialize type 2":  AppendRawFrame(nil, 2, []byte("{}"), nil),
		"json not object":   AppendRawFrame(nil, protocol.SerializeJSON, []byte("[1]"), nil),
		"json unterminated": AppendRawFrame(nil, protocol.SerializeJSON, []byte(`{"code":1,"remark":"abc`), nil),
		"json bad int":      AppendRawFrame(nil, protocol.SerializeJSON, []byte(`{"code":"x"}`), nil),
		"rocketmq short":    AppendRawFrame(nil, protocol.SerializeRocketMQ, []byte{0, 1}, nil),
		"rocketmq remark":   AppendRawFrame(nil, protocol.SerializeRocketMQ, mustHex("0001000001000000000000000000007fffffff"), nil),
	}
	for name, f := range bad {
		if _, err := Decode(f); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
}

// byteReader delivers its data one byte per "read event", like the slowest TCP peer.
type byteReader struct {
	data  []byte
	avail int
	pos   int
}

func (r *byteReader) Peek(n int) ([]byte, error) {
	if r.avail-r.pos < n {
		return nil, errors.New("short")
	}
	return r.data[r.pos : r.pos+n], nil
}

func (r *byteReader) Next(n int) ([]byte, error) {
	b, err := r.Peek(n)
	r.pos += n
	return b, err
}

func (r *byteReader) InboundBuffered() int { return r.avail - r.pos }

func TestReadCommand_OneByteAtATime(t *testing.T) {
	body := []byte("hello body")
	req := protocol.NewRequest(protocol.CodeSendMessage)
	req.Opaque = 42
	req.Ext.Set("topic", "T")
	stream := AppendFrame(nil, req)
	req.Body, req.Opaque = body, 43
	stream = AppendFrame(stream, req)
	stream = append(stream, goRouteRocketMQ...)
	r := &byteReader{data: stream}
	var got []*protocol.Command
	for r.avail < len(stream) {
		r.avail++
		for {
			c, err := ReadCommand(r, DefaultMaxFrameSize)
			if errors.Is(err, ErrIncomplete) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, c)
		}
	}
	if len(got) != 3 || got[0].Opaque != 42 || got[1].Opaque != 43 || string(got[1].Body) != "hello body" || got[2].Code != 105 {
		t.Fatalf("decoded %d commands: %+v", len(got), got)
	}
}

func TestReadCommand_FrameTooLarge(t *testing.T) {
	r := &byteReader{data: mustHex("01000000" + "00000000"), avail: 8}
	if _, err := ReadCommand(r, DefaultMaxFrameSize); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("err = %v", err)
	}
	// Netty's limit counts the length word: 16 MiB - 4 is the largest accepted total.
	if _, err := FrameSize(mustHex("00fffffc"), DefaultMaxFrameSize); err != nil {
		t.Fatalf("16MiB-4 rejected: %v", err)
	}
	if _, err := FrameSize(mustHex("00fffffd"), DefaultMaxFrameSize); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("16MiB-3 accepted: %v", err)
	}
}

func TestRoundTrip_BothSerializeTypes(t *testing.T) {
	for _, st := range []protocol.SerializeType{protocol.SerializeJSON, protocol.SerializeRocketMQ} {
		h := protocol.SendMessageRequestHeader{ProducerGroup: "PG", Topic: "T", DefaultTopic: "TBW102", DefaultTopicQueueNums: 4,
			QueueID: 3, BornTimestamp: 1700000000000, Properties: "TAGS\x01a\x02KEYS\x01k1 k2", HasReconsumeTimes: true, ReconsumeTimes: 2}
		c := protocol.NewRequest(protocol.CodeSendMessageV2)
		c.Serialize = st
		h.EncodeV2(&c.Ext)
		c.Body = []byte(strings.Repeat("x", 100))
		back, err := Decode(AppendFrame(nil, c))
		if err != nil {
			t.Fatal(err)
		}
		var got protocol.SendMessageRequestHeader
		if err := got.Decode(back.Ext); err != nil {
			t.Fatal(err)
		}
		if got != h {
			t.Fatalf("%v: header\n got %+v\nwant %+v", st, got, h)
		}
		if len(back.Body) != 100 {
			t.Fatalf("body %d", len(back.Body))
		}
	}
}

func TestHeader_MissingRequiredField(t *testing.T) {
	c := protocol.NewRequest(protocol.CodeGetRouteinfoByTopic)
	var h protocol.GetRouteInfoRequestHeader
	err := h.Decode(c.Ext)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.ResSystemError || !strings.Contains(pe.Remark, "the custom field <topic> is null") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzJSONStringUnescape checks the in-place unescaper against encoding/json: any string
// encoding/json writes (with its own escapes: \u003c, \u2028, surrogate pairs) must come
// back unchanged in both the remark and an extFields value.
func FuzzJSONStringUnescape(f *testing.F) {
	f.Add("plain")
	f.Add("TAGS\x01a\x02KEYS\x01k1 k2\x02")
	f.Add("quote\" backslash\\ <html> & \u2028 \U0001F600 \t\n")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		enc, err := json.Marshal(s)
		if err != nil {
			t.Skip()
		}
		hdr := `{"code":10,"remark":` + string(enc) + `,"extFields":{"k":` + string(enc) + `}}`
		c, err := Decode(AppendRawFrame(nil, protocol.SerializeJSON, []byte(hdr), nil))
		if err != nil {
			t.Fatalf("decode %s: %v", hdr, err)
		}
		if c.Remark != s || c.Ext.Value("k") != s {
			t.Fatalf("got %q / %q, want %q", c.Remark, c.Ext.Value("k"), s)
		}
	})
}
