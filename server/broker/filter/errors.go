package filter

import (
	"errors"
	"strconv"
	"unicode/utf16"
)

// ErrInvalidSelector is returned (wrapped in a *CompileError) when a SQL92 selector does
// not compile (Java: MQFilterException "Invalid MessageSelector. ").
var ErrInvalidSelector = errors.New("filter: invalid message selector")

// ErrEvaluation is returned (wrapped in an *EvalError) when evaluating a selector fails at
// run time, e.g. comparing the property '5.5' with the integer 5 (Java throws
// NumberFormatException from Integer.valueOf). A broker treats it as "no match".
var ErrEvaluation = errors.New("filter: evaluation failed")

// Java exception classes named in error texts: a broker returns Java's cause.toString()
// as the remark of CHECK_CLIENT_CONFIG, and scripts read it.
const (
	classParseException = "org.apache.rocketmq.filter.parser.ParseException"
	classTokenMgrError  = "org.apache.rocketmq.filter.parser.TokenMgrError"
	classRuntime        = "java.lang.RuntimeException"
	classNumberFormat   = "java.lang.NumberFormatException"
	classClassCast      = "java.lang.ClassCastException"
)

// CompileError describes why a selector does not compile, in Java's words: Class is the
// Java exception class, Message its message. A selector over one of the limits of
// limits.go has no Class (Java would say java.lang.StackOverflowError, or nothing) and a
// Message of ours.
type CompileError struct {
	Class   string
	Message string
	limit   bool // over MaxLength, MaxNesting or MaxTreeDepth
}

// Error returns what Java's MQFilterException#getMessage returns: the cause's toString.
func (e *CompileError) Error() string {
	if e.Class == "" {
		return e.Message
	}
	return e.Class + ": " + e.Message
}

// Unwrap makes errors.Is(err, ErrInvalidSelector) hold, and errors.Is(err, ErrTooComplex)
// for a selector over a limit.
func (e *CompileError) Unwrap() []error {
	if e.limit {
		return []error{ErrInvalidSelector, ErrTooComplex}
	}
	return []error{ErrInvalidSelector}
}

func runtimeErr(msg string) *CompileError { return &CompileError{Class: classRuntime, Message: msg} }

// numberFormat is Java's NumberFormatException.forInputString.
func numberFormat(s string) *CompileError {
	return &CompileError{Class: classNumberFormat, Message: `For input string: "` + s + `"`}
}

// booleanToStringCast is the ClassCastException Java's ComparisonExpression#__compare
// throws when a Boolean meets a String (it casts the Boolean to String), as Java 17 words it.
var booleanToStringCast = &CompileError{Class: classClassCast,
	Message: "class java.lang.Boolean cannot be cast to class java.lang.String (java.lang.Boolean and java.lang.String are in module java.base of loader 'bootstrap')"}

// EvalError is an evaluation failure; Cause says what Java would have thrown.
type EvalError struct{ Cause *CompileError }

func (e *EvalError) Error() string { return "filter: evaluation failed: " + e.Cause.Error() }

// Unwrap makes errors.Is(err, ErrEvaluation) hold.
func (e *EvalError) Unwrap() error { return ErrEvaluation }

func utf16Of(s string) []uint16 { return utf16.Encode([]rune(s)) }

func stringOf(u []uint16) string { return string(utf16.Decode(u)) }

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }
