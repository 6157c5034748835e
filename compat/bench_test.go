package compat

import (
	"os"
	"testing"
)

func benchInput(b *testing.B, path string) []byte {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	return data
}

func BenchmarkNormalizeJSON_ConsumerOffsetPretty(b *testing.B) {
	data := benchInput(b, "testdata/fastjson/consumerOffset.pretty.json")
	for b.Loop() {
		if _, err := NormalizeJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPrettyFastJSON_SubscriptionGroup(b *testing.B) {
	data := benchInput(b, "testdata/fastjson/subscriptionGroup.compact.json")
	for b.Loop() {
		PrettyFastJSON(data)
	}
}

func BenchmarkParseProperties_Basic(b *testing.B) {
	data := benchInput(b, "testdata/properties/basic.properties")
	for b.Loop() {
		if _, err := ParseProperties(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendJSONString_Properties(b *testing.B) {
	s := "KEYS\x01order-1234\x02UNIQ_KEY\x017F0000010B2A18B4AAC25E5D2B0F0000\x02WAIT\x01true\x02TAGS\x01TagA\x02"
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendJSONString(buf[:0], s)
	}
}
