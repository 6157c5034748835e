package filter

// Limits on what one selector may cost. Java has none: its parser and evaluator recurse
// once per nesting level and stop at the thread stack, where a StackOverflowError (caught
// by SelectorParser#parse) fails the compile. Go grows a goroutine stack up to 1 GiB and
// then kills the process, so without a bound one request of 1,000,000 "(" crashed the
// broker, and 1,000,000 NOTs cost it hundreds of MiB of stack. Every recursion here is
// bounded by one of these constants, checked before recursing; a selector that needs more
// fails to compile with a *CompileError wrapping ErrTooComplex.
//
// Java 4.9.8 on a 1 MiB thread stack copes with about 1,000 nested parentheses (fewer
// when they are left unclosed) and fails at a few thousand, so a selector Java accepts in
// practice is far inside these bounds, except one over 64 KiB or a chain of hundreds of
// =, <> or IS NULL (see MaxTreeDepth). conformance/UNSUPPORTED.md lists the difference.

import (
	"errors"
	"strconv"
)

const (
	// MaxLength is the longest selector accepted, in bytes of its UTF-8 text: 64 KiB,
	// enough for an IN list of several thousand tags. Checked before lexing.
	MaxLength = 64 << 10

	// MaxNesting is how deep parentheses and the unary operators NOT, - and + may nest:
	// 256 levels ("((((a))))" is 4, "NOT - a" is 2). The parser's recursion, and that of
	// JavaCC's syntactic lookahead it replays, is proportional to this.
	MaxNesting = 256

	// MaxTreeDepth bounds the depth of the compiled expression, which evaluation and
	// toString recurse over: 512 nodes, under 512 KiB of stack to evaluate. Within
	// MaxNesting it is reached only by chaining =, <> or IS [NOT] NULL hundreds of times
	// ("a = b = c = ..."), which Java builds left-deep; chains of AND and OR are kept
	// flat and count once however long.
	MaxTreeDepth = 2 * MaxNesting
)

// ErrTooComplex is returned (wrapped in a *CompileError, with ErrInvalidSelector) when a
// selector is longer than MaxLength, nests deeper than MaxNesting or compiles to a tree
// deeper than MaxTreeDepth. Java would either accept it or fail with
// java.lang.StackOverflowError; the error text is ours.
var ErrTooComplex = errors.New("filter: selector too long or too deeply nested")

func tooLong(n int) *CompileError {
	return &CompileError{limit: true, Message: "SQL92 selector longer than " + strconv.Itoa(MaxLength) +
		" bytes (" + strconv.Itoa(n) + ")"}
}

func tooDeep(line, col int) *CompileError {
	return &CompileError{limit: true, Message: "SQL92 selector nested deeper than " + strconv.Itoa(MaxNesting) +
		" levels of parentheses, NOT, - and + (at line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col) + ")"}
}

var treeTooDeep = &CompileError{limit: true, Message: "SQL92 selector compiles to an expression deeper than " +
	strconv.Itoa(MaxTreeDepth) + " levels (a chain of =, <> or IS NULL that long)"}
