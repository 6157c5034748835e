package message

import (
	"errors"
	"testing"
)

func TestWalkBatch_Elements(t *testing.T) {
	var body []byte
	body = AppendBatchElement(body, 1, []byte("a"), []byte("UNIQ_KEY\x01U1\x02")) // Go: trailing separator
	body = AppendBatchElement(body, 2, []byte("bb"), []byte("UNIQ_KEY\x01U2"))    // Java 4.9.1+
	body = AppendBatchElement(body, 3, nil, nil)
	var got []BatchElement
	if err := WalkBatch(body, func(e *BatchElement) bool { got = append(got, *e); return true }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Flag != 1 || string(got[1].Body) != "bb" || got[2].Flag != 3 || len(got[2].Body) != 0 {
		t.Fatalf("elements %+v", got)
	}
}

func TestWalkBatch_Errors(t *testing.T) {
	one := AppendBatchElement(nil, 1, []byte("body"), []byte("A\x01b"))
	for i := 1; i < len(one); i++ {
		if err := WalkBatch(one[:i], func(*BatchElement) bool { return true }); !errors.Is(err, ErrBatchTruncated) {
			t.Fatalf("cut at %d: %v", i, err)
		}
	}
	if err := WalkBatch(nil, func(*BatchElement) bool { return true }); !errors.Is(err, ErrBatchEmpty) {
		t.Fatalf("empty: %v", err)
	}
	neg := AppendBatchElement(nil, 1, nil, nil)
	neg[16], neg[17], neg[18], neg[19] = 0xFF, 0xFF, 0xFF, 0xFF
	if err := WalkBatch(neg, func(*BatchElement) bool { return true }); !errors.Is(err, ErrBatchBadLength) {
		t.Fatalf("negative body length: %v", err)
	}
}

func TestEncodeBatchRecord_PropertiesJoin(t *testing.T) {
	m := sampleMessage()
	m.Properties = []byte("CLUSTER\x01c1") // batch-level properties
	cases := []struct{ elem, want string }{
		{"UNIQ_KEY\x01U1\x02", "UNIQ_KEY\x01U1\x02CLUSTER\x01c1"}, // already ends in 0x02
		{"UNIQ_KEY\x01U1", "UNIQ_KEY\x01U1\x02CLUSTER\x01c1"},     // joiner added (4.9.3+)
		{"", "CLUSTER\x01c1"},
	}
	for _, c := range cases {
		e := &BatchElement{Flag: 5, Body: []byte("xyz"), Properties: []byte(c.elem)}
		b := make([]byte, BatchRecordSize(m, e))
		EncodeBatchRecord(b, m, e, 7, 100, 200)
		r, err := DecodeRecord(b)
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Properties) != c.want || r.Flag != 5 || !r.CRCValid() || r.QueueOffset != 7 || r.PreparedTransactionOffset != 0 {
			t.Fatalf("element %q: props %q flag %d", c.elem, r.Properties, r.Flag)
		}
	}
}

// FuzzWalkBatch checks that arbitrary batch bodies never panic and that elements stay
// inside the body.
func FuzzWalkBatch(f *testing.F) {
	f.Add(AppendBatchElement(nil, 0, []byte("hello"), []byte("UNIQ_KEY\x01A"))) // one Java element
	two := AppendBatchElement(nil, 1, []byte("a"), nil)
	f.Add(AppendBatchElement(two, 2, []byte("b"), []byte("K\x01v\x02"))) // two, Go-style props
	f.Add([]byte{0, 0, 0, 22, 0, 0, 0, 0})                               // truncated element
	f.Fuzz(func(t *testing.T, b []byte) {
		total := 0
		_ = WalkBatch(b, func(e *BatchElement) bool {
			total += 22 + len(e.Body) + len(e.Properties)
			if total > len(b) {
				t.Fatalf("elements exceed the body: %d > %d", total, len(b))
			}
			return true
		})
	})
}
