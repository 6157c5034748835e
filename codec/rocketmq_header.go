package codec

import (
	"encoding/binary"
	"fmt"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

const rocketMQFixedHeader = 2 + 1 + 2 + 4 + 4 + 4 + 4

func decodeRocketMQHeader(b []byte, c *protocol.Command) error {
	if len(b) < rocketMQFixedHeader {
		return fmt.Errorf("%w: rocketmq header of %d bytes", ErrMalformed, len(b))
	}
	c.Code = int32(int16(binary.BigEndian.Uint16(b)))
	c.Language = protocol.LanguageCode(b[2])
	c.Version = int32(int16(binary.BigEndian.Uint16(b[3:])))
	c.Opaque = int32(binary.BigEndian.Uint32(b[5:]))
	c.Flag = int32(binary.BigEndian.Uint32(b[9:]))
	p := 13
	rl := int(int32(binary.BigEndian.Uint32(b[p:])))
	p += 4
	if rl < 0 || rl > len(b)-p {
		return fmt.Errorf("%w: remark length %d", ErrMalformed, rl)
	}
	if rl > 0 {
		c.Remark, c.HasRemark = bstr(b[p:p+rl]), true
	}
	p += rl
	if len(b)-p < 4 {
		return fmt.Errorf("%w: missing extFields length", ErrMalformed)
	}
	el := int(int32(binary.BigEndian.Uint32(b[p:])))
	p += 4
	if el < 0 || el > len(b)-p {
		return fmt.Errorf("%w: extFields length %d", ErrMalformed, el)
	}
	m := b[p : p+el]
	for len(m) > 0 {
		if len(m) < 2 {
			return fmt.Errorf("%w: truncated extFields key", ErrMalformed)
		}
		kl := int(int16(binary.BigEndian.Uint16(m)))
		if kl < 0 || kl > len(m)-2-4 {
			return fmt.Errorf("%w: extFields key length %d", ErrMalformed, kl)
		}
		k := bstr(m[2 : 2+kl])
		m = m[2+kl:]
		vl := int(int32(binary.BigEndian.Uint32(m)))
		if vl < 0 || vl > len(m)-4 {
			return fmt.Errorf("%w: extFields value length %d", ErrMalformed, vl)
		}
		v := bstr(m[4 : 4+vl])
		m = m[4+vl:]
		// Java 4.9.4+ reads a zero length as null: such entries are absent.
		if kl > 0 && vl > 0 {
			c.Ext = append(c.Ext, protocol.KV{Key: k, Value: v})
		}
	}
	return nil
}

func appendRocketMQHeader(dst []byte, c *protocol.Command) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(c.Code))
	dst = append(dst, byte(c.Language))
	dst = binary.BigEndian.AppendUint16(dst, uint16(c.Version))
	dst = binary.BigEndian.AppendUint32(dst, uint32(c.Opaque))
	dst = binary.BigEndian.AppendUint32(dst, uint32(c.Flag))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(c.Remark)))
	dst = append(dst, c.Remark...)
	n := 0
	for _, kv := range c.Ext {
		n += 2 + len(kv.Key) + 4 + len(kv.Value)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	for _, kv := range c.Ext {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(kv.Key)))
		dst = append(dst, kv.Key...)
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(kv.Value)))
		dst = append(dst, kv.Value...)
	}
	return dst
}
