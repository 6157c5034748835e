package protocol

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// rawRegisterBody zlib-compresses the inflated form of a compressed REGISTER_BROKER body
// as given: [int32 len][DataVersion JSON][int32 count] then rest, verbatim.
func rawRegisterBody(tb testing.TB, count int32, rest []byte) []byte {
	tb.Helper()
	var raw bytes.Buffer
	dv := []byte(`{"counter":1,"timestamp":1700000000000}`)
	_ = binary.Write(&raw, binary.BigEndian, int32(len(dv)))
	raw.Write(dv)
	_ = binary.Write(&raw, binary.BigEndian, count)
	raw.Write(rest)
	var out bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&out, zlib.BestCompression)
	if _, err := zw.Write(raw.Bytes()); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

// hostileRegisterBody is issue 13's REGISTER_BROKER body: ~8 KB of zlib announcing
// 8,000,000 topics, followed by 8 MB of zeros (every topic entry is an empty block).
func hostileRegisterBody(tb testing.TB) []byte {
	return rawRegisterBody(tb, 8_000_000, make([]byte, 8<<20))
}

// entries writes n topic entry blocks.
func entries(list ...string) []byte {
	var b bytes.Buffer
	for _, e := range list {
		_ = binary.Write(&b, binary.BigEndian, int32(len(e)))
		b.WriteString(e)
	}
	return b.Bytes()
}

// allocDuring returns the bytes allocated while fn runs (runtime.MemStats.TotalAlloc).
func allocDuring(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestDecodeRegisterBrokerBody_AnnouncedCountAllocatesNothing(t *testing.T) {
	body := hostileRegisterBody(t)
	if len(body) > 16<<10 {
		t.Fatalf("hostile body is %d bytes, want a few KB", len(body))
	}
	var err error
	alloc := allocDuring(func() { _, err = DecodeRegisterBrokerBody(body, true) })
	if !errors.Is(err, ErrBadRegisterBody) {
		t.Fatalf("err = %v, want ErrBadRegisterBody", err)
	}
	if alloc > 4<<20 {
		t.Fatalf("decoding a %d-byte body allocated %d MiB; want < 4 MiB (nothing sized by the announced count)", len(body), alloc>>20)
	}
}

func TestDecodeRegisterBrokerBody_RefusesMalformedEntriesAsJava(t *testing.T) {
	// Java: TopicConfig#decode returns false, the entry keeps a null name and
	// ConcurrentHashMap#put throws; parseInt and TopicFilterType#valueOf throw.
	for _, e := range []string{"", "a 1 1 6", "a 1 1 6 SINGLE_TAG x", "a  1 1 6 SINGLE_TAG", "a x 1 6 SINGLE_TAG",
		"a 1 1 6 OTHER", "a 3000000000 1 6 SINGLE_TAG"} {
		_, err := DecodeRegisterBrokerBody(rawRegisterBody(t, 1, append(entries(e), entries("[]")...)), true)
		if !errors.Is(err, ErrBadRegisterBody) {
			t.Errorf("entry %q: err = %v, want ErrBadRegisterBody", e, err)
		}
	}
	// Java's String#split drops trailing empty strings.
	b, err := DecodeRegisterBrokerBody(rawRegisterBody(t, 2, entries("a 1 2 6 SINGLE_TAG  ", " -1 +3 7 MULTI_TAG", `["1.2.3.4:1"]`)), true)
	if err != nil {
		t.Fatal(err)
	}
	got := b.TopicConfigSerializeWrapper.TopicConfigTable
	if len(got) != 2 || got["a"] != (TopicConfig{TopicName: "a", ReadQueueNums: 1, WriteQueueNums: 2, Perm: 6, TopicFilterType: "SINGLE_TAG"}) ||
		got[""] != (TopicConfig{ReadQueueNums: -1, WriteQueueNums: 3, Perm: 7, TopicFilterType: "MULTI_TAG"}) {
		t.Fatalf("table %+v", got)
	}
	if len(b.FilterServerList) != 1 || b.FilterServerList[0] != "1.2.3.4:1" {
		t.Fatalf("filter servers %q", b.FilterServerList)
	}
}

func TestDecodeRegisterBrokerBody_Limits(t *testing.T) {
	for name, body := range map[string][]byte{
		"count over MaxRegisterTopics": rawRegisterBody(t, MaxRegisterTopics+1, nil),
		"negative count":               rawRegisterBody(t, -1, nil),
		"entry over its limit":         rawRegisterBody(t, 1, entries(strings.Repeat("a", maxRegisterEntryLen+1))),
		"entry longer than the data":   rawRegisterBody(t, 1, []byte{0x7f, 0xff, 0xff, 0xff, 'a'}),
		// 1 Mi entries of 87 bytes (one topic, repeated) inflate to 87 MiB.
		"inflated over the limit": rawRegisterBody(t, MaxRegisterTopics,
			bytes.Repeat(entries("t"+strings.Repeat("x", 63)+" 1 1 6 SINGLE_TAG"), MaxRegisterTopics)),
	} {
		var err error
		alloc := allocDuring(func() { _, err = DecodeRegisterBrokerBody(body, true) })
		if !errors.Is(err, ErrBadRegisterBody) {
			t.Errorf("%s: err = %v, want ErrBadRegisterBody", name, err)
		}
		if alloc > 4<<20 {
			t.Errorf("%s: allocated %d MiB", name, alloc>>20)
		}
	}
}
