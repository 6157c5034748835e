package message

import (
	"math/rand"
	"testing"
)

func TestProperties_Parse_JavaRules(t *testing.T) {
	cases := []struct {
		name, in string
		want     []Property
	}{
		{"empty", "", nil},
		{"one without trailing separator (Java 4.9.1+)", "TAGS\x01a", []Property{{"TAGS", "a"}}},
		{"trailing separator (Go client, Java <= 4.9.0)", "TAGS\x01a\x02KEYS\x01k1 k2\x02",
			[]Property{{"TAGS", "a"}, {"KEYS", "k1 k2"}}},
		{"empty segments skipped", "\x02\x02TAGS\x01a\x02\x02", []Property{{"TAGS", "a"}}},
		{"empty value skipped", "A\x01\x02B\x01b", []Property{{"B", "b"}}},
		{"empty key skipped", "\x01v\x02B\x01b", []Property{{"B", "b"}}},
		{"segment without name separator skipped", "junk\x02B\x01b", []Property{{"B", "b"}}},
		{"value keeps a second 0x01", "A\x01x\x01y", []Property{{"A", "x\x01y"}}},
		{"duplicate key: last wins, first position", "A\x011\x02B\x012\x02A\x013", []Property{{"A", "3"}, {"B", "2"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ParseProperties(c.in)
			got := p.All()
			if len(got) != len(c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %q, want %q", got, c.want)
				}
			}
		})
	}
}

func TestProperties_AppendTo_NoTrailingSeparator(t *testing.T) {
	p := ParseProperties("TAGS\x01a\x02KEYS\x01k\x02")
	p.Set(PropertyCluster, "DefaultCluster")
	if p.Delete(PropertyWaitStoreMsgOK) {
		t.Fatal("Delete of an absent key reported true")
	}
	got := string(p.AppendTo(nil))
	want := "TAGS\x01a\x02KEYS\x01k\x02CLUSTER\x01DefaultCluster"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if p.EncodedLen() != len(want) {
		t.Fatalf("EncodedLen %d, want %d", p.EncodedLen(), len(want))
	}
	if !p.Delete("KEYS") || p.String() != "TAGS\x01a\x02CLUSTER\x01DefaultCluster" {
		t.Fatalf("after Delete: %q", p.String())
	}
	var empty Properties
	if empty.EncodedLen() != 0 || len(empty.AppendTo(nil)) != 0 {
		t.Fatal("empty properties encode to something")
	}
}

func TestProperties_Parse_ReuseDoesNotAllocate(t *testing.T) {
	s := "TAGS\x01TagA\x02KEYS\x01k1\x02UNIQ_KEY\x01C0A80001000018B4AAC2\x02WAIT\x01true"
	var p Properties
	buf := make([]byte, 0, 256)
	p.Parse(s) // warm the slice
	allocs := testing.AllocsPerRun(100, func() {
		p.Reset()
		p.Parse(s)
		p.Delete(PropertyWaitStoreMsgOK)
		p.Set(PropertyCluster, "DefaultCluster")
		buf = p.AppendTo(buf[:0])
	})
	if allocs != 0 {
		t.Fatalf("parse+set+encode allocates %.1f times", allocs)
	}
}

func TestLookupProperty_AgreesWithParse(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	alphabet := []byte{'A', 'B', 'k', 1, 2}
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.Intn(24))
		for j := range b {
			b[j] = alphabet[r.Intn(len(alphabet))]
		}
		checkLookupAgrees(t, b)
	}
}

func checkLookupAgrees(t *testing.T, b []byte) {
	t.Helper()
	p := ParseProperties(string(b))
	for _, key := range []string{"A", "B", "AB", "k", "TAGS"} {
		want, wantOK := p.Get(key)
		got, ok := LookupProperty(b, key)
		if ok != wantOK || string(got) != want {
			t.Fatalf("props %q key %q: Lookup (%q,%v), Parse (%q,%v)", b, key, got, ok, want, wantOK)
		}
	}
}

func TestAppendProperty_Separator(t *testing.T) {
	if got := string(AppendProperty(nil, "A", "1")); got != "A\x011" {
		t.Fatalf("got %q", got)
	}
	if got := string(AppendProperty([]byte("X\x01y"), "A", "1")); got != "X\x01y\x02A\x011" {
		t.Fatalf("got %q", got)
	}
	if got := string(AppendProperty([]byte("X\x01y\x02"), "A", "1")); got != "X\x01y\x02A\x011" {
		t.Fatalf("got %q", got)
	}
}

// FuzzParseProperties checks that parsing never panics, that Lookup agrees with Parse,
// and that a re-encoded set parses back to itself.
func FuzzParseProperties(f *testing.F) {
	f.Add([]byte("TAGS\x01a\x02KEYS\x01k1 k2"))       // Java 4.9.1+ form
	f.Add([]byte("TAGS\x01a\x02UNIQ_KEY\x01ABC\x02")) // Go client: trailing separator
	f.Add([]byte("\x02\x02A\x01\x02\x01v\x02"))       // empty segments, empty key and value
	f.Add([]byte("A\x01x\x01y"))                      // value containing 0x01
	f.Fuzz(func(t *testing.T, b []byte) {
		checkLookupAgrees(t, b)
		p := ParseProperties(string(b))
		q := ParseProperties(p.String())
		if q.Len() != p.Len() {
			t.Fatalf("re-parse of %q: %d properties, want %d", p.String(), q.Len(), p.Len())
		}
		for _, kv := range p.All() {
			if v, ok := q.Get(kv.Key); !ok || v != kv.Value {
				t.Fatalf("re-parse lost %q", kv.Key)
			}
		}
	})
}
