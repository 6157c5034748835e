package message

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrBatchTruncated is returned when a SEND_BATCH_MESSAGE body ends inside an element
// (Java: MessageDecoder#decodeMessages throws BufferUnderflowException).
var ErrBatchTruncated = errors.New("message: batch body truncated")

// ErrBatchBadLength is returned when a batch element has a negative body or properties
// length (Java: NegativeArraySizeException).
var ErrBatchBadLength = errors.New("message: batch element with negative length")

// ErrBatchEmpty is returned for a batch body with no element.
var ErrBatchEmpty = errors.New("message: empty batch")

// BatchElement is one message of a SEND_BATCH_MESSAGE body. Body and Properties are
// slices of the batch body.
type BatchElement struct {
	Flag       int32
	Body       []byte
	Properties []byte
}

// WalkBatch calls fn for each element of a SEND_BATCH_MESSAGE body (§5.6) until fn
// returns false. Like Java it reads the fields in order and ignores TOTALSIZE, MAGICCODE
// and BODYCRC (the producer leaves them 0 or stale); the next element starts right after
// the properties. It returns ErrBatchEmpty, ErrBatchTruncated or ErrBatchBadLength.
func WalkBatch(body []byte, fn func(e *BatchElement) bool) error {
	if len(body) == 0 {
		return ErrBatchEmpty
	}
	var e BatchElement
	be := binary.BigEndian
	for p := 0; p < len(body); {
		if len(body)-p < 20 {
			return fmt.Errorf("%w: element at %d", ErrBatchTruncated, p)
		}
		e.Flag = int32(be.Uint32(body[p+12:]))
		bodyLen := int(int32(be.Uint32(body[p+16:])))
		p += 20
		if bodyLen < 0 {
			return fmt.Errorf("%w: body length %d", ErrBatchBadLength, bodyLen)
		}
		if len(body)-p < bodyLen+2 {
			return fmt.Errorf("%w: body of %d bytes at %d", ErrBatchTruncated, bodyLen, p)
		}
		e.Body = body[p : p+bodyLen : p+bodyLen]
		p += bodyLen
		propsLen := int(int16(be.Uint16(body[p:])))
		p += 2
		if propsLen < 0 {
			return fmt.Errorf("%w: properties length %d", ErrBatchBadLength, propsLen)
		}
		if len(body)-p < propsLen {
			return fmt.Errorf("%w: properties of %d bytes at %d", ErrBatchTruncated, propsLen, p)
		}
		e.Properties = body[p : p+propsLen : p+propsLen]
		p += propsLen
		if !fn(&e) {
			return nil
		}
	}
	return nil
}

// BatchRecordSize is the stored size of one batch element written with the shared
// header fields of m and the batch-level properties m.Properties.
func BatchRecordSize(m *Message, e *BatchElement) int {
	return recordSize(EffectiveSysFlag(m), len(e.Body), len(m.Topic), joinedPropsLen(e.Properties, m.Properties))
}

// EncodeBatchRecord writes one batch element as a stored record (Java 4.9.8
// MessageExtEncoder#encode(MessageExtBatch)): queue, sysFlag, hosts, born time and
// reconsume times come from m; flag, body and properties from e, with m.Properties
// (the batch-level properties, CLUSTER among them) appended after a \x02 when e's
// properties do not already end in one. PREPAREDTXOFFSET is 0. BODYCRC is computed here.
func EncodeBatchRecord(dst []byte, m *Message, e *BatchElement, queueOffset, physicalOffset, storeTimestamp int64) int {
	return encode(dst, m, EffectiveSysFlag(m), e.Flag, BodyCRC(e.Body), e.Body, e.Properties, m.Properties,
		0, queueOffset, physicalOffset, storeTimestamp)
}

// AppendBatchElement appends one element in the SEND_BATCH_MESSAGE encoding (Java:
// MessageDecoder#encodeMessage): for tests and tools that build batch bodies.
func AppendBatchElement(dst []byte, flag int32, body, props []byte) []byte {
	be := binary.BigEndian
	dst = be.AppendUint32(dst, uint32(batchElementFixedSize+len(body)+len(props)))
	dst = be.AppendUint32(dst, 0)
	dst = be.AppendUint32(dst, 0)
	dst = be.AppendUint32(dst, uint32(flag))
	dst = be.AppendUint32(dst, uint32(len(body)))
	dst = append(dst, body...)
	dst = be.AppendUint16(dst, uint16(len(props)))
	return append(dst, props...)
}
