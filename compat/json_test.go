package compat

import (
	"os"
	"strings"
	"testing"
)

func TestAppendJSONString_FastjsonGolden(t *testing.T) {
	// testdata/fastjson/escape.json is JSON.toJSONString(s) by fastjson 1.2.69 for every
	// ASCII character plus U+2028, U+2029, é and an emoji (testdata/java/CompatGolden.java).
	want, err := os.ReadFile("testdata/fastjson/escape.json")
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for i := 0; i < 0x80; i++ {
		sb.WriteByte(byte(i))
	}
	sb.WriteString("\u2028\u2029é😀")
	if got := AppendJSONString(nil, sb.String()); string(got) != string(want) {
		t.Errorf("AppendJSONString:\n got %s\nwant %s", got, want)
	}
}

func TestAppendJSONString_Appends(t *testing.T) {
	got := AppendJSONString([]byte("x="), "a\u0001b\u0002\"q\"")
	if want := `x="a\u0001b\u0002\"q\""`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// A lone 0xE2 byte (invalid UTF-8) and other E2 runes pass through.
	got = AppendJSONString(nil, "\xe2…\u2029")
	if want := "\"\xe2…\\u2029\""; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
