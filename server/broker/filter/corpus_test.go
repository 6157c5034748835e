package filter

// The golden corpus: hand-written selectors for every rule and quirk, plus random ones
// drawn from the grammar (and broken on purpose). testdata/javagold runs Java 4.9.x's own
// filter classes over it and writes testdata/golden.jsonl, which TestGolden_Java checks
// this package against. Regenerate with:
//
//	go test ./server/broker/filter -run TestCorpus_Write -corpus
//	sh server/broker/filter/testdata/javagold/gen.sh

import (
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

var writeCorpus = flag.Bool("corpus", false, "rewrite testdata/corpus.jsonl")

// corpusSeed fixes the random part of the corpus; the golden file depends on it.
const corpusSeed = 20260101

var handWritten = []string{
	// the conformance cases
	"a > 5 AND b = 'x'", "a IS NULL", "a IS NOT NULL", "a BETWEEN 3 AND 7", "a NOT BETWEEN 3 AND 7",
	"TAGS IN ('TagA', 'TagB')", "TAGS NOT IN ('TagA')", "TAGS = 'TagA' OR a > 5", "b IN ('x')",
	// comparisons and coercions
	"a = 5", "a = '5'", "a <> 5", "a = 5.0", "a = 5.5", "a > 5.0", "a >= 10", "a < 10", "a <= 10", "a > -5",
	"a > 2147483647", "a > 3000000000", "a = 2147483648", "a > 9223372036854775807", "a > 5L", "a > 5l",
	"a = TRUE", "c = TRUE", "c = FALSE", "TRUE = c", "a = b", "a <> b", "a > b", "a < b", "b = 'x'", "'x' = b",
	"5 = TRUE", "5 = 'x'", "'5' = 5", "5 = '5'", "a = 'it''s'", "a = ''''", "b = ''",
	"d = e", "d IS NULL AND e IS NULL", "a = d", "d = a", "NOT (a = d)", "NOT (d = a)",
	"a > 1e3", "a >= 1E3", "a = 1e3", "a > .5", "a > 5.", "a > 1.5e-2", "a = 0.001",
	"(a = 5) = (b = 'x')", "(a = 5) = TRUE", "(a = 5) = 'true'", "'true' = (a = 5)", "TRUE = TRUE", "FALSE = TRUE",
	"-a > 5", "-(a) > 5", "- 5 < a", "+5 < a", "+ + 5 < a", "-(-5) < a", "-(a = 5) > 3", "+(a) > 1",
	"a > -2147483648", "a > -9223372036854775807", "a > --5", "a > -(-(5))",
	// logic
	"a > 5 OR b = 'x'", "a > 5 AND NOT b = 'x'", "NOT a > 5", "NOT (a > 5)", "NOT NOT a > 5",
	"a", "NOT a", "a AND b", "a OR b", "TRUE", "FALSE", "NOT TRUE", "TRUE AND a > 5", "FALSE OR a > 5",
	"(a > 5 OR b = 'x') AND (c IS NULL OR c = 'true')", "a > 5 AND b = 'x' OR c = 'true'", "a > 5 OR b = 'x' AND c = 'true'",
	"(a > 5)", "((a > 5))", "(((a)))", "a IS NULL OR a > 5", "a > 5 OR a IS NULL",
	// between / in
	"a BETWEEN 7 AND 3", "a BETWEEN 3 AND 3", "a BETWEEN 3.5 AND 7", "a BETWEEN -3 AND 7", "a BETWEEN 'x' AND 'y'",
	"a BETWEEN 3 AND 'x'", "a BETWEEN 'x' AND 3", "a BETWEEN NULL AND 3", "a BETWEEN 3 AND NULL", "a BETWEEN b AND c",
	"a BETWEEN TRUE AND FALSE", "a BETWEEN 'true' AND TRUE", "a BETWEEN 1 AND 2.5", "a NOT BETWEEN 'x' AND 'y'",
	"a BETWEEN 2147483648 AND 1", "a BETWEEN '3' AND 7", "a BETWEEN 3 AND '7'", "a BETWEEN 3 AND '7.5'",
	"a IN ('10', '5')", "a NOT IN ('10', '5')", "a IN ('a', 'b', 'c', 'd', 'e')", "a IN ('a','b','c','d','e','f','g','h','i','j','k','l','m')",
	"a IN ('x', 'x')", "5 IN ('5')", "(a) IN ('5')", "a IN ()", "a IN (5)", "a IN ('x',)", "a NOT IN ('x'", "a IN 'x'",
	"(a IN ('x')) > 5", "a IN ('a','b','c','d','e') > 1", "a NOT IN ('q','w','e','r','t','y') = 1",
	// literals and compile checks
	"a = NULL", "NULL = a", "a <> NULL", "a > 'x'", "'x' < a", "a > TRUE", "a > NULL", "a > (b = 1)", "a > NOT b",
	"TRUE = 'x'", "TRUE = 5", "NULL IS NULL", "5 IS NULL", "a > 0.0", "a > 0.", "a > .0", "a > 1e-400", "a > 1e400",
	"a > 4.9e-324", "a = 9223372036854775808", "a = -9223372036854775808", "a = 99999999999999999999", "a = 0L",
	"a = 007", "a = 0x10", "a = 1e", "a = 1e+", "a = 1.5L", "a = 12L5", "a = 1..5", "NOT 5", "NOT 'x'", "5 AND a", "a AND 5",
	"'x'", "5", "-a", "(a = 1) AND -b", "- TRUE", "a = 1 AND (b", "TAGS", "NOT TAGS",
	// lexing, comments, case, trailing text
	"a = 1 b", "a = 1 )", "a = 1 #", "a = 1 # ", "#", "a # 1", "a = 'abc", "a = '", "'", "a = 1 /", "a = 1 /x", "/x",
	"a = 1 /* c */ AND b = 'x'", "a = 1 -- c\n AND b = 'x'", "a = 1 --c", "a = 1 -- c\r\n OR b = 'x'", "/* open",
	"a > 5 and b = 'x'", "a > 5 AnD b = 'x'", "a is null", "a Is NoT nUlL", "a between 3 and 7", "a not in ('x')",
	"a>5", "a>=5AND b='x'", "a\t>\t5", "a\n>\n5", "a\r>\r5", "\ta > 5\n", "a > 5 AND\nb = 'x'",
	"NOTE = 'x'", "ANDY = 'x'", "nullx IS NULL", "$a = 'x'", "_a = 'x'", "a$1 = 'x'", "a.b = 'x'", "a-b = 1", "1a = 1",
	"a = 'ü'", "a = '中文'", "a = '😀'", "ü = 1", "a = 1 ü", "a = 1 😀", "a\u00a0= 1", "a = 'x\ny'",
	"", " ", "\t", "\n", "()", "(", ")", "a", "a =", "a >", "= a", "a = = 1", "a == 1", "a != 1", "a <> ", "a IS", "a IS x",
	"a IS NOT", "a IS NOT x", "a NOT", "a NOT x", "a NOT BETWEEN", "a BETWEEN 1", "a BETWEEN 1 AND", "a BETWEEN 1 OR 2",
	"a = 1 AND", "a = 1 OR", "AND", "OR a", "a = 1 AND OR b = 2", "+", "+ a", "- a", "NOT", "a = +", "a = -",
	"a = + (b", "a = + (b = 1", "+(a = 1 #)", "a = 1 AND + (b BETWEEN 3 AND 1 #)", "(a = 1", "a = (1", "a = 1)",
	"a IN ('x') AND", "a IN ('x' 'y')", "a NOT BETWEEN 1 AND", "a > 5 AND b IN ('x', 'y') AND c NOT BETWEEN 1 AND 3 OR d IS NOT NULL",
}

// genExpr draws a random selector from the grammar; leaves may be of any type so the
// compile-time checks fire too.
func genExpr(r *rand.Rand, depth int) string {
	kw := func(s string) string {
		switch r.IntN(4) {
		case 0:
			return strings.ToLower(s)
		case 1:
			return s[:1] + strings.ToLower(s[1:])
		}
		return s
	}
	ws := func() string {
		return []string{" ", " ", " ", "  ", "\t", "\n"}[r.IntN(6)]
	}
	props := []string{"a", "b", "c", "d", "TAGS"}
	lits := []string{"0", "1", "3", "5", "7", "10", "-5", "2147483647", "2147483648", "9223372036854775807", "5L",
		"1.5", "5.0", "0.5", "1e3", "1E-2", ".5", "5.", "10.0", "'x'", "'y'", "''", "'it''s'", "'5'", "'10'", "'true'",
		"'abc'", "TRUE", "FALSE", "NULL"}
	var val func(d int) string
	var cond func(d int) string
	val = func(d int) string {
		switch n := r.IntN(10); {
		case n < 4:
			return props[r.IntN(len(props))]
		case n < 8 || d <= 0:
			l := lits[r.IntN(len(lits))]
			if l == "TRUE" || l == "FALSE" || l == "NULL" {
				return kw(l)
			}
			return l
		case n == 8:
			return []string{"-", "+", "- "}[r.IntN(3)] + val(d-1)
		}
		return "(" + cond(d-1) + ")"
	}
	strs := func() string {
		n := 1 + r.IntN(6)
		out := make([]string, n)
		for i := range out {
			out[i] = []string{"'x'", "'y'", "'5'", "'10'", "'TagA'", "''", "'a'", "'b'", "'c'"}[r.IntN(9)]
		}
		return "(" + strings.Join(out, ", ") + ")"
	}
	cond = func(d int) string {
		if d <= 0 {
			return val(0) + ws() + []string{"=", "<>", ">", ">=", "<", "<="}[r.IntN(6)] + ws() + val(0)
		}
		switch r.IntN(12) {
		case 0, 1, 2:
			return val(d-1) + ws() + []string{"=", "<>", ">", ">=", "<", "<="}[r.IntN(6)] + ws() + val(d-1)
		case 3:
			return val(d-1) + ws() + kw("BETWEEN") + ws() + val(d-1) + ws() + kw("AND") + ws() + val(d-1)
		case 4:
			return val(d-1) + ws() + kw("NOT") + ws() + kw("BETWEEN") + ws() + val(d-1) + ws() + kw("AND") + ws() + val(d-1)
		case 5:
			return val(d-1) + ws() + kw("IN") + ws() + strs()
		case 6:
			return val(d-1) + ws() + kw("NOT") + ws() + kw("IN") + ws() + strs()
		case 7:
			return val(d-1) + ws() + kw("IS") + ws() + kw("NULL")
		case 8:
			return val(d-1) + ws() + kw("IS") + ws() + kw("NOT") + ws() + kw("NULL")
		case 9:
			return cond(d-1) + ws() + kw("AND") + ws() + cond(d-1)
		case 10:
			return cond(d-1) + ws() + kw("OR") + ws() + cond(d-1)
		}
		return kw("NOT") + ws() + cond(d-1)
	}
	return cond(depth)
}

// mutate breaks a selector: cut it short, or insert or delete a character.
func mutate(r *rand.Rand, s string) string {
	u := []rune(s)
	if len(u) == 0 {
		return s
	}
	i := r.IntN(len(u))
	switch r.IntN(3) {
	case 0:
		return string(u[:i])
	case 1:
		noise := []rune(" '()#.-/*,=<>!0aZ\t\n+L e")
		c := noise[r.IntN(len(noise))]
		return string(u[:i]) + string(c) + string(u[i:])
	}
	return string(u[:i]) + string(u[i+1:])
}

func corpus() []string {
	r := rand.New(rand.NewPCG(corpusSeed, corpusSeed))
	out := append([]string(nil), handWritten...)
	for i := 0; i < 1500; i++ {
		out = append(out, genExpr(r, 1+r.IntN(4)))
	}
	for i := 0; i < 1500; i++ {
		out = append(out, mutate(r, genExpr(r, 1+r.IntN(3))))
	}
	return out
}

func TestCorpus_Write(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -corpus to rewrite testdata/corpus.jsonl")
	}
	var b strings.Builder
	for _, e := range corpus() {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile("testdata/corpus.jsonl", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
