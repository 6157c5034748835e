package compat

import "testing"

func TestCRC32_JavaGolden(t *testing.T) {
	// Values printed by org.apache.rocketmq.common.UtilAll.crc32(s.getBytes("UTF-8")) from
	// rocketmq-common 4.9.8 on Java 17 (program: testdata/java/CompatGolden.java).
	cases := []struct {
		in   string
		want int32
	}{
		{"", 0},
		{"a", 1756872259},
		{"hello", 907060870},
		{"The quick brown fox jumps over the lazy dog", 1095738169},
		{"中文", 1510599991},
	}
	for _, c := range cases {
		if got := CRC32([]byte(c.in)); got != c.want {
			t.Errorf("CRC32(%q) = %d, want %d", c.in, got, c.want)
		}
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	if got := CRC32(all); got != 688229491 {
		t.Errorf("CRC32(0..255) = %d, want 688229491", got)
	}
	if got := CRC32(nil); got != 0 {
		t.Errorf("CRC32(nil) = %d, want 0", got)
	}
}
