package protocol

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// TopicConfigSerializeWrapper is a broker's topic table with its data version (the body
// of GET_ALL_TOPIC_CONFIG and the content of topics.json).
type TopicConfigSerializeWrapper struct {
	TopicConfigTable map[string]TopicConfig `json:"topicConfigTable"`
	DataVersion      DataVersion            `json:"dataVersion"`
}

// AppendJSON writes the wrapper with fastjson's key order, topics sorted by name.
func (w *TopicConfigSerializeWrapper) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"dataVersion":`...)
	dst = w.DataVersion.AppendJSON(dst)
	dst = append(dst, `,"topicConfigTable":`...)
	dst = appendSortedMap(dst, w.TopicConfigTable, func(dst []byte, tc TopicConfig) []byte { return tc.AppendJSON(dst) })
	return append(dst, '}')
}

// RegisterBrokerBody is the REGISTER_BROKER body of brokers of version ≥ V3_0_11.
type RegisterBrokerBody struct {
	TopicConfigSerializeWrapper TopicConfigSerializeWrapper `json:"topicConfigSerializeWrapper"`
	FilterServerList            []string                    `json:"filterServerList"`
}

// AppendJSON writes the uncompressed form (RegisterBrokerBody#encode(false)).
func (b *RegisterBrokerBody) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"filterServerList":`...)
	dst = appendStrings(dst, b.FilterServerList)
	dst = append(dst, `,"topicConfigSerializeWrapper":`...)
	dst = b.TopicConfigSerializeWrapper.AppendJSON(dst)
	return append(dst, '}')
}

// EncodeCompressed writes RegisterBrokerBody#encode(true): a zlib stream of
// [int32 len][DataVersion JSON][int32 n] n×[int32 len]["name read write perm FILTERTYPE"]
// [int32 len][filterServerList JSON]. The form drops topicSysFlag and order.
func (b *RegisterBrokerBody) EncodeCompressed() ([]byte, error) {
	var raw bytes.Buffer
	putBlock := func(p []byte) {
		var l [4]byte
		binary.BigEndian.PutUint32(l[:], uint32(len(p)))
		raw.Write(l[:])
		raw.Write(p)
	}
	putBlock(b.TopicConfigSerializeWrapper.DataVersion.AppendJSON(nil))
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(b.TopicConfigSerializeWrapper.TopicConfigTable)))
	raw.Write(n[:])
	for _, tc := range b.TopicConfigSerializeWrapper.TopicConfigTable {
		putBlock([]byte(tc.TopicName + " " + strconv.Itoa(int(tc.ReadQueueNums)) + " " + strconv.Itoa(int(tc.WriteQueueNums)) +
			" " + strconv.Itoa(int(tc.Perm)) + " " + filterType(tc.TopicFilterType)))
	}
	putBlock(appendStrings(nil, b.FilterServerList))
	var out bytes.Buffer
	zw, err := zlib.NewWriterLevel(&out, zlib.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// ErrBadRegisterBody is returned when a REGISTER_BROKER body cannot be decoded.
var ErrBadRegisterBody = errors.New("protocol: bad RegisterBrokerBody")

// DecodeRegisterBrokerBody decodes either form of the body.
func DecodeRegisterBrokerBody(data []byte, compressed bool) (*RegisterBrokerBody, error) {
	b := &RegisterBrokerBody{}
	if !compressed {
		if err := UnmarshalBody(normalizeNumericKeys(data), b); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadRegisterBody, err)
		}
		return b, nil
	}
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRegisterBody, err)
	}
	defer zr.Close()
	raw, err := io.ReadAll(io.LimitReader(zr, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRegisterBody, err)
	}
	block := func() ([]byte, error) {
		if len(raw) < 4 {
			return nil, fmt.Errorf("%w: truncated", ErrBadRegisterBody)
		}
		l := int(int32(binary.BigEndian.Uint32(raw)))
		if l < 0 || l > len(raw)-4 {
			return nil, fmt.Errorf("%w: block length %d", ErrBadRegisterBody, l)
		}
		p := raw[4 : 4+l]
		raw = raw[4+l:]
		return p, nil
	}
	dv, err := block()
	if err != nil {
		return nil, err
	}
	if err := UnmarshalBody(dv, &b.TopicConfigSerializeWrapper.DataVersion); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRegisterBody, err)
	}
	if len(raw) < 4 {
		return nil, fmt.Errorf("%w: truncated", ErrBadRegisterBody)
	}
	count := int(int32(binary.BigEndian.Uint32(raw)))
	raw = raw[4:]
	if count < 0 || count > len(raw) {
		return nil, fmt.Errorf("%w: topic count %d", ErrBadRegisterBody, count)
	}
	b.TopicConfigSerializeWrapper.TopicConfigTable = make(map[string]TopicConfig, count)
	for i := 0; i < count; i++ {
		p, err := block()
		if err != nil {
			return nil, err
		}
		f := strings.Split(string(p), " ")
		if len(f) != 5 {
			continue // Java's TopicConfig#decode returns false and the entry keeps defaults; it is keyed by a null name
		}
		tc := TopicConfig{TopicName: f[0], TopicFilterType: f[4]}
		r, err1 := strconv.Atoi(f[1])
		w, err2 := strconv.Atoi(f[2])
		pm, err3 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("%w: topic config %q", ErrBadRegisterBody, p)
		}
		tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = int32(r), int32(w), int32(pm)
		b.TopicConfigSerializeWrapper.TopicConfigTable[tc.TopicName] = tc
	}
	fs, err := block()
	if err == nil {
		_ = UnmarshalBody(fs, &b.FilterServerList) // Java logs and keeps an empty list
	}
	return b, nil
}

// normalizeNumericKeys quotes bare numeric object keys ({0:"a"} → {"0":"a"}) outside
// strings: the one fastjson liberty in the bodies brokers send.
func normalizeNumericKeys(data []byte) []byte {
	out := make([]byte, 0, len(data)+32)
	inStr, esc := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		out = append(out, c)
		if inStr {
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		if c == '{' || c == ',' {
			j := i + 1
			for j < len(data) && (data[j] == ' ' || data[j] == '\n' || data[j] == '\t' || data[j] == '\r') {
				j++
			}
			k := j
			for k < len(data) && (data[k] == '-' || (data[k] >= '0' && data[k] <= '9')) {
				k++
			}
			if k > j && k < len(data) && data[k] == ':' {
				out = append(out, data[i+1:j]...)
				out = append(out, '"')
				out = append(out, data[j:k]...)
				out = append(out, '"')
				i = k - 1
			}
		}
	}
	return out
}
