package message

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
)

// ErrShortRecord is returned when a buffer ends before the record it starts does.
var ErrShortRecord = errors.New("message: record truncated")

// ErrBadMagic is returned when a record's MAGICCODE is neither MagicMessage nor MagicBlank.
var ErrBadMagic = errors.New("message: bad record magic")

// ErrSizeMismatch is returned when TOTALSIZE differs from the sum of the record's fields
// (Java: "[BUG]read total count not equals msg total size").
var ErrSizeMismatch = errors.New("message: record size does not match its fields")

// ErrBlank is returned by DecodeRecord for an end-of-file blank record.
var ErrBlank = errors.New("message: end-of-file blank record")

// Record is a decoded view of one stored record. Body, Topic, Properties and Raw are
// slices of the decoded buffer: nothing is copied, so they are valid as long as that
// buffer is (for the store: until the holder releases the mapped file).
type Record struct {
	Raw                       []byte // the whole record, StoreSize bytes
	StoreSize                 int32
	BodyCRC                   int32
	QueueID                   int32
	Flag                      int32
	QueueOffset               int64
	PhysicalOffset            int64
	SysFlag                   int32
	BornTimestamp             int64
	BornHost                  netip.AddrPort
	StoreTimestamp            int64
	StoreHost                 netip.AddrPort
	ReconsumeTimes            int32
	PreparedTransactionOffset int64
	Body                      []byte
	Topic                     []byte
	Properties                []byte
}

// PeekHeader reads TOTALSIZE and MAGICCODE of the record at b without validating more.
func PeekHeader(b []byte) (size int32, magic uint32, ok bool) {
	if len(b) < 8 {
		return 0, 0, false
	}
	return int32(binary.BigEndian.Uint32(b)), binary.BigEndian.Uint32(b[4:]), true
}

func getHost(b []byte, v6 bool) netip.AddrPort {
	if v6 {
		return netip.AddrPortFrom(netip.AddrFrom16([16]byte(b[:16])), uint16(binary.BigEndian.Uint32(b[16:])))
	}
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[:4])), uint16(binary.BigEndian.Uint32(b[4:])))
}

// DecodeRecord decodes the record at the start of b field by field, as Java
// CommitLog#checkMessageAndReturnSize does, and checks that TOTALSIZE equals the sum of
// the fields. It returns ErrBlank for an end-of-file blank, ErrBadMagic, ErrShortRecord
// or ErrSizeMismatch. The CRC is not checked (see Record.CRCValid).
func DecodeRecord(b []byte) (Record, error) {
	var r Record
	err := r.decode(b)
	return r, err
}

func (r *Record) decode(b []byte) error {
	size, magic, ok := PeekHeader(b)
	if !ok {
		return ErrShortRecord
	}
	switch magic {
	case MagicMessage:
	case MagicBlank:
		return ErrBlank
	default:
		return fmt.Errorf("%w: 0x%08X", ErrBadMagic, magic)
	}
	if size < recordFixedSizeV4V4 {
		return fmt.Errorf("%w: TOTALSIZE %d", ErrSizeMismatch, size)
	}
	if int(size) > len(b) {
		return ErrShortRecord
	}
	b = b[:size]
	be := binary.BigEndian
	r.Raw = b
	r.StoreSize = size
	r.BodyCRC = int32(be.Uint32(b[8:]))
	r.QueueID = int32(be.Uint32(b[12:]))
	r.Flag = int32(be.Uint32(b[16:]))
	r.QueueOffset = int64(be.Uint64(b[20:]))
	r.PhysicalOffset = int64(be.Uint64(b[28:]))
	r.SysFlag = int32(be.Uint32(b[36:]))
	r.BornTimestamp = int64(be.Uint64(b[40:]))
	bornLen := hostLen(r.SysFlag, FlagBornHostV6)
	storeLen := hostLen(r.SysFlag, FlagStoreHostV6)
	fixed := recordFixedSizeV4V4 - 16 + bornLen + storeLen
	if int(size) < fixed {
		return fmt.Errorf("%w: TOTALSIZE %d below fixed part %d", ErrSizeMismatch, size, fixed)
	}
	p := 48
	r.BornHost = getHost(b[p:], bornLen == 20)
	p += bornLen
	r.StoreTimestamp = int64(be.Uint64(b[p:]))
	p += 8
	r.StoreHost = getHost(b[p:], storeLen == 20)
	p += storeLen
	r.ReconsumeTimes = int32(be.Uint32(b[p:]))
	r.PreparedTransactionOffset = int64(be.Uint64(b[p+4:]))
	p += 12
	bodyLen := int(int32(be.Uint32(b[p:])))
	p += 4
	if bodyLen < 0 || bodyLen > int(size)-fixed {
		return fmt.Errorf("%w: BODYLENGTH %d", ErrSizeMismatch, bodyLen)
	}
	r.Body = b[p : p+bodyLen : p+bodyLen]
	p += bodyLen
	topicLen := int(int8(b[p])) // a signed byte in Java
	p++
	if topicLen < 0 || p+topicLen+2 > int(size) {
		return fmt.Errorf("%w: TOPICLENGTH %d", ErrSizeMismatch, topicLen)
	}
	r.Topic = b[p : p+topicLen : p+topicLen]
	p += topicLen
	propsLen := int(int16(be.Uint16(b[p:])))
	p += 2
	if propsLen < 0 {
		propsLen = 0 // Java treats a negative length as none, then fails the size check
	}
	if p+propsLen != int(size) {
		return fmt.Errorf("%w: TOTALSIZE %d, fields %d", ErrSizeMismatch, size, p+propsLen)
	}
	r.Properties = b[p : p+propsLen : p+propsLen]
	return nil
}

// CRCValid reports whether BODYCRC matches the body.
func (r *Record) CRCValid() bool { return BodyCRC(r.Body) == r.BodyCRC }

// TransactionType returns the record's transaction bits.
func (r *Record) TransactionType() int32 { return TransactionType(r.SysFlag) }

// Property looks key up in the record's properties (see LookupProperty).
func (r *Record) Property(key string) ([]byte, bool) { return LookupProperty(r.Properties, key) }

// AppendOffsetMsgID appends the record's offset message id (store host + physical offset).
func (r *Record) AppendOffsetMsgID(dst []byte) []byte {
	return AppendOffsetMsgID(dst, r.StoreHost, r.PhysicalOffset)
}

// OffsetMsgID returns the record's offset message id (Java MessageExt#msgId as the broker
// decodes it; clients replace msgId by UNIQ_KEY when present).
func (r *Record) OffsetMsgID() string { return string(r.AppendOffsetMsgID(nil)) }

// StoreTimestampOf reads STORETIMESTAMP of the record at b without decoding the rest
// (Java: CommitLog#pickupStoreTimestamp). ok is false if b is too short.
func StoreTimestampOf(b []byte) (int64, bool) {
	if len(b) < 40 {
		return 0, false
	}
	p := 48 + hostLen(int32(binary.BigEndian.Uint32(b[36:])), FlagBornHostV6)
	if len(b) < p+8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(b[p:])), true
}

// WalkRecords calls fn for each record of b, a concatenation of stored records such as a
// pull response body, until fn returns false. It stops with an error at the first record
// that does not decode (a truncated tail gives ErrShortRecord). The Record passed to fn
// is reused between calls.
func WalkRecords(b []byte, fn func(r *Record) bool) error {
	var r Record
	for len(b) > 0 {
		if err := r.decode(b); err != nil {
			return err
		}
		if !fn(&r) {
			return nil
		}
		b = b[r.StoreSize:]
	}
	return nil
}
