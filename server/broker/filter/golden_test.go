package filter

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

type goldenLine struct {
	Expr    *string `json:"e"`
	Compile string  `json:"c"`
	String  string  `json:"s"`
	Results string  `json:"r"`
}

func loadPropSets(t *testing.T) []Map {
	t.Helper()
	b, err := os.ReadFile("testdata/propsets.json")
	if err != nil {
		t.Fatal(err)
	}
	var sets []Map
	if err := json.Unmarshal(b, &sets); err != nil {
		t.Fatal(err)
	}
	return sets
}

func resultLetter(r Result, err error) byte {
	if err != nil {
		return 'E'
	}
	switch r {
	case True:
		return 'T'
	case False:
		return 'F'
	}
	return 'N'
}

// TestGolden_Java checks every corpus selector against Java's own filter classes: the
// compile outcome with its exact error text, the compiled expression's toString, and the
// result over every property set (testdata/golden.jsonl, written by testdata/javagold).
func TestGolden_Java(t *testing.T) {
	sets := loadPropSets(t)
	f, err := os.Open("testdata/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var n, bad int
	for sc.Scan() {
		var g goldenLine
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		if g.Expr == nil {
			continue // bloom filter lines, checked in server/broker
		}
		n++
		expr := *g.Expr
		e, err := Compile(expr)
		var got string
		if err != nil {
			got = err.Error()
		} else {
			got = "OK"
		}
		if got != g.Compile {
			bad++
			if bad <= 30 {
				t.Errorf("Compile(%q):\n got: %q\nwant: %q", expr, got, g.Compile)
			}
			continue
		}
		if e == nil {
			continue
		}
		if s := e.String(); s != g.String {
			bad++
			if bad <= 30 {
				t.Errorf("Compile(%q).String():\n got: %q\nwant: %q", expr, s, g.String)
			}
		}
		var res strings.Builder
		for _, p := range sets {
			res.WriteByte(resultLetter(e.Evaluate(p)))
		}
		if res.String() != g.Results {
			bad++
			if bad <= 30 {
				t.Errorf("Evaluate(%q) over the property sets:\n got: %s\nwant: %s", expr, res.String(), g.Results)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 3000 {
		t.Fatalf("golden corpus has %d selectors, want the full corpus", n)
	}
	if bad > 0 {
		t.Fatalf("%d of %d selectors differ from Java", bad, n)
	}
}
