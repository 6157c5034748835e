package compat

import "testing"

func TestJavaHashCode(t *testing.T) {
	// Values printed by Java 17 jshell: "中文".hashCode() etc.
	cases := map[string]int32{
		"":      0,
		"a":     97,
		"TagA":  2598919,
		"TagB":  2598920,
		"hello": 99162322,
		"中文":    646394,
		"😀":     1772899, // surrogate pair \uD83D\uDE00
		"TopicTest#KEY_with_a_longer_text_to_overflow": javaRef("TopicTest#KEY_with_a_longer_text_to_overflow"),
	}
	for s, want := range cases {
		if got := JavaHashCode(s); got != want {
			t.Errorf("JavaHashCode(%q) = %d, want %d", s, got, want)
		}
	}
}

// javaRef is the textbook definition over UTF-16 code units, for long ASCII strings.
func javaRef(s string) int32 {
	var h int32
	for _, c := range []byte(s) {
		h = 31*h + int32(c)
	}
	return h
}
