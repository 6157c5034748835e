package message

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"net/netip"
	"slices"
)

// ErrTopicTooLong is returned when a topic does not fit the record's one-byte length (127).
var ErrTopicTooLong = errors.New("message: topic longer than 127 bytes")

// ErrPropertiesTooLong is returned when encoded properties exceed 32767 bytes (int16 length).
var ErrPropertiesTooLong = errors.New("message: properties longer than 32767 bytes")

// Message is what the broker hands the store (Java: MessageExtBrokerInner). Properties
// holds the encoded properties exactly as they will be stored.
type Message struct {
	Topic                     string
	QueueID                   int32
	Flag                      int32
	Body                      []byte
	SysFlag                   int32 // the V6 host bits are derived from BornHost and StoreHost
	BornTimestamp             int64
	BornHost                  netip.AddrPort
	StoreHost                 netip.AddrPort
	ReconsumeTimes            int32
	PreparedTransactionOffset int64
	Properties                []byte
}

// BodyCRC is the record's BODYCRC: crc32 (IEEE) & 0x7FFFFFFF (Java: UtilAll#crc32).
func BodyCRC(body []byte) int32 { return int32(crc32.ChecksumIEEE(body) & 0x7FFFFFFF) }

func isV6(a netip.AddrPort) bool {
	ad := a.Addr()
	return ad.IsValid() && !ad.Unmap().Is4()
}

// EffectiveSysFlag is m.SysFlag with the two V6 host bits set from the hosts' address
// families (Java: CommitLog#asyncPutMessage sets them from the socket addresses).
func EffectiveSysFlag(m *Message) int32 {
	f := m.SysFlag &^ hostV6Mask
	if isV6(m.BornHost) {
		f |= FlagBornHostV6
	}
	if isV6(m.StoreHost) {
		f |= FlagStoreHostV6
	}
	return f
}

func hostLen(sysFlag, bit int32) int {
	if sysFlag&bit != 0 {
		return 20
	}
	return 8
}

// recordSize is Java CommitLog#calMsgLength.
func recordSize(sysFlag int32, bodyLen, topicLen, propsLen int) int {
	return recordFixedSizeV4V4 - 16 + hostLen(sysFlag, FlagBornHostV6) + hostLen(sysFlag, FlagStoreHostV6) +
		bodyLen + topicLen + propsLen
}

// RecordSize is the stored size of m (Java: CommitLog#calMsgLength), 91 bytes plus body,
// topic and properties for IPv4 hosts.
func RecordSize(m *Message) int {
	return recordSize(EffectiveSysFlag(m), len(m.Body), len(m.Topic), len(m.Properties))
}

// Validate checks the limits the record format imposes (topic <= 127 bytes, properties
// <= 32767 bytes).
func Validate(m *Message) error {
	if len(m.Topic) > maxTopicLength {
		return fmt.Errorf("%w: %d", ErrTopicTooLong, len(m.Topic))
	}
	if len(m.Properties) > maxPropertiesLength {
		return fmt.Errorf("%w: %d", ErrPropertiesTooLong, len(m.Properties))
	}
	return nil
}

func putHost(b []byte, a netip.AddrPort, v6 bool) int {
	ad := a.Addr().Unmap()
	if v6 {
		ip := ad.As16()
		copy(b, ip[:])
		binary.BigEndian.PutUint32(b[16:], uint32(a.Port()))
		return 20
	}
	var ip [4]byte
	if ad.Is4() {
		ip = ad.As4()
	}
	copy(b, ip[:])
	binary.BigEndian.PutUint32(b[4:], uint32(a.Port()))
	return 8
}

// EncodeRecord writes m as a stored record into dst (which must hold RecordSize(m)
// bytes: the mapped file itself on the append path) and returns the size written.
// bodyCRC is BodyCRC(m.Body), taken as an argument so callers can compute it outside
// their append lock. m must pass Validate.
func EncodeRecord(dst []byte, m *Message, bodyCRC int32, queueOffset, physicalOffset, storeTimestamp int64) int {
	return encode(dst, m, EffectiveSysFlag(m), m.Flag, bodyCRC, m.Body, m.Properties, nil,
		m.PreparedTransactionOffset, queueOffset, physicalOffset, storeTimestamp)
}

// encode writes one record. props is followed by extra (batch-level properties), joined
// with a \x02 when both are non-empty and props does not end in one (Java 4.9.3+
// MessageExtEncoder#encode(MessageExtBatch)).
func encode(dst []byte, m *Message, sysFlag, flag, bodyCRC int32, body, props, extra []byte,
	preparedTxOffset, queueOffset, physicalOffset, storeTimestamp int64) int {
	propsLen := joinedPropsLen(props, extra)
	size := recordSize(sysFlag, len(body), len(m.Topic), propsLen)
	b := dst[:size]
	be := binary.BigEndian
	be.PutUint32(b[0:], uint32(size))
	be.PutUint32(b[4:], MagicMessage)
	be.PutUint32(b[8:], uint32(bodyCRC))
	be.PutUint32(b[12:], uint32(m.QueueID))
	be.PutUint32(b[16:], uint32(flag))
	be.PutUint64(b[20:], uint64(queueOffset))
	be.PutUint64(b[28:], uint64(physicalOffset))
	be.PutUint32(b[36:], uint32(sysFlag))
	be.PutUint64(b[40:], uint64(m.BornTimestamp))
	p := 48
	p += putHost(b[p:], m.BornHost, sysFlag&FlagBornHostV6 != 0)
	be.PutUint64(b[p:], uint64(storeTimestamp))
	p += 8
	p += putHost(b[p:], m.StoreHost, sysFlag&FlagStoreHostV6 != 0)
	be.PutUint32(b[p:], uint32(m.ReconsumeTimes))
	be.PutUint64(b[p+4:], uint64(preparedTxOffset))
	p += 12
	be.PutUint32(b[p:], uint32(len(body)))
	p += 4
	p += copy(b[p:], body)
	b[p] = byte(len(m.Topic))
	p++
	p += copy(b[p:], m.Topic)
	be.PutUint16(b[p:], uint16(propsLen))
	p += 2
	p += copy(b[p:], props)
	if len(extra) > 0 {
		if needJoin(props, extra) {
			b[p] = propertySeparator
			p++
		}
		copy(b[p:], extra)
	}
	return size
}

func needJoin(props, extra []byte) bool {
	return len(props) > 0 && len(extra) > 0 && props[len(props)-1] != propertySeparator
}

func joinedPropsLen(props, extra []byte) int {
	n := len(props) + len(extra)
	if needJoin(props, extra) {
		n++
	}
	return n
}

// AppendRecord appends the record of m to dst (a convenience over EncodeRecord for
// callers that build records in memory, such as CHECK_TRANSACTION_STATE bodies).
func AppendRecord(dst []byte, m *Message, queueOffset, physicalOffset, storeTimestamp int64) []byte {
	n := RecordSize(m)
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	EncodeRecord(dst[start:], m, BodyCRC(m.Body), queueOffset, physicalOffset, storeTimestamp)
	return dst
}

// PutBlank writes the end-of-file blank (int32 remaining ‖ int32 MagicBlank) at dst[0:8].
func PutBlank(dst []byte, remaining int) {
	binary.BigEndian.PutUint32(dst[0:], uint32(remaining))
	binary.BigEndian.PutUint32(dst[4:], MagicBlank)
}

// BlankSize is the number of bytes an end-of-file blank occupies at least; a record is
// written only when RecordSize+BlankSize fits in the file's remaining space (Java:
// END_FILE_MIN_BLANK_LENGTH).
const BlankSize = blankRecordSize
