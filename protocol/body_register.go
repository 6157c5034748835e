package protocol

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
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

// Block limits of the compressed form; a larger length is refused before anything is read.
const (
	maxRegisterEntryLen   = 4 << 10 // one "name read write perm FILTERTYPE" (names are ≤ 127 bytes)
	maxRegisterVersionLen = 64 << 10
	maxRegisterFilterLen  = 1 << 20
)

// DecodeRegisterBrokerBody decodes either form of the body. The compressed form is read as
// a stream, as Java's RegisterBrokerBody#decode does: nothing is sized by the announced
// topic count, the inflated bytes are bounded by MaxRegisterInflated and the count by
// MaxRegisterTopics, and the first malformed entry refuses the body (Java: TopicConfig#decode
// leaves a null name, which ConcurrentHashMap#put refuses; parseInt and
// TopicFilterType#valueOf throw).
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
	d := registerReader{r: &io.LimitedReader{R: zr, N: MaxRegisterInflated}}
	dv, err := d.block("data version", maxRegisterVersionLen)
	if err != nil {
		return nil, err
	}
	if err := UnmarshalBody(dv, &b.TopicConfigSerializeWrapper.DataVersion); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRegisterBody, err)
	}
	count, err := d.int32("topic count")
	if err != nil {
		return nil, err
	}
	if count < 0 || count > MaxRegisterTopics {
		return nil, fmt.Errorf("%w: topic count %d (at most %d)", ErrBadRegisterBody, count, MaxRegisterTopics)
	}
	table := map[string]TopicConfig{} // grows as entries decode, never by count
	b.TopicConfigSerializeWrapper.TopicConfigTable = table
	for i := int32(0); i < count; i++ {
		p, err := d.block("topic config", maxRegisterEntryLen)
		if err != nil {
			return nil, err
		}
		tc, ok := parseTopicEntry(p)
		if !ok {
			return nil, fmt.Errorf("%w: topic config %q", ErrBadRegisterBody, p)
		}
		if old, ok := table[string(tc.name)]; ok { // a repeated name allocates nothing
			tc.TopicName = old.TopicName
		} else {
			tc.TopicName = string(tc.name)
		}
		table[tc.TopicName] = tc.TopicConfig
	}
	fs, err := d.block("filter server list", maxRegisterFilterLen)
	if err == nil {
		_ = UnmarshalBody(fs, &b.FilterServerList) // Java logs and keeps an empty list
	}
	return b, nil
}

// registerReader reads the length-prefixed blocks of the inflated body.
type registerReader struct {
	r   *io.LimitedReader
	buf []byte  // reused: a block is valid until the next read
	num [4]byte // a length read through the io.Reader interface escapes: one buffer, not one per entry
}

func (d *registerReader) fail(what string, err error) error {
	if d.r.N <= 0 {
		return fmt.Errorf("%w: inflates to more than %d bytes", ErrBadRegisterBody, MaxRegisterInflated)
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w: %s: %v", ErrBadRegisterBody, what, err)
}

func (d *registerReader) int32(what string) (int32, error) {
	if _, err := io.ReadFull(d.r, d.num[:]); err != nil {
		return 0, d.fail(what, err)
	}
	return int32(binary.BigEndian.Uint32(d.num[:])), nil
}

// block reads [int32 len][len bytes], refusing a length over limit before reading it.
func (d *registerReader) block(what string, limit int) ([]byte, error) {
	l, err := d.int32(what)
	if err != nil {
		return nil, err
	}
	if l < 0 || int(l) > limit {
		return nil, fmt.Errorf("%w: %s length %d (at most %d)", ErrBadRegisterBody, what, l, limit)
	}
	if cap(d.buf) < int(l) {
		d.buf = make([]byte, l)
	}
	p := d.buf[:l]
	if _, err := io.ReadFull(d.r, p); err != nil {
		return nil, d.fail(what, err)
	}
	return p, nil
}

// topicEntry is a decoded entry whose name still points into the read buffer.
type topicEntry struct {
	TopicConfig
	name []byte
}

// parseTopicEntry is TopicConfig#decode: "name read write perm FILTERTYPE" split on
// single spaces (trailing empty fields dropped, as String#split does), int32 numbers and a
// TopicFilterType name.
func parseTopicEntry(p []byte) (topicEntry, bool) {
	p = bytes.TrimRight(p, " ")
	var f [5][]byte
	n := 0
	for {
		i := bytes.IndexByte(p, ' ')
		if n == len(f)-1 {
			if i >= 0 {
				return topicEntry{}, false
			}
			f[n] = p
			break
		}
		if i < 0 {
			return topicEntry{}, false
		}
		f[n], p = p[:i], p[i+1:]
		n++
	}
	var e topicEntry
	e.name = f[0]
	for i, dst := range []*int32{&e.ReadQueueNums, &e.WriteQueueNums, &e.Perm} {
		v, err := strconv.ParseInt(string(f[i+1]), 10, 32)
		if err != nil {
			return topicEntry{}, false
		}
		*dst = int32(v)
	}
	switch string(f[4]) {
	case "SINGLE_TAG":
		e.TopicFilterType = "SINGLE_TAG"
	case "MULTI_TAG":
		e.TopicFilterType = "MULTI_TAG"
	default:
		return topicEntry{}, false
	}
	return e, true
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
