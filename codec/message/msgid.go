package message

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
)

// ErrBadMsgID is returned when an offset message id is not 32 or 56 hex characters.
var ErrBadMsgID = errors.New("message: malformed offset message id")

const upperHex = "0123456789ABCDEF"

// AppendOffsetMsgID appends the offset message id of a record stored at offset on
// storeHost: upper-case hex of IP (4 or 16 bytes) ‖ int32 port ‖ int64 offset, 32 or 56
// characters (Java: MessageDecoder#createMessageId).
func AppendOffsetMsgID(dst []byte, storeHost netip.AddrPort, offset int64) []byte {
	var b [offsetMsgIDBytesV6]byte
	n := putHost(b[:], storeHost, isV6(storeHost))
	binary.BigEndian.PutUint64(b[n:], uint64(offset))
	n += 8
	for _, c := range b[:n] {
		dst = append(dst, upperHex[c>>4], upperHex[c&0xF])
	}
	return dst
}

// CreateOffsetMsgID returns AppendOffsetMsgID as a string.
func CreateOffsetMsgID(storeHost netip.AddrPort, offset int64) string {
	return string(AppendOffsetMsgID(make([]byte, 0, 2*offsetMsgIDBytesV6), storeHost, offset))
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// DecodeOffsetMsgID decodes an offset message id: 32 characters is IPv4, 56 IPv6; hex
// digits of either case (Java: MessageDecoder#decodeMessageId upper-cases first).
func DecodeOffsetMsgID(id string) (storeHost netip.AddrPort, offset int64, err error) {
	if len(id) != 2*offsetMsgIDBytesV4 && len(id) != 2*offsetMsgIDBytesV6 {
		return netip.AddrPort{}, 0, fmt.Errorf("%w: length %d", ErrBadMsgID, len(id))
	}
	var b [offsetMsgIDBytesV6]byte
	n := len(id) / 2
	for i := 0; i < n; i++ {
		hi, ok1 := unhex(id[2*i])
		lo, ok2 := unhex(id[2*i+1])
		if !ok1 || !ok2 {
			return netip.AddrPort{}, 0, fmt.Errorf("%w: bad hex at %d", ErrBadMsgID, 2*i)
		}
		b[i] = hi<<4 | lo
	}
	ipLen := 4
	if n == offsetMsgIDBytesV6 {
		ipLen = 16
	}
	if port := binary.BigEndian.Uint32(b[ipLen:]); port > 0xFFFF {
		// Java's InetSocketAddress refuses it too.
		return netip.AddrPort{}, 0, fmt.Errorf("%w: port %d", ErrBadMsgID, port)
	}
	storeHost = getHost(b[:], n == offsetMsgIDBytesV6)
	return storeHost, int64(binary.BigEndian.Uint64(b[ipLen+4:])), nil
}
