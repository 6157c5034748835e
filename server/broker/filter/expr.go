package filter

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// kind is the Java class of a value. Message properties are always String; literals are
// Integer (when the value fits), Long, Double, String or Boolean; null is SQL's unknown.
type kind uint8

const (
	kNull kind = iota
	kBool
	kInt
	kLong
	kDouble
	kString
)

type value struct {
	k kind
	b bool
	i int64 // kInt (int32 range) and kLong
	f float64
	s string
}

func strValue(s string) value     { return value{k: kString, s: s} }
func boolValue(b bool) value      { return value{k: kBool, b: b} }
func intValue(i int32) value      { return value{k: kInt, i: int64(i)} }
func longValue(i int64) value     { return value{k: kLong, i: i} }
func doubleValue(f float64) value { return value{k: kDouble, f: f} }

var nullValue = value{}

// String is Java's toString of the value as ConstantExpression prints it.
func (v value) String() string {
	switch v.k {
	case kNull:
		return "NULL"
	case kBool:
		if v.b {
			return "TRUE"
		}
		return "FALSE"
	case kInt, kLong:
		return strconv.FormatInt(v.i, 10)
	case kDouble:
		return javaDoubleString(v.f)
	}
	return "'" + strings.ReplaceAll(v.s, "'", "''") + "'"
}

// formatArg is how String.format("%s") prints the value (BETWEEN's error text).
func (v value) formatArg() string {
	switch v.k {
	case kString:
		return v.s
	case kBool:
		return strconv.FormatBool(v.b)
	case kNull:
		return "null"
	}
	return v.String()
}

// node is a compiled expression (Java: the filter.expression classes).
type node interface {
	eval(p Properties) (value, error)
	// String is Java's toString of the expression, used in error texts.
	String() string
}

// constNode is a literal. boolean marks Java's BooleanConstantExpression (TRUE, FALSE,
// NULL), which is a BooleanExpression; strings and numbers are plain ConstantExpressions.
type constNode struct {
	v       value
	boolean bool
}

var (
	trueConst  = &constNode{v: boolValue(true), boolean: true}
	falseConst = &constNode{v: boolValue(false), boolean: true}
	nullConst  = &constNode{v: nullValue, boolean: true}
)

func (n *constNode) String() string { return n.v.String() }

// propNode reads a message property (Java: PropertyExpression).
type propNode struct{ name string }

func (n *propNode) String() string { return n.name }

// negNode is unary minus (Java: UnaryExpression#createNegate).
type negNode struct{ x node }

func (n *negNode) String() string { return "(- " + n.x.String() + ")" }

// notNode is NOT (Java: UnaryExpression#createNOT).
type notNode struct{ x node }

func (n *notNode) String() string { return "(NOT " + n.x.String() + ")" }

// boolCastNode is a property used as a condition (Java: createBooleanCast).
type boolCastNode struct{ x *propNode }

func (n *boolCastNode) String() string { return n.x.String() }

// inNode is IN / NOT IN over string literals (Java: createInExpression).
type inNode struct {
	x    *propNode
	list []string // as written
	set  map[string]struct{}
	not  bool
}

func (n *inNode) String() string {
	var b strings.Builder
	b.WriteString(n.x.String())
	if n.not {
		b.WriteString(" NOT IN ( ")
	} else {
		b.WriteString(" IN ( ")
	}
	for i, s := range javaIterationOrder(n.list) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	b.WriteString(" )")
	return b.String()
}

// javaIterationOrder is the order Java prints the IN list in: the list itself below five
// elements, else a java.util.HashSet built from it (buckets by the spread String.hashCode,
// insertion order within a bucket).
func javaIterationOrder(list []string) []string {
	if len(list) < 5 {
		return list
	}
	capacity := 1
	for want := max(int(float32(len(list))/0.75)+1, 16); capacity < want; {
		capacity <<= 1
	}
	buckets := make([][]string, capacity)
	seen := make(map[string]bool, len(list))
	for _, s := range list {
		if seen[s] {
			continue
		}
		seen[s] = true
		h := uint32(compat.JavaHashCode(s))
		h ^= h >> 16
		i := int(h & uint32(capacity-1))
		buckets[i] = append(buckets[i], s)
	}
	out := make([]string, 0, len(seen))
	for _, b := range buckets {
		out = append(out, b...)
	}
	return out
}

type cmpOp uint8

const (
	opEq cmpOp = iota
	opGt
	opGe
	opLt
	opLe
)

var cmpSymbols = [...]string{opEq: "==", opGt: ">", opGe: ">=", opLt: "<", opLe: "<="}

var cmpOps = map[tokenKind]cmpOp{tkGt: opGt, tkGe: opGe, tkLt: opLt, tkLe: opLe}

// cmpNode is a comparison (Java: ComparisonExpression); IS NULL is "== NULL".
type cmpNode struct {
	op   cmpOp
	l, r node
}

func (n *cmpNode) String() string {
	return "(" + n.l.String() + " " + cmpSymbols[n.op] + " " + n.r.String() + ")"
}

// logicNode is AND / OR (Java: LogicExpression).
type logicNode struct {
	and  bool
	l, r node
}

func (n *logicNode) String() string {
	sym := "||"
	if n.and {
		sym = "&&"
	}
	return "(" + n.l.String() + " " + sym + " " + n.r.String() + ")"
}

// isBoolean reports whether Java's expression class implements BooleanExpression.
func isBoolean(n node) bool {
	switch n := n.(type) {
	case *constNode:
		return n.boolean
	case *notNode, *boolCastNode, *inNode, *cmpNode, *logicNode:
		return true
	}
	return false
}

// createEqual is Java's ComparisonExpression#createEqual with its operand checks.
func createEqual(l, r node) node {
	checkEqualOperand(l)
	checkEqualOperand(r)
	if lc, ok := l.(*constNode); ok {
		if rc, ok := r.(*constNode); ok && lc.boolean && !rc.boolean {
			panic(runtimeErr("'" + l.String() + "' cannot be compared with '" + r.String() + "'"))
		}
	}
	return &cmpNode{op: opEq, l: l, r: r}
}

// checkEqualOperand refuses a NULL literal on either side of = or <>.
func checkEqualOperand(n node) {
	if c, ok := n.(*constNode); ok && c.v.k == kNull {
		panic(runtimeErr("'" + n.String() + "' cannot be compared."))
	}
}

// createOrdered builds >, >=, < or <=; only numeric literals and non-boolean
// expressions may be compared (Java: checkLessThanOperand).
func createOrdered(op cmpOp, l, r node) node {
	checkOrderedOperand(l)
	checkOrderedOperand(r)
	return &cmpNode{op: op, l: l, r: r}
}

func checkOrderedOperand(n node) {
	if c, ok := n.(*constNode); ok {
		if c.v.k == kInt || c.v.k == kLong || c.v.k == kDouble {
			return
		}
		panic(runtimeErr("Value '" + n.String() + "' cannot be compared."))
	}
	if isBoolean(n) {
		panic(runtimeErr("Value '" + n.String() + "' cannot be compared."))
	}
}

// createBetween is x >= low AND x <= high; literal bounds must not be NULL and must be in
// order (Java: ComparisonExpression#createBetween).
func createBetween(x, low, high node) node {
	lc, lok := low.(*constNode)
	hc, hok := high.(*constNode)
	if lok && hok {
		if lc.v.k == kNull || hc.v.k == kNull {
			panic(runtimeErr("Illegal values of between, values can not be null!"))
		}
		c, err := compareValues(hc.v, lc.v)
		if err != nil {
			ce := err.(*CompileError)
			if ce.Class == classNumberFormat {
				panic(runtimeErr(ce.Error()))
			}
			panic(ce)
		}
		if c < 0 {
			panic(runtimeErr(fmt.Sprintf("Illegal values of between, left value(%s) must less than or equal to right value(%s)",
				lc.v.formatArg(), hc.v.formatArg())))
		}
	}
	ge := createOrdered(opGe, x, low)
	return &logicNode{and: true, l: ge, r: createOrdered(opLe, x, high)}
}

func createIn(x node, list []string, not bool) node {
	pn, ok := x.(*propNode)
	if !ok {
		panic(runtimeErr("Expected a property for In expression, got: " + x.String()))
	}
	n := &inNode{x: pn, list: list, not: not, set: make(map[string]struct{}, len(list))}
	for _, s := range list {
		n.set[s] = struct{}{}
	}
	return n
}

// createDecimal is Java's ConstantExpression#createFromDecimal: a Long, narrowed to an
// Integer when it fits; Long.MIN_VALUE's digits do not fit a Long and fail.
func createDecimal(text string) node {
	if strings.HasSuffix(text, "l") || strings.HasSuffix(text, "L") {
		text = text[:len(text)-1]
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		panic(numberFormat(text))
	}
	if n >= -1<<31 && n < 1<<31 {
		return &constNode{v: intValue(int32(n))}
	}
	return &constNode{v: longValue(n)}
}

// createFloat is Java's ConstantExpression#createFloat. Its range check uses
// Double.MIN_VALUE, the smallest positive double, so 0.0 is refused.
func createFloat(text string) node {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && f == 0 && !isRangeErr(err) {
		panic(numberFormat(text))
	}
	if f > maxDouble {
		panic(runtimeErr(text + " is greater than 1.7976931348623157E308"))
	}
	if f < minDouble {
		panic(runtimeErr(text + " is less than 4.9E-324"))
	}
	return &constNode{v: doubleValue(f)}
}
