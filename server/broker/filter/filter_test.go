package filter

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func mustCompile(t testing.TB, s string) *Expression {
	t.Helper()
	e, err := Compile(s)
	if err != nil {
		t.Fatalf("Compile(%q): %v", s, err)
	}
	return e
}

func TestExpression_Evaluate_Semantics(t *testing.T) {
	cases := []struct {
		expr  string
		props Map
		want  Result
		err   bool
	}{
		{"a > 5 AND b = 'x'", Map{"a": "6", "b": "x"}, True, false},
		{"a > 5 AND b = 'x'", Map{"a": "6", "b": "y"}, False, false},
		{"a > 5 AND b = 'x'", Map{"b": "x"}, Unknown, false},
		{"a > 5 AND b = 'x'", Map{"a": "6.5", "b": "x"}, Unknown, true}, // Integer.valueOf("6.5") throws
		{"a > 5.0", Map{"a": "6.5"}, True, false},
		{"a = 5", Map{"a": "+5"}, True, false},
		{"a = 5", Map{"a": " 5"}, Unknown, true},
		{"a = 5.0", Map{"a": " 5 "}, True, false}, // Double.valueOf trims
		{"a = 3000000000", Map{"a": "3000000000"}, True, false},
		{"a IS NULL", Map{}, True, false},
		{"a IS NULL", Map{"a": ""}, False, false},
		{"a IS NOT NULL", Map{"a": ""}, True, false},
		{"a = b", Map{}, True, false},
		{"a <> b", Map{}, False, false},
		{"a = b", Map{"a": "x"}, False, false},
		{"a = b", Map{"b": "x"}, Unknown, false},
		{"a > b", Map{"a": "10", "b": "9.5"}, True, false},
		{"a > b", Map{"a": "x", "b": "9"}, Unknown, true},
		{"a BETWEEN 3 AND 7", Map{"a": "7"}, True, false},
		{"a NOT BETWEEN 3 AND 7", Map{"a": "8"}, True, false},
		{"TAGS IN ('TagA', 'TagB')", Map{"TAGS": "TagB"}, True, false},
		{"TAGS NOT IN ('TagA', 'TagB')", Map{"TAGS": "TagB"}, False, false},
		{"TAGS NOT IN ('TagA')", Map{}, Unknown, false},
		{"flag = TRUE", Map{"flag": "TRUE"}, True, false},
		{"flag = TRUE", Map{"flag": "yes"}, False, false},
		{"flag", Map{"flag": "true"}, False, false},
		{"NOT flag", Map{}, Unknown, false},
		{"a > 5 OR b = 'x'", Map{"b": "x"}, True, false},
		{"a > 5 OR b = 'x'", Map{"a": "x", "b": "x"}, Unknown, true},
		{"b = 'x' OR a > 5", Map{"a": "x", "b": "x"}, True, false},
		{"a = 'it''s'", Map{"a": "it's"}, True, false},
		{"a = 5", Map{"a": "\u0665"}, True, false}, // Arabic-Indic 5: Character.digit accepts it
		{"a = 5.0", Map{"a": "\u0665"}, Unknown, true},
		{"a > -5", Map{"a": "-4"}, True, false},
		{"-a > 5", Map{"a": "-6"}, Unknown, false}, // negating a String gives null
	}
	for _, c := range cases {
		got, err := mustCompile(t, c.expr).Evaluate(c.props)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s over %v = %v, %v; want %v (error %v)", c.expr, c.props, got, err, c.want, c.err)
		}
		if err != nil && !errors.Is(err, ErrEvaluation) {
			t.Errorf("%s: error %v does not wrap ErrEvaluation", c.expr, err)
		}
	}
}

func TestCompile_Errors(t *testing.T) {
	cases := map[string]string{
		"a > 0.0":                  "java.lang.RuntimeException: 0.0 is less than 4.9E-324",
		"a = NULL":                 "java.lang.RuntimeException: 'NULL' cannot be compared.",
		"a > 'x'":                  "java.lang.RuntimeException: Value ''x'' cannot be compared.",
		"TRUE = 'x'":               "java.lang.RuntimeException: 'TRUE' cannot be compared with ''x''",
		"5 IN ('5')":               "java.lang.RuntimeException: Expected a property for In expression, got: 5",
		"NOT 5":                    "org.apache.rocketmq.filter.parser.ParseException: Expression will not result in a boolean value: 5",
		"a = 1 #":                  `org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 1, column 8.  Encountered: <EOF> after : ""`,
		"a # 1":                    `org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 1, column 3.  Encountered: "#" (35), after : ""`,
		"a = 'x":                   `org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 1, column 7.  Encountered: <EOF> after : "\'x"`,
		"a IS x":                   "org.apache.rocketmq.filter.parser.ParseException: Encountered \" <ID> \"x \"\" at line 1, column 6.\nWas expecting:\n    \"NOT\" ...\n    ",
		"a = -9223372036854775808": `java.lang.NumberFormatException: For input string: "9223372036854775808"`,
	}
	for expr, want := range cases {
		_, err := Compile(expr)
		if err == nil || err.Error() != want {
			t.Errorf("Compile(%q) = %v\nwant %s", expr, err, want)
			continue
		}
		var ce *CompileError
		if !errors.As(err, &ce) || !errors.Is(err, ErrInvalidSelector) {
			t.Errorf("Compile(%q): %T does not wrap ErrInvalidSelector", expr, err)
		}
	}
}

func TestCompile_TrailingTextIgnoredAsJava(t *testing.T) {
	for expr, str := range map[string]string{
		"a = 1 b":        "(a == 1)",
		"a = 007":        "(a == 0)",
		"a = 1 )":        "(a == 1)",
		"a = 1 --c":      "(a == 1)",
		"a = 12L5":       "(a == 12)",
		"a > 5 /* c */ ": "(a > 5)",
	} {
		if got := mustCompile(t, expr).String(); got != str {
			t.Errorf("Compile(%q).String() = %q, want %q", expr, got, str)
		}
	}
}

func TestExpression_String_JavaToString(t *testing.T) {
	for expr, str := range map[string]string{
		"a > 5 AND b = 'x'":             "((a > 5) && (b == 'x'))",
		"a BETWEEN 1 AND 2.5":           "((a >= 1) && (a <= 2.5))",
		"a NOT BETWEEN 1 AND 2":         "((a < 1) || (a > 2))",
		"a IS NOT NULL OR b <> 'x'":     "((NOT (a == NULL)) || (NOT (b == 'x')))",
		"a IN ('x', 'y')":               "a IN ( x, y )",
		"a IN ('a','b','c','d','e')":    "a IN ( a, b, c, d, e )",
		"a > 1e10 AND a < 0.001":        "((a > 1.0E10) && (a < 0.001))",
		"a > 2147483648 OR a > -5 OR a": "(((a > 2147483648) || (a > (- 5))) || a)",
	} {
		if got := mustCompile(t, expr).String(); got != str {
			t.Errorf("Compile(%q).String() = %q, want %q", expr, got, str)
		}
	}
}

func TestJavaDoubleString(t *testing.T) {
	for f, want := range map[float64]string{
		1: "1.0", 100: "100.0", 0.001: "0.001", 1e7: "1.0E7", 1.5e-5: "1.5E-5", 4.9e-324: "4.9E-324",
		1e23: "1.0E23", 123456.789: "123456.789", 0.5: "0.5",
	} {
		if got := javaDoubleString(f); got != want {
			t.Errorf("javaDoubleString(%v) = %s, want %s", f, got, want)
		}
	}
}

func TestParseJavaDouble_Forms(t *testing.T) {
	ok := map[string]float64{"1": 1, " 1.5 ": 1.5, "1e3": 1000, "1.": 1, ".5": .5, "+2": 2, "-2": -2, "1d": 1, "1F": 1,
		"0x1p3": 8, "0x1.8p1": 3, "1e-400": 0}
	for s, want := range ok {
		if got, good := parseJavaDouble(s); !good || got != want {
			t.Errorf("parseJavaDouble(%q) = %v, %v; want %v", s, got, good, want)
		}
	}
	for _, s := range []string{"", "abc", "1_000", "inf", "infinity", "1e", "1e+", "1..2", "0x1", "1dd", "NaNx"} {
		if _, good := parseJavaDouble(s); good {
			t.Errorf("parseJavaDouble(%q) accepted", s)
		}
	}
}

// FuzzParse: Compile never panics; whatever compiles evaluates deterministically, and its
// toString (Java's printed form) is stable. Seeds name the path they hit.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"a > 5 AND b = 'x'",                    // the common case
		"a IS NOT NULL OR b IN ('x', 'y')",     // IS NOT NULL lookahead, IN list
		"a NOT BETWEEN 1 AND 2 OR NOT (c)",     // NOT BETWEEN lookahead, boolean cast
		"+ (a = 1) = - 5",                      // the unbounded "+" lookahead
		"a = 'it''s' -- c\n AND d <> 1.5e3",    // string escape, line comment, float
		"a BETWEEN 7 AND 3",                    // compile-time check
		"a = 1 #",                              // lexical error at the end
		"'open",                                // unterminated string
		"a = + (b BETWEEN 3 AND",               // syntax error after a lookahead (rescan)
		"a IN ('a','b','c','d','e','f') > 1e9", // HashSet order in an error text
		"",
		// the hostile selectors of issues 13 and 14 (limits.go)
		hostileParens(40_000),                                               // issue 13 had 1M levels (2 MB, too big a seed): over MaxLength
		hostileParens(MaxNesting + 1),                                       // one level over MaxNesting
		hostileParens(MaxNesting),                                           // the deepest nesting accepted
		strings.Repeat("(", 70_000),                                         // unclosed, over MaxLength
		strings.Repeat("(", MaxNesting+1),                                   // unclosed, over MaxNesting
		strings.Repeat("NOT ", 1_000) + "a",                                 // deep NOT
		strings.Repeat("- ", 1_000) + "5 < a",                               // deep unary minus
		strings.Repeat("+ ", 1_000) + "5 < a",                               // deep "+": the unbounded lookahead
		strings.Repeat("+(", 100) + "a" + strings.Repeat(")", 100) + " > 1", // the lookahead's memo
		"a" + strings.Repeat(" = a", MaxTreeDepth),                          // a left-deep chain over MaxTreeDepth
		"a = 1" + strings.Repeat(" OR a = 1", 1000),                         // a long flat OR chain
	} {
		f.Add(s)
	}
	smallStack(f) // a recursion the limits do not bound crashes here, not at 1 GiB
	props := []Map{{}, {"a": "6", "b": "x", "c": "true", "TAGS": "TagA"}, {"a": "5.5", "b": "", "d": "NaN"}}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Compile(s)
		if err != nil {
			var ce *CompileError
			if !errors.As(err, &ce) || ce.Message == "" {
				t.Fatalf("Compile(%q): bad error %#v", s, err)
			}
			return
		}
		str := e.String()
		for _, p := range props {
			r1, err1 := e.Evaluate(p)
			r2, err2 := e.Evaluate(p)
			if r1 != r2 || (err1 == nil) != (err2 == nil) {
				t.Fatalf("%q over %v: %v/%v then %v/%v", s, p, r1, err1, r2, err2)
			}
		}
		if e.String() != str {
			t.Fatalf("%q: String changed", s)
		}
	})
}

// TestCompile_RandomNeverPanics runs the corpus generator with a fresh seed (printed).
func TestCompile_RandomNeverPanics(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := 0; i < 2000; i++ {
		s := genExpr(r, 1+r.IntN(4))
		if r.IntN(2) == 0 {
			s = mutate(r, s)
		}
		if e, err := Compile(s); err == nil {
			e.Evaluate(Map{"a": "5", "b": "x"})
		} else if !strings.Contains(err.Error(), ": ") {
			t.Fatalf("Compile(%q): %v", s, err)
		}
	}
}

func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Compile("(a > 5 AND b = 'x') OR TAGS IN ('TagA', 'TagB') OR c IS NULL"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExpression_Evaluate(b *testing.B) {
	e := mustCompile(b, "(a > 5 AND b = 'x') OR TAGS IN ('TagA', 'TagB') OR c IS NULL")
	p := Map{"a": "7", "b": "y", "TAGS": "TagC", "c": "1"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if r, _ := e.Evaluate(p); r != False {
			b.Fatal(r)
		}
	}
}

func TestCompareUTF16_JavaOrder(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"a", "b", -1}, {"b", "a", 1}, {"ab", "a", 1}, {"", "a", -1}, {"x", "x", 0},
		{"\U0001F600", "\uFFFD", -1}, // a surrogate pair sorts before U+FFFD in UTF-16
		{"\uE000", "\U00010000", 1},
		{"\U0001F600", "\U0001F601", -1},
	}
	for _, c := range cases {
		got := compareUTF16(c.a, c.b)
		if (got > 0) != (c.want > 0) || (got < 0) != (c.want < 0) {
			t.Errorf("compareUTF16(%q, %q) = %d, want sign of %d", c.a, c.b, got, c.want)
		}
	}
}
