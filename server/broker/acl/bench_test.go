package acl

import (
	"crypto/hmac"
	"crypto/sha1"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// The benchmarks' request: a SEND_MESSAGE_V2 of 1 KiB as mqbench and the clients send it
// (a UNIQ_KEY, WAIT and TAGS in the properties), from an account with per-topic
// permissions that no whitelist matches: the signature and the permission are checked.

const benchACL = `accounts:
  - accessKey: benchAccess
    secretKey: benchSecret1
    admin: true
    defaultTopicPerm: DENY
    topicPerms:
      - AclBench=PUB|SUB
`

// benchSendV2 returns the header in the order the Go client and mqbench encode it
// (a, b, ..., then AccessKey), or in the order a Java client's fastjson writes its
// HashMap (javaOrder).
func benchSendV2(javaOrder bool) protocol.Ext {
	const props = "TAGS\x01TagA\x02UNIQ_KEY\x017F00000100002A9F0000000000000001\x02WAIT\x01true"
	kv := []string{"a", "benchmark_producer", "b", "AclBench", "c", "TBW102", "d", "4", "e", "2", "f", "0",
		"g", "1764640000000", "h", "0", "i", props, "j", "0", "k", "false", "m", "false", "n", "broker-a", "AccessKey", "benchAccess"}
	e := ext(kv...)
	if !javaOrder {
		return e
	}
	keys := make([]string, len(e))
	for i := range e {
		keys[i] = e[i].Key
	}
	out := make(protocol.Ext, 0, len(e))
	for _, i := range JavaHashMapOrder(keys) {
		out = append(out, e[i])
	}
	return out
}

func benchValidator(b *testing.B) *Validator {
	b.Helper()
	home := b.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "conf"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "conf", "plain_acl.yml"), []byte(benchACL), 0o644); err != nil {
		b.Fatal(err)
	}
	v, err := New(Options{Home: home})
	if err != nil {
		b.Fatal(err)
	}
	return v
}

func benchCheck(b *testing.B, javaOrder bool) {
	v := benchValidator(b)
	body := make([]byte, 1024)
	e := benchSendV2(javaOrder)
	e = append(e, protocol.KV{Key: KeySignature, Value: Sign("benchSecret1", e, body)})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := v.Check(int32(protocol.CodeSendMessageV2), e, body, "127.0.0.1:40000"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck_SendV2GoOrder is the broker's whole check of one signed 1 KiB send
// whose header comes in the Go client's (and mqbench's) order.
func BenchmarkCheck_SendV2GoOrder(b *testing.B) { benchCheck(b, false) }

// BenchmarkCheck_SendV2JavaOrder is the same with the header in a Java client's order.
func BenchmarkCheck_SendV2JavaOrder(b *testing.B) { benchCheck(b, true) }

// BenchmarkSigner_SendV2 is a client's signing of the same request (mqbench -ak/-sk).
func BenchmarkSigner_SendV2(b *testing.B) {
	body := make([]byte, 1024)
	e := benchSendV2(false)
	s := NewSigner("benchSecret1")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = s.Sign(e, body)
	}
}

// BenchmarkHMACFloor is the part no implementation can skip: one HMAC-SHA1 over the
// request's values and body with a keyed state set up once (what Check costs at best).
func BenchmarkHMACFloor(b *testing.B) {
	body := make([]byte, 1024)
	e := benchSendV2(false)
	var content []byte
	for _, i := range sortedIdx(e) {
		content = append(content, e[i].Value...)
	}
	m := hmac.New(sha1.New, []byte("benchSecret1"))
	var sum [20]byte
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Reset()
		m.Write(content)
		m.Write(body)
		m.Sum(sum[:0])
	}
}

func sortedIdx(e protocol.Ext) []int {
	var ks []sortKey
	_ = appendContent(nil, &ks, e, true)
	var o []int
	for _, k := range ks {
		o = append(o, k.idx)
	}
	return o
}

// TestAppendContent_MatchesSortedMap checks the prefix sort against the definition: the
// values of a map of the keys (the last duplicate wins), in sort.Strings order. The keys
// share 8-byte prefixes, differ only past them, are shorter than 8 bytes with NUL bytes,
// and repeat.
func TestAppendContent_MatchesSortedMap(t *testing.T) {
	pool := []string{"a", "b", "a\x00", "a\x00\x00", "", "defaultT", "defaultTopic", "defaultTopicQueueNums", "defaultTopicA",
		"AccessKey", "SecurityToken", "_UNIQUE_KEY_QUERY", "Signature", "consumerGroup", "consumerGroupX", "zzzzzzzzz", "zzzzzzzz", "\xff\xfe"}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 5000; round++ {
		var e protocol.Ext
		for n := rng.IntN(20); n > 0; n-- {
			e = append(e, protocol.KV{Key: pool[rng.IntN(len(pool))], Value: strconv.Itoa(rng.IntN(1000)) + ","})
		}
		withUnique := rng.IntN(2) == 0
		m := map[string]string{}
		for _, kv := range e {
			if kv.Key == KeySignature || (!withUnique && kv.Key == keyUniqueQuery) {
				continue
			}
			m[kv.Key] = kv.Value
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var want []byte
		for _, k := range keys {
			want = append(want, m[k]...)
		}
		var ks []sortKey
		if got := appendContent(nil, &ks, e, withUnique); string(got) != string(want) {
			t.Fatalf("round %d: %q (withUnique %v)\ngot  %q\nwant %q", round, e, withUnique, got, want)
		}
	}
}
