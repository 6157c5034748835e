package message

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"
)

func sampleMessage() *Message {
	return &Message{
		Topic:          "TopicTest",
		QueueID:        3,
		Flag:           7,
		Body:           []byte("Hello RocketMQ"),
		SysFlag:        0,
		BornTimestamp:  1700000000000,
		BornHost:       netip.MustParseAddrPort("192.168.0.1:54321"),
		StoreHost:      netip.MustParseAddrPort("127.0.0.1:10911"),
		ReconsumeTimes: 2,
		Properties:     []byte("TAGS\x01TagA\x02KEYS\x01k1 k2\x02UNIQ_KEY\x01AABB"),
	}
}

func TestEncodeRecord_Layout_IPv4(t *testing.T) {
	m := sampleMessage()
	size := RecordSize(m)
	if want := 91 + len(m.Body) + len(m.Topic) + len(m.Properties); size != want {
		t.Fatalf("RecordSize %d, want %d", size, want)
	}
	b := make([]byte, size)
	if n := EncodeRecord(b, m, BodyCRC(m.Body), 42, 1000, 1700000000123); n != size {
		t.Fatalf("wrote %d, want %d", n, size)
	}
	be := binary.BigEndian
	// Field positions from Java MessageDecoder (PHY_POS_POSITION 28, SYSFLAG_POSITION 36 ...).
	checks := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"TOTALSIZE", uint64(be.Uint32(b[0:])), uint64(size)},
		{"MAGIC", uint64(be.Uint32(b[4:])), 0xDAA320A7},
		{"QUEUEID", uint64(be.Uint32(b[12:])), 3},
		{"FLAG", uint64(be.Uint32(b[16:])), 7},
		{"QUEUEOFFSET", be.Uint64(b[20:]), 42},
		{"PHYSICALOFFSET", be.Uint64(b[28:]), 1000},
		{"SYSFLAG", uint64(be.Uint32(b[36:])), 0},
		{"BORNTIMESTAMP", be.Uint64(b[40:]), 1700000000000},
		{"BORNHOST ip", uint64(be.Uint32(b[48:])), 0xC0A80001},
		{"BORNHOST port", uint64(be.Uint32(b[52:])), 54321},
		{"STORETIMESTAMP", be.Uint64(b[56:]), 1700000000123},
		{"STOREHOST ip", uint64(be.Uint32(b[64:])), 0x7F000001},
		{"STOREHOST port", uint64(be.Uint32(b[68:])), 10911},
		{"RECONSUMETIMES", uint64(be.Uint32(b[72:])), 2},
		{"PREPARED", be.Uint64(b[76:]), 0},
		{"BODYLENGTH", uint64(be.Uint32(b[84:])), uint64(len(m.Body))},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	p := 88 + len(m.Body)
	if int(b[p]) != len(m.Topic) || string(b[p+1:p+1+len(m.Topic)]) != m.Topic {
		t.Errorf("topic field wrong: % x", b[p:p+1+len(m.Topic)])
	}
	if got := b[size-len(m.Properties)-2:]; int(be.Uint16(got)) != len(m.Properties) || !bytes.Equal(got[2:], m.Properties) {
		t.Errorf("properties field wrong")
	}
	if int32(be.Uint32(b[8:])) != BodyCRC(m.Body) {
		t.Errorf("BODYCRC not written")
	}
}

func TestEncodeRecord_RoundTrip(t *testing.T) {
	for _, hosts := range [][2]string{
		{"192.168.0.1:1", "10.0.0.1:10911"},
		{"[2001:db8::1]:54321", "10.0.0.1:10911"},
		{"10.0.0.2:5", "[::1]:10911"},
		{"[fe80::1]:9", "[2001:db8::2]:10911"},
	} {
		m := sampleMessage()
		m.BornHost = netip.MustParseAddrPort(hosts[0])
		m.StoreHost = netip.MustParseAddrPort(hosts[1])
		m.SysFlag = FlagCompressed | TransactionCommit
		b := AppendRecord(nil, m, 9, 123456789, 55)
		r, err := DecodeRecord(b)
		if err != nil {
			t.Fatalf("%v: %v", hosts, err)
		}
		wantFlag := EffectiveSysFlag(m)
		if r.SysFlag != wantFlag || r.BornHost != m.BornHost || r.StoreHost != m.StoreHost ||
			r.QueueOffset != 9 || r.PhysicalOffset != 123456789 || r.StoreTimestamp != 55 ||
			string(r.Topic) != m.Topic || !bytes.Equal(r.Body, m.Body) || !bytes.Equal(r.Properties, m.Properties) ||
			r.Flag != m.Flag || r.QueueID != m.QueueID || r.ReconsumeTimes != 2 || !r.CRCValid() ||
			int(r.StoreSize) != len(b) || r.TransactionType() != TransactionCommit {
			t.Fatalf("%v: round trip mismatch: %+v", hosts, r)
		}
		if ts, ok := StoreTimestampOf(b); !ok || ts != 55 {
			t.Fatalf("StoreTimestampOf = %d, %v", ts, ok)
		}
		v, ok := r.Property(PropertyTags)
		if !ok || string(v) != "TagA" {
			t.Fatalf("TAGS = %q", v)
		}
	}
}

func TestEffectiveSysFlag_V6Bits(t *testing.T) {
	m := sampleMessage()
	m.SysFlag = FlagBornHostV6 | FlagStoreHostV6 | FlagCompressed // stale bits are recomputed
	if got := EffectiveSysFlag(m); got != FlagCompressed {
		t.Fatalf("v4/v4 sysflag = %#x", got)
	}
	m.BornHost = netip.MustParseAddrPort("[::ffff:10.0.0.1]:1") // v4-mapped counts as v4, like Java
	if got := EffectiveSysFlag(m); got != FlagCompressed {
		t.Fatalf("v4-mapped sysflag = %#x", got)
	}
	m.StoreHost = netip.MustParseAddrPort("[::1]:10911")
	if got := EffectiveSysFlag(m); got != FlagCompressed|FlagStoreHostV6 {
		t.Fatalf("store v6 sysflag = %#x", got)
	}
	if RecordSize(m) != 91+12+len(m.Body)+len(m.Topic)+len(m.Properties) {
		t.Fatalf("v6 size %d", RecordSize(m))
	}
}

func TestDecodeRecord_Errors(t *testing.T) {
	m := sampleMessage()
	good := AppendRecord(nil, m, 0, 0, 0)
	if _, err := DecodeRecord(good[:50]); !errors.Is(err, ErrShortRecord) {
		t.Errorf("truncated: %v", err)
	}
	bad := bytes.Clone(good)
	binary.BigEndian.PutUint32(bad[4:], 0x12345678)
	if _, err := DecodeRecord(bad); !errors.Is(err, ErrBadMagic) {
		t.Errorf("bad magic: %v", err)
	}
	bad = bytes.Clone(good)
	binary.BigEndian.PutUint32(bad[0:], uint32(len(good)-1))
	if _, err := DecodeRecord(bad); !errors.Is(err, ErrSizeMismatch) {
		t.Errorf("size mismatch: %v", err)
	}
	blank := make([]byte, 8)
	PutBlank(blank, 4096)
	if _, err := DecodeRecord(blank); !errors.Is(err, ErrBlank) {
		t.Errorf("blank: %v", err)
	}
	bad = bytes.Clone(good)
	bad[len(bad)-1] ^= 0xFF
	bad[90] ^= 0xFF // body byte: CRC no longer matches
	r, err := DecodeRecord(bad)
	if err != nil || r.CRCValid() {
		t.Errorf("corrupt body: err %v, CRCValid %v", err, r.CRCValid())
	}
}

func TestWalkRecords_StopsAtTruncatedTail(t *testing.T) {
	m := sampleMessage()
	var buf []byte
	for i := 0; i < 3; i++ {
		buf = AppendRecord(buf, m, int64(i), int64(len(buf)), 1)
	}
	var offsets []int64
	err := WalkRecords(buf[:len(buf)-5], func(r *Record) bool {
		offsets = append(offsets, r.QueueOffset)
		return true
	})
	if !errors.Is(err, ErrShortRecord) || len(offsets) != 2 {
		t.Fatalf("err %v, offsets %v", err, offsets)
	}
	n := 0
	if err := WalkRecords(buf, func(*Record) bool { n++; return n < 2 }); err != nil || n != 2 {
		t.Fatalf("early stop: err %v n %d", err, n)
	}
}

func TestValidate_Limits(t *testing.T) {
	m := sampleMessage()
	m.Topic = string(bytes.Repeat([]byte("t"), 128))
	if err := Validate(m); !errors.Is(err, ErrTopicTooLong) {
		t.Errorf("long topic: %v", err)
	}
	m = sampleMessage()
	m.Properties = bytes.Repeat([]byte("p"), 32768)
	if err := Validate(m); !errors.Is(err, ErrPropertiesTooLong) {
		t.Errorf("long properties: %v", err)
	}
	if err := Validate(sampleMessage()); err != nil {
		t.Errorf("valid message: %v", err)
	}
}

// FuzzDecodeRecord checks that decoding arbitrary bytes never panics and that every
// record that decodes re-encodes to the same bytes.
func FuzzDecodeRecord(f *testing.F) {
	m := sampleMessage()
	f.Add(AppendRecord(nil, m, 1, 2, 3)) // IPv4 record
	m.StoreHost = netip.MustParseAddrPort("[::1]:10911")
	f.Add(AppendRecord(nil, m, 1, 2, 3)) // IPv6 store host
	blank := make([]byte, 8)
	PutBlank(blank, 100)
	f.Add(blank)                           // end-of-file blank
	f.Add([]byte{0, 0, 0, 91, 0xDA, 0xA3}) // truncated header
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRecord(b)
		if err != nil {
			return
		}
		mm := &Message{Topic: string(r.Topic), QueueID: r.QueueID, Flag: r.Flag, Body: r.Body,
			SysFlag: r.SysFlag, BornTimestamp: r.BornTimestamp, BornHost: r.BornHost, StoreHost: r.StoreHost,
			ReconsumeTimes: r.ReconsumeTimes, PreparedTransactionOffset: r.PreparedTransactionOffset,
			Properties: r.Properties}
		if mm.BornHost.Addr().Is4In6() || mm.StoreHost.Addr().Is4In6() {
			return // a v4-mapped v6 host re-encodes as v4, as in Java
		}
		if hostPortsOutOfRange(r.Raw, r.SysFlag) {
			return // hosts keep a 16-bit port (netip.AddrPort); a stored int32 above 65535 cannot be a real port
		}
		if len(r.Properties) == 0 && len(r.Raw) >= 2 && int16(binary.BigEndian.Uint16(r.Raw[len(r.Raw)-2:])) < 0 {
			return // a negative properties length reads as none (as in Java) and re-encodes as 0
		}
		out := make([]byte, RecordSize(mm))
		EncodeRecord(out, mm, r.BodyCRC, r.QueueOffset, r.PhysicalOffset, r.StoreTimestamp)
		if !bytes.Equal(out, r.Raw) {
			t.Fatalf("re-encode differs:\n% x\n% x", out, r.Raw)
		}
	})
}

// hostPortsOutOfRange reports whether the raw record's born or store port (int32 on disk)
// exceeds 65535.
func hostPortsOutOfRange(raw []byte, sysFlag int32) bool {
	bornIP := 4
	if sysFlag&FlagBornHostV6 != 0 {
		bornIP = 16
	}
	storeIP := 4
	if sysFlag&FlagStoreHostV6 != 0 {
		storeIP = 16
	}
	bornPort := 48 + bornIP
	storePort := bornPort + 4 + 8 + storeIP
	if len(raw) < storePort+4 {
		return false
	}
	return binary.BigEndian.Uint32(raw[bornPort:]) > 65535 || binary.BigEndian.Uint32(raw[storePort:]) > 65535
}
