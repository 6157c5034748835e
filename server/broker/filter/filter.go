package filter

// Properties gives a message's properties by name (Java: EvaluationContext). The broker
// reads them from the stored record; TAGS, KEYS and the other system properties are
// properties too.
type Properties interface {
	Property(name string) (value string, ok bool)
}

// Map is Properties over a map.
type Map map[string]string

// Property implements Properties.
func (m Map) Property(name string) (string, bool) {
	v, ok := m[name]
	return v, ok
}

// Result is the three-valued outcome of a selector.
type Result int8

const (
	Unknown Result = iota // SQL NULL: a property the selector needs is missing
	False
	True
)

func (r Result) String() string {
	switch r {
	case True:
		return "TRUE"
	case False:
		return "FALSE"
	}
	return "NULL"
}

// Expression is a compiled SQL92 selector. It is immutable and safe for concurrent use.
type Expression struct {
	src  string
	root node
}

// Compile parses a SQL92 selector with Java's grammar and checks (Java: SqlFilter#compile,
// SelectorParser#parse). The error is a *CompileError wrapping ErrInvalidSelector, whose
// Error() is the text Java puts in a CHECK_CLIENT_CONFIG remark; a selector over the
// limits of limits.go (MaxLength, MaxNesting, MaxTreeDepth) also wraps ErrTooComplex.
func Compile(selector string) (*Expression, error) {
	if len(selector) > MaxLength {
		return nil, tooLong(len(selector))
	}
	root, err := parse(selector)
	if err != nil {
		return nil, err
	}
	return &Expression{src: selector, root: root}, nil
}

// Source returns the selector as written.
func (e *Expression) Source() string { return e.src }

// String returns Java's toString of the compiled expression, e.g. "((a > 5) && (b == 'x'))".
func (e *Expression) String() string { return nodeString(e.root) }

// Evaluate runs the selector over p. The error, an *EvalError wrapping ErrEvaluation,
// stands for an exception Java's evaluation would throw (a property that does not parse
// as the number it is compared with).
func (e *Expression) Evaluate(p Properties) (Result, error) {
	v, err := e.root.eval(p)
	if err != nil {
		return Unknown, err
	}
	if v.k != kBool {
		return Unknown, nil
	}
	if v.b {
		return True, nil
	}
	return False, nil
}

// Match reports whether a message is delivered: only TRUE matches; FALSE, NULL and an
// evaluation error do not (Java: ExpressionMessageFilter#isMatchedByCommitLog).
func (e *Expression) Match(p Properties) bool {
	r, err := e.Evaluate(p)
	return err == nil && r == True
}
