package codec

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// DefaultMaxFrameSize is Java's com.rocketmq.remoting.frameMaxLength default. Netty
// compares the length word plus its own 4 bytes against it.
const DefaultMaxFrameSize = 16 << 20

// Errors returned by the decoder. ErrIncomplete is not a failure: more bytes are needed.
var (
	// ErrIncomplete is returned when the buffered bytes do not yet hold a whole frame.
	ErrIncomplete = errors.New("codec: incomplete frame")
	// ErrFrameTooLarge is returned when a frame's length exceeds the maximum frame size.
	ErrFrameTooLarge = errors.New("codec: frame too large")
	// ErrMalformed is returned when a frame or header cannot be decoded.
	ErrMalformed = errors.New("codec: malformed frame")
)

// Reader is what the decoder needs from a connection's inbound buffer; gnet.Conn has it.
// Bytes returned by Peek and Next are borrowed until the next call.
type Reader interface {
	Peek(n int) ([]byte, error)
	Next(n int) ([]byte, error)
	InboundBuffered() int
}

// FrameSize returns the size of the frame starting with prefix (at least 4 bytes),
// length word included, after checking it against maxFrame.
func FrameSize(prefix []byte, maxFrame int) (int, error) {
	total := int64(int32(binary.BigEndian.Uint32(prefix)))
	if total+4 > int64(maxFrame) {
		return 0, fmt.Errorf("%w: %d bytes, limit %d", ErrFrameTooLarge, total+4, maxFrame)
	}
	if total < 4 {
		return 0, fmt.Errorf("%w: frame length %d", ErrMalformed, total)
	}
	return int(total) + 4, nil
}

// nextFrame takes one whole frame (length word included) from r, or returns
// ErrIncomplete, consuming nothing, when it is not fully buffered yet.
func nextFrame(r Reader, maxFrame int) ([]byte, error) {
	if r.InboundBuffered() < 4 {
		return nil, ErrIncomplete
	}
	p, err := r.Peek(4)
	if err != nil {
		return nil, ErrIncomplete
	}
	size, err := FrameSize(p, maxFrame)
	if err != nil {
		return nil, err
	}
	if r.InboundBuffered() < size {
		return nil, ErrIncomplete
	}
	frame, err := r.Next(size)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return frame, nil
}

// ReadCommand takes one whole frame from r and decodes it into an owned command. It
// returns ErrIncomplete, consuming nothing, when the frame is not fully buffered.
func ReadCommand(r Reader, maxFrame int) (*protocol.Command, error) {
	frame, err := nextFrame(r, maxFrame)
	if err != nil {
		return nil, err
	}
	return Decode(frame)
}

// ReadCommandInPlace is ReadCommand without the copy: the command is decoded inside r's
// buffer (JSON escapes are undone there) and its strings and body point into it. It is
// valid only until r is read again; callers that keep it call Clone.
func ReadCommandInPlace(r Reader, maxFrame int) (*protocol.Command, error) {
	frame, err := nextFrame(r, maxFrame)
	if err != nil {
		return nil, err
	}
	return DecodeOwned(frame[4:])
}

// Decode decodes a whole frame (length word included) into a command that owns a copy
// of the bytes.
func Decode(frame []byte) (*protocol.Command, error) {
	if len(frame) < 8 {
		return nil, fmt.Errorf("%w: %d bytes", ErrMalformed, len(frame))
	}
	buf := make([]byte, len(frame)-4)
	copy(buf, frame[4:])
	return DecodeOwned(buf)
}

// DecodeOwned decodes a frame without its length word, taking ownership of buf: the
// command's strings and body point into it and JSON escapes are rewritten in place.
func DecodeOwned(buf []byte) (*protocol.Command, error) {
	if len(buf) < 4 {
		return nil, fmt.Errorf("%w: %d bytes", ErrMalformed, len(buf))
	}
	word := binary.BigEndian.Uint32(buf)
	st := protocol.SerializeType(word >> 24)
	hlen := int(word & 0xFFFFFF)
	if hlen > len(buf)-4 {
		return nil, fmt.Errorf("%w: header length %d exceeds frame %d", ErrMalformed, hlen, len(buf)-4)
	}
	c := protocol.AcquireCommand()
	c.Serialize = st
	hdr := buf[4 : 4+hlen]
	var err error
	switch st {
	case protocol.SerializeJSON:
		err = decodeJSONHeader(hdr, c)
	case protocol.SerializeRocketMQ:
		err = decodeRocketMQHeader(hdr, c)
	default:
		err = fmt.Errorf("%w: serialize type %d", ErrMalformed, st)
	}
	if err != nil {
		protocol.ReleaseCommand(c)
		return nil, err
	}
	if body := buf[4+hlen:]; len(body) > 0 {
		c.Body = body[:len(body):len(body)]
	}
	return c, nil
}

// AppendFrame appends the whole frame of c (header and body) to dst, serializing the
// header in c.Serialize.
func AppendFrame(dst []byte, c *protocol.Command) []byte {
	dst = AppendFrameHeader(dst, c, len(c.Body))
	return append(dst, c.Body...)
}

// AppendFrameHeader appends the length words and the serialized header of c for a body
// of bodyLen bytes that the caller writes itself (for zero-copy bodies).
func AppendFrameHeader(dst []byte, c *protocol.Command, bodyLen int) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	if c.Serialize == protocol.SerializeRocketMQ {
		dst = appendRocketMQHeader(dst, c)
	} else {
		dst = appendJSONHeader(dst, c)
	}
	hlen := len(dst) - start - 8
	binary.BigEndian.PutUint32(dst[start:], uint32(4+hlen+bodyLen))
	binary.BigEndian.PutUint32(dst[start+4:], uint32(c.Serialize)<<24|uint32(hlen)&0xFFFFFF)
	return dst
}

// AppendRawFrame appends a frame around an already serialized header, for tests and tools.
func AppendRawFrame(dst []byte, st protocol.SerializeType, header, body []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(4+len(header)+len(body)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(st)<<24|uint32(len(header))&0xFFFFFF)
	dst = append(dst, header...)
	return append(dst, body...)
}
