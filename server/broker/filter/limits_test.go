package filter

// The limits that keep one hostile selector from taking the broker down (issue 13: a
// CHECK_CLIENT_CONFIG with 1,000,000 nested parentheses overflowed the goroutine stack
// and killed the process; issue 14: 1,000,000 NOTs or minus signs cost 260-400 MiB of
// stack per request). Each test runs under a small maximum stack so that recursion
// proportional to the input fails loudly instead of just growing the stack.

import (
	"errors"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// smallStack caps every goroutine's stack at 1 MiB for one test (Go's default is 1 GiB).
// A bounded parser uses a few hundred KiB; an unbounded one dies here with "stack
// exceeds 1048576-byte limit", which fails the test binary.
func smallStack(tb testing.TB) {
	old := debug.SetMaxStack(1 << 20)
	tb.Cleanup(func() { debug.SetMaxStack(old) })
}

// mustRefuse compiles src and wants a limit error (ErrTooComplex, also ErrInvalidSelector)
// whose text contains want.
func mustRefuse(t *testing.T, name, src, want string) {
	t.Helper()
	e, err := Compile(src)
	if err == nil {
		t.Fatalf("%s (%d bytes) compiled to a %d-character expression; want a limit error", name, len(src), len(e.String()))
	}
	var ce *CompileError
	if !errors.As(err, &ce) || !errors.Is(err, ErrInvalidSelector) || !errors.Is(err, ErrTooComplex) {
		t.Fatalf("%s: %T %v does not wrap ErrInvalidSelector and ErrTooComplex", name, err, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: error %q does not contain %q", name, err, want)
	}
}

// hostileParens is the selector of issue 13: n "(" around "a = 1", closed n times.
func hostileParens(n int) string {
	return strings.Repeat("(", n) + "a = 1" + strings.Repeat(")", n)
}

func TestCompile_DeepParentheses_Refused(t *testing.T) {
	smallStack(t)
	mustRefuse(t, "1M parentheses", hostileParens(1_000_000), "longer than")
	mustRefuse(t, "10k parentheses", hostileParens(10_000), "nested deeper than "+strconv.Itoa(MaxNesting))
	mustRefuse(t, "MaxNesting+1 parentheses", hostileParens(MaxNesting+1), "at line 1, column "+strconv.Itoa(MaxNesting+1))
	e := mustCompile(t, hostileParens(MaxNesting))
	if e.String() != "(a == 1)" || !e.Match(Map{"a": "1"}) {
		t.Fatalf("%d parentheses: %s", MaxNesting, e)
	}
}

func TestCompile_UnclosedParentheses_Refused(t *testing.T) {
	smallStack(t)
	mustRefuse(t, "1M unclosed", strings.Repeat("(", 1_000_000), "longer than")
	mustRefuse(t, "60k unclosed", strings.Repeat("(", 60_000), "nested deeper than")
	// Within the limit it is the syntax error Java gives.
	_, err := Compile(strings.Repeat("(", MaxNesting))
	if err == nil || errors.Is(err, ErrTooComplex) ||
		!strings.HasPrefix(err.Error(), `org.apache.rocketmq.filter.parser.ParseException: Encountered "<EOF>" at line 1, column `+strconv.Itoa(MaxNesting)+".") {
		t.Fatalf("%d unclosed parentheses: %v", MaxNesting, err)
	}
}

func TestCompile_DeepNot_Refused(t *testing.T) {
	smallStack(t)
	mustRefuse(t, "1M NOT", strings.Repeat("NOT ", 1_000_000)+"a", "longer than")
	mustRefuse(t, "16k NOT", strings.Repeat("NOT ", 16_000)+"a", "nested deeper than")
	mustRefuse(t, "16k NOT(", strings.Repeat("NOT(", 16_000)+"a", "nested deeper than")
	// NOT binds tighter than =, so the parentheses are the last level: 255 NOTs, odd.
	e := mustCompile(t, strings.Repeat("NOT ", MaxNesting-1)+"(a = 1)")
	if e.Match(Map{"a": "1"}) || !e.Match(Map{"a": "2"}) {
		t.Fatalf("%d NOTs: wrong result", MaxNesting-1)
	}
	mustRefuse(t, "MaxNesting NOTs and (", strings.Repeat("NOT ", MaxNesting)+"(a = 1)", "column "+strconv.Itoa(4*MaxNesting+1))
}

func TestCompile_DeepUnaryMinus_Refused(t *testing.T) {
	smallStack(t)
	mustRefuse(t, "1M minus", strings.Repeat("- ", 1_000_000)+"5 < a", "longer than")
	mustRefuse(t, "30k minus", strings.Repeat("- ", 30_000)+"5 < a", "nested deeper than")
	// "+" runs JavaCC's unbounded syntactic lookahead over the rest of the operand.
	mustRefuse(t, "30k plus", strings.Repeat("+ ", 30_000)+"5 < a", "nested deeper than")
	mustRefuse(t, "30k plus-paren", strings.Repeat("+(", 30_000)+"a", "nested deeper than")
	e := mustCompile(t, strings.Repeat("- ", MaxNesting)+"5 < a") // an even count: 5 < a
	if !e.Match(Map{"a": "6"}) || e.Match(Map{"a": "4"}) {
		t.Fatalf("%d minus signs: %s", MaxNesting, e)
	}
	mustCompile(t, strings.Repeat("+ ", MaxNesting)+"5 < a")
}

// TestCompile_LongExpression: the length is bounded; below the bound a flat chain of
// OR/AND (which Java builds left-deep) compiles, prints as Java does and evaluates
// without recursion proportional to its length; a chain of = (left-deep too) is bounded
// by MaxTreeDepth.
func TestCompile_LongExpression(t *testing.T) {
	smallStack(t)
	mustRefuse(t, "2 MB OR chain", "a = 1"+strings.Repeat(" OR a = 1", 200_000), "longer than "+strconv.Itoa(MaxLength))
	mustRefuse(t, "MaxLength+1", strings.Repeat(" ", MaxLength-4)+"a = 1", "longer than")
	mustCompile(t, strings.Repeat(" ", MaxLength-5)+"a = 1")

	n := (MaxLength - 16) / len(" OR a = 0000")
	var b strings.Builder
	b.WriteString("b = 'x'")
	for i := 0; i < n; i++ {
		b.WriteString(" OR a = " + strconv.Itoa(1000+i%9000))
	}
	e := mustCompile(t, b.String())
	if r, err := e.Evaluate(Map{"a": "1500", "b": "y"}); r != True || err != nil {
		t.Fatalf("long OR chain over a=1500: %v %v", r, err)
	}
	if r, err := e.Evaluate(Map{"a": "1", "b": "y"}); r != False || err != nil {
		t.Fatalf("long OR chain over a=1: %v %v", r, err)
	}
	if r, err := e.Evaluate(Map{"b": "y"}); r != Unknown || err != nil {
		t.Fatalf("long OR chain without a: %v %v", r, err)
	}
	if s := e.String(); !strings.HasPrefix(s, strings.Repeat("(", n)+"(b == 'x') || (a == 1000))") ||
		!strings.HasSuffix(s, " || (a == "+strconv.Itoa(1000+(n-1)%9000)+"))") {
		t.Fatalf("long OR chain prints as %.100s...", s)
	}
	and := mustCompile(t, "a = 1"+strings.Repeat(" AND b IS NULL", 4000))
	if !and.Match(Map{"a": "1"}) || and.Match(Map{"a": "1", "b": ""}) {
		t.Fatal("long AND chain: wrong result")
	}

	mustRefuse(t, "= chain", "a"+strings.Repeat(" = a", 5000), "deeper than "+strconv.Itoa(MaxTreeDepth))
	mustRefuse(t, "IS NULL chain", "a"+strings.Repeat(" IS NULL", 5000), "deeper than")
	mustRefuse(t, "= chain one too deep", "a"+strings.Repeat(" = a", MaxTreeDepth), "deeper than")
	eq := mustCompile(t, "a"+strings.Repeat(" = a", MaxTreeDepth-1)) // the deepest tree: evaluates in the small stack
	// ((a == a) == a): a Boolean meets a String, Java's ClassCastException.
	if _, err := eq.Evaluate(Map{"a": "1"}); !errors.Is(err, ErrEvaluation) || len(eq.String()) < 4*MaxTreeDepth {
		t.Fatalf("deepest = chain: %v", err)
	}
}

// TestCompile_JavaToStringOfMixedChains: AND/OR chains are flattened; toString keeps
// Java's left-deep shape whichever way a chain was built (the texts come from Java 4.9.8's
// SelectorParser, as the golden corpus's do).
func TestCompile_JavaToStringOfMixedChains(t *testing.T) {
	for expr, str := range map[string]string{
		"a OR b OR c":                             "((a || b) || c)",
		"(a OR b) OR c":                           "((a || b) || c)",
		"a OR (b OR c)":                           "(a || (b || c))",
		"a AND b OR c AND d OR e":                 "(((a && b) || (c && d)) || e)",
		"a BETWEEN 1 AND 2 AND b":                 "(((a >= 1) && (a <= 2)) && b)",
		"a NOT BETWEEN 1 AND 2 OR b OR c":         "((((a < 1) || (a > 2)) || b) || c)",
		"NOT (a OR b OR c) AND (d AND e)":         "((NOT ((a || b) || c)) && (d && e))",
		"a = 1 OR b = 2 OR c IS NOT NULL":         "(((a == 1) || (b == 2)) || (NOT (c == NULL)))",
		"(a AND b) AND (c AND d) AND (e)":         "(((a && b) && (c && d)) && e)",
		"x NOT BETWEEN 1 AND 2 AND y OR z":        "((((x < 1) || (x > 2)) && y) || z)",
		"a OR b AND c OR d":                       "((a || (b && c)) || d)",
		"- - - 5 < a OR NOT NOT NOT a OR a":       "((((- (- (- 5))) < a) || (NOT (NOT (NOT a)))) || a)",
		"a IN ('x', 'y') OR b NOT IN ('z')":       "(a IN ( x, y ) || b NOT IN ( z ))",
		"a OR b OR (c OR d) OR e":                 "(((a || b) || (c || d)) || e)",
		"((a OR b) OR (c OR d)) OR (e OR f)":      "(((a || b) || (c || d)) || (e || f))",
		"a OR b OR c OR d AND e AND f OR g":       "((((a || b) || c) || ((d && e) && f)) || g)",
		"TRUE OR FALSE OR NULL IS NULL":           "((TRUE || FALSE) || (NULL == NULL))",
		"a BETWEEN 1 AND 2 AND b BETWEEN 3 AND 4": "(((a >= 1) && (a <= 2)) && ((b >= 3) && (b <= 4)))",
	} {
		if got := mustCompile(t, expr).String(); got != str {
			t.Errorf("Compile(%q).String() = %q, want %q", expr, got, str)
		}
	}
	if _, err := Compile("NOT a BETWEEN 1 AND 2 AND b"); err == nil || err.Error() != "java.lang.RuntimeException: Value '(NOT a)' cannot be compared." {
		t.Errorf("NOT a BETWEEN: %v", err)
	}
}
