package main

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// errScan is returned by scanHeaderFast when a header is outside the shapes its fast path
// reads; readHeader then falls back to the full decoder.
var errScan = errors.New("mqbench: header not in the fast-scan shape")

// respHeader is what the load loops need of every inbound frame.
type respHeader struct {
	code, opaque, flag int32
}

// readHeader returns code, opaque and flag of a frame (length word excluded). The hot
// path reads them without decoding extFields: every response costs the client a scan,
// not an allocation, so the client stays cheaper than the server it measures. Anything
// the scanner does not take falls back to codec.DecodeOwned (on a copy), so the result
// always equals the full decoder's.
func readHeader(frame []byte) (respHeader, error) {
	h, err := scanHeaderFast(frame)
	if err == nil {
		return h, nil
	}
	c, derr := codec.DecodeOwned(append([]byte(nil), frame...))
	if derr != nil {
		return respHeader{}, derr
	}
	return respHeader{code: c.Code, opaque: c.Opaque, flag: c.Flag}, nil
}

// scanHeaderFast reads the three fields from a ROCKETMQ header at fixed offsets, or from
// a JSON header with a single pass that skips every other value.
func scanHeaderFast(frame []byte) (respHeader, error) {
	if len(frame) < 4 {
		return respHeader{}, errScan
	}
	word := binary.BigEndian.Uint32(frame)
	hlen := int(word & 0xFFFFFF)
	if hlen > len(frame)-4 {
		return respHeader{}, errScan
	}
	hdr := frame[4 : 4+hlen]
	switch protocol.SerializeType(word >> 24) {
	case protocol.SerializeRocketMQ:
		if len(hdr) < 13 {
			return respHeader{}, errScan
		}
		return respHeader{
			code:   int32(int16(binary.BigEndian.Uint16(hdr))),
			opaque: int32(binary.BigEndian.Uint32(hdr[5:])),
			flag:   int32(binary.BigEndian.Uint32(hdr[9:])),
		}, nil
	case protocol.SerializeJSON:
		return scanJSONHeader(hdr)
	}
	return respHeader{}, errScan
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func scanJSONHeader(b []byte) (respHeader, error) {
	var h respHeader
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return h, errScan
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return h, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return h, errScan
		}
		ks := i + 1
		ke := ks
		for ke < len(b) && b[ke] != '"' {
			if b[ke] == '\\' {
				return h, errScan // escaped keys are left to the full decoder
			}
			ke++
		}
		if ke >= len(b) {
			return h, errScan
		}
		key := b[ks:ke]
		i = skipWS(b, ke+1)
		if i >= len(b) || b[i] != ':' {
			return h, errScan
		}
		i = skipWS(b, i+1)
		var err error
		switch string(key) {
		case "code":
			h.code, i, err = scanInt32(b, i)
		case "opaque":
			h.opaque, i, err = scanInt32(b, i)
		case "flag":
			h.flag, i, err = scanInt32(b, i)
		default:
			i, err = skipJSONValue(b, i, 0)
		}
		if err != nil {
			return h, err
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return h, errScan
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return h, nil
		default:
			return h, errScan
		}
	}
}

// scanInt32 reads a plain decimal (optionally quoted, as lenient peers write) or null.
func scanInt32(b []byte, i int) (int32, int, error) {
	if i+4 <= len(b) && string(b[i:i+4]) == "null" {
		return 0, i + 4, nil
	}
	quoted := i < len(b) && b[i] == '"'
	if quoted {
		i++
	}
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	start := i
	var v int64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		v = v*10 + int64(b[i]-'0')
		if v > 1<<31 {
			return 0, i, errScan
		}
		i++
	}
	if i == start {
		return 0, i, errScan
	}
	if neg {
		v = -v
	}
	if v > 1<<31-1 || v < -1<<31 {
		return 0, i, errScan
	}
	if quoted {
		if i >= len(b) || b[i] != '"' {
			return 0, i, errScan
		}
		i++
	}
	return int32(v), i, nil
}

// skipJSONValue skips one value of any type starting at b[i].
func skipJSONValue(b []byte, i, depth int) (int, error) {
	if depth > 32 || i >= len(b) {
		return i, errScan
	}
	switch c := b[i]; c {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1, nil
			}
		}
		return i, errScan
	case '{', '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == closer {
			return i + 1, nil
		}
		for {
			var err error
			if c == '{' {
				if i, err = skipJSONValue(b, i, depth+1); err != nil { // the key
					return i, err
				}
				i = skipWS(b, i)
				if i >= len(b) || b[i] != ':' {
					return i, errScan
				}
				i = skipWS(b, i+1)
			}
			if i, err = skipJSONValue(b, i, depth+1); err != nil {
				return i, err
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return i, errScan
			}
			if b[i] == closer {
				return i + 1, nil
			}
			if b[i] != ',' {
				return i, errScan
			}
			i = skipWS(b, i+1)
		}
	default:
		start := i
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\t' && b[i] != '\r' {
			i++
		}
		if i == start {
			return i, fmt.Errorf("%w: empty value at %d", errScan, i)
		}
		return i, nil
	}
}
