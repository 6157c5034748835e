package codec

import (
	"testing"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// javaSendV2 is a SEND_MESSAGE_V2 request as the Java client shapes it.
func javaSendV2(st protocol.SerializeType) []byte {
	h := protocol.SendMessageRequestHeader{ProducerGroup: "please_rename_unique_group_name", Topic: "TopicTest",
		DefaultTopic: "TBW102", DefaultTopicQueueNums: 4, QueueID: 1, SysFlag: 0, BornTimestamp: 1700000000000,
		Properties:        "KEYS\x01OrderID188\x02UNIQ_KEY\x017F0000010B6018B4AAC2630B1EC00000\x02WAIT\x01true\x02TAGS\x01TagA",
		HasReconsumeTimes: true, HasMaxReconsumeTimes: true, MaxReconsumeTimes: 16}
	c := protocol.NewRequest(protocol.CodeSendMessageV2)
	c.Serialize = st
	c.Opaque = 12345
	h.EncodeV2(&c.Ext)
	c.Body = make([]byte, 1024)
	return AppendFrame(nil, c)
}

func benchDecode(b *testing.B, st protocol.SerializeType) {
	frame := javaSendV2(st)
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	var h protocol.SendMessageRequestHeader
	for b.Loop() {
		c, err := Decode(frame)
		if err != nil {
			b.Fatal(err)
		}
		if err := h.Decode(c.Ext); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode_SendV2_JSON: the steady-state decode allocates the owned frame copy and
// the command only (2 allocs/op).
func BenchmarkDecode_SendV2_JSON(b *testing.B)     { benchDecode(b, protocol.SerializeJSON) }
func BenchmarkDecode_SendV2_RocketMQ(b *testing.B) { benchDecode(b, protocol.SerializeRocketMQ) }

func benchEncode(b *testing.B, st protocol.SerializeType) {
	h := protocol.SendMessageResponseHeader{MsgID: "7F00000100002A9F0000000000001234", QueueID: 3, QueueOffset: 123456, MsgRegion: "DefaultRegion", TraceOn: "true"}
	req := &protocol.Command{Opaque: 77, Serialize: st}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		c := protocol.NewResponse(req, protocol.ResSuccess, "")
		h.Encode(&c.Ext)
		buf = AppendFrame(buf[:0], c)
	}
}

// BenchmarkEncode_SendResponse_JSON: encoding into a reused buffer allocates only the
// response command (and the queue offset's text).
func BenchmarkEncode_SendResponse_JSON(b *testing.B)     { benchEncode(b, protocol.SerializeJSON) }
func BenchmarkEncode_SendResponse_RocketMQ(b *testing.B) { benchEncode(b, protocol.SerializeRocketMQ) }

func BenchmarkDecode_GetRoute_JSON(b *testing.B) {
	b.ReportAllocs()
	var h protocol.GetRouteInfoRequestHeader
	for b.Loop() {
		c, _ := Decode(goRouteJSON)
		_ = h.Decode(c.Ext)
	}
}

// frameReader serves one frame again and again, as a connection's read buffer would.
type frameReader struct {
	frame []byte
	buf   []byte
	pos   int
}

func (r *frameReader) reset() {
	r.buf = append(r.buf[:0], r.frame...) // in-place decoding rewrites escapes: start fresh
	r.pos = 0
}
func (r *frameReader) Peek(n int) ([]byte, error) { return r.buf[r.pos : r.pos+n], nil }
func (r *frameReader) Next(n int) ([]byte, error) {
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}
func (r *frameReader) InboundBuffered() int { return len(r.buf) - r.pos }

// BenchmarkReadCommandInPlace_SendV2_JSON is the server's steady-state path: a Java-shaped
// SEND_MESSAGE_V2 decoded in place in the read buffer into a pooled command, its header
// decoded, the command released. It allocates nothing.
func BenchmarkReadCommandInPlace_SendV2_JSON(b *testing.B) {
	r := &frameReader{frame: javaSendV2(protocol.SerializeJSON)}
	r.buf = make([]byte, 0, len(r.frame))
	b.ReportAllocs()
	b.SetBytes(int64(len(r.frame)))
	var h protocol.SendMessageRequestHeader
	for b.Loop() {
		r.reset()
		c, err := ReadCommandInPlace(r, DefaultMaxFrameSize)
		if err != nil {
			b.Fatal(err)
		}
		if err := h.Decode(c.Ext); err != nil {
			b.Fatal(err)
		}
		protocol.ReleaseCommand(c)
	}
}
