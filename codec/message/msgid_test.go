package message

import (
	"errors"
	"net/netip"
	"testing"
)

func TestOffsetMsgID_CreateDecode(t *testing.T) {
	// Java: MessageDecoder.createMessageId(127.0.0.1:10911, 0x1234) by its definition:
	// 7F000001 ‖ 00002A9F ‖ 0000000000001234.
	host := netip.MustParseAddrPort("127.0.0.1:10911")
	id := CreateOffsetMsgID(host, 0x1234)
	if id != "7F00000100002A9F0000000000001234" {
		t.Fatalf("v4 id %s", id)
	}
	h, off, err := DecodeOffsetMsgID("7f00000100002a9f0000000000001234") // lower case accepted
	if err != nil || h != host || off != 0x1234 {
		t.Fatalf("decode: %v %v %v", h, off, err)
	}
	v6 := netip.MustParseAddrPort("[2001:db8::1]:10911")
	id6 := CreateOffsetMsgID(v6, 1<<40)
	if len(id6) != 56 {
		t.Fatalf("v6 id length %d", len(id6))
	}
	h, off, err = DecodeOffsetMsgID(id6)
	if err != nil || h != v6 || off != 1<<40 {
		t.Fatalf("decode v6: %v %v %v", h, off, err)
	}
	for _, bad := range []string{"", "7F00", "7F00000100002A9F000000000000123G", id6[:55]} {
		if _, _, err := DecodeOffsetMsgID(bad); !errors.Is(err, ErrBadMsgID) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// FuzzDecodeOffsetMsgID checks that decoding never panics and that a decoded id
// re-creates itself (upper-cased).
func FuzzDecodeOffsetMsgID(f *testing.F) {
	f.Add("7F00000100002A9F0000000000001234")                                   // IPv4, as brokers answer
	f.Add("20010DB8000000000000000000000001" + "00002A9F" + "0000010000000000") // IPv6
	f.Add("zz")                                                                 // junk
	f.Fuzz(func(t *testing.T, s string) {
		h, off, err := DecodeOffsetMsgID(s)
		if err != nil {
			return
		}
		if h.Addr().Is4In6() {
			return
		}
		if got := CreateOffsetMsgID(h, off); got != upper(s) {
			t.Fatalf("%q re-created as %q", s, got)
		}
	})
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 32
		}
	}
	return string(b)
}
