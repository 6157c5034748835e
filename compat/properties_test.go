package compat

import (
	"bytes"
	"encoding/hex"
	"errors"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// Each testdata/properties/<name>.properties is read by java.util.Properties#load in
// testdata/java/CompatGolden.java, which writes <name>.golden ("x<hex key> x<hex value>",
// sorted). The inputs are ASCII, where Java's ISO-8859-1 reading and ours agree.
func TestParseProperties_JavaGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/properties/*.properties")
	if len(files) == 0 {
		t.Fatal("no inputs")
	}
	for _, f := range files {
		kvs, err := ParseProperties(readFile(t, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var lines []string
		for k, v := range PropertiesMap(kvs) {
			lines = append(lines, "x"+hex.EncodeToString([]byte(k))+" x"+hex.EncodeToString([]byte(v)))
		}
		sort.Strings(lines)
		got := strings.Join(lines, "\n") + "\n"
		want := string(readFile(t, strings.TrimSuffix(f, ".properties")+".golden"))
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s\nparsed %q", f, got, want, kvs)
		}
	}
}

func TestParseProperties_OrderAndDuplicates(t *testing.T) {
	kvs, err := ParseProperties([]byte("b=1\na=2\nb=3\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []KV{{"b", "1"}, {"a", "2"}, {"b", "3"}}
	if !reflect.DeepEqual(kvs, want) {
		t.Errorf("got %v, want %v", kvs, want)
	}
	if m := PropertiesMap(kvs); m["b"] != "3" || len(m) != 2 {
		t.Errorf("PropertiesMap = %v", m)
	}
}

func TestParseProperties_Escapes(t *testing.T) {
	cases := map[string]KV{
		`k=\u00e9\u4E2D`:    {"k", "é中"},
		`k=\uD83D\uDE00`:    {"k", "😀"},
		`k=\uD83Dx`:         {"k", "\uFFFDx"}, // lone high surrogate
		`k=\uDE00`:          {"k", "\uFFFD"},  // lone low surrogate
		"k=caf\xc3\xa9":     {"k", "café"},    // UTF-8 bytes are kept
		`a\:b\=c\ d=v`:      {"a:b=c d", "v"},
		`k=\q\"`:            {"k", `q"`},
		"k = \\  lead":      {"k", "  lead"},
		"\xef\xbb\xbfbom=1": {"\xef\xbb\xbfbom", "1"}, // Java keeps a BOM in the key too
		"k\\\r\n  =v":       {"k", "v"},
		"k=v\\\r  w":        {"k", "vw"},
	}
	for in, want := range cases {
		kvs, err := ParseProperties([]byte(in))
		if err != nil || len(kvs) != 1 || kvs[0] != want {
			t.Errorf("ParseProperties(%q) = %q, %v; want %q", in, kvs, err, want)
		}
	}
	for _, bad := range []string{`k=\u12`, `k=\u12zz`, `\ug000=1`} {
		if _, err := ParseProperties([]byte(bad)); !errors.Is(err, ErrMalformedEscape) {
			t.Errorf("ParseProperties(%q) err = %v, want ErrMalformedEscape", bad, err)
		}
	}
}

func TestFormatProperties_JavaText(t *testing.T) {
	// Plain pairs are written exactly as MixAll.properties2String writes them.
	got := FormatProperties([]KV{{"brokerName", "broker-a"}, {"messageDelayLevel", "1s 5s 10s"}, {"namesrvAddr", "127.0.0.1:9876;h:9876"}, {"empty", ""}})
	want := "brokerName=broker-a\nmessageDelayLevel=1s 5s 10s\nnamesrvAddr=127.0.0.1:9876;h:9876\nempty=\n"
	if string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// What Java would mangle is escaped.
	got = FormatProperties([]KV{{"#k y", " C:\\store\nx"}})
	if want := "\\#k\\ y=\\ C:\\\\store\\nx\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFormatProperties_RoundTrip(t *testing.T) {
	kvs := []KV{{"a", "1"}, {"", "empty key"}, {" lead", " lead "}, {"x=y:z", "v=w:u"}, {"!bang", "#hash"},
		{"tab\tkey", "tab\tval"}, {"nl\nkey", "nl\nval\r"}, {"uni中", "é😀"}, {"bs\\", "\\u0041"}, {"f\f", "\f"}}
	back, err := ParseProperties(FormatProperties(kvs))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, kvs) {
		t.Errorf("round trip:\n got %q\nwant %q", back, kvs)
	}
}

func FuzzParseProperties(f *testing.F) {
	f.Add([]byte("brokerName = broker-a\nbrokerId=0\n# comment\n")) // plain broker.conf
	f.Add([]byte("cont=a \\\n   b\\\r\n c\n"))                      // continuations
	f.Add([]byte("k\\ e\\:y=\\u4e2d\\uD83D\\uDE00\\t\\n"))          // escapes
	f.Add([]byte("\\\n\n! c\n   \f\tkey\tvalue  \nlast\\"))         // blanks, comments, EOF backslash
	f.Add([]byte("bad=\\u12"))                                      // malformed escape
	f.Fuzz(func(t *testing.T, in []byte) {
		kvs, err := ParseProperties(in)
		if err != nil {
			if !errors.Is(err, ErrMalformedEscape) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		// Whatever was read survives a write and a re-read unchanged.
		text := FormatProperties(kvs)
		back, err := ParseProperties(text)
		if err != nil {
			t.Fatalf("re-read of %q: %v", text, err)
		}
		if len(back) != len(kvs) || (len(kvs) > 0 && !reflect.DeepEqual(back, kvs)) {
			t.Fatalf("round trip:\n in %q\n kvs %q\ntext %q\nback %q", in, kvs, text, back)
		}
		if !bytes.Equal(FormatProperties(back), text) {
			t.Fatalf("format not stable for %q", in)
		}
	})
}
