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
	// appendTo appends Java's toString of the expression (error texts, Expression.String).
	appendTo(b []byte) []byte
	// depth is the height of the tree the node roots, 1 for a leaf; eval and appendTo
	// recurse that deep. The constructors keep it within MaxTreeDepth.
	depth() int
}

// nodeString is Java's toString of n.
func nodeString(n node) string { return string(n.appendTo(nil)) }

// checkDepth refuses a tree deeper than MaxTreeDepth (limits.go).
func checkDepth(d int) int {
	if d > MaxTreeDepth {
		panic(treeTooDeep)
	}
	return d
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

func (n *constNode) appendTo(b []byte) []byte { return append(b, n.v.String()...) }
func (n *constNode) depth() int               { return 1 }

// propNode reads a message property (Java: PropertyExpression).
type propNode struct{ name string }

func (n *propNode) appendTo(b []byte) []byte { return append(b, n.name...) }
func (n *propNode) depth() int               { return 1 }

// negNode is unary minus (Java: UnaryExpression#createNegate).
type negNode struct {
	x node
	d int
}

func newNeg(x node) *negNode { return &negNode{x: x, d: checkDepth(1 + x.depth())} }

func (n *negNode) appendTo(b []byte) []byte { return append(n.x.appendTo(append(b, "(- "...)), ')') }
func (n *negNode) depth() int               { return n.d }

// notNode is NOT (Java: UnaryExpression#createNOT).
type notNode struct {
	x node
	d int
}

func newNot(x node) *notNode { return &notNode{x: x, d: checkDepth(1 + x.depth())} }

func (n *notNode) appendTo(b []byte) []byte { return append(n.x.appendTo(append(b, "(NOT "...)), ')') }
func (n *notNode) depth() int               { return n.d }

// boolCastNode is a property used as a condition (Java: createBooleanCast).
type boolCastNode struct{ x *propNode }

func (n *boolCastNode) appendTo(b []byte) []byte { return n.x.appendTo(b) }
func (n *boolCastNode) depth() int               { return 2 }

// inNode is IN / NOT IN over string literals (Java: createInExpression).
type inNode struct {
	x    *propNode
	list []string // as written
	set  map[string]struct{}
	not  bool
}

func (n *inNode) appendTo(b []byte) []byte {
	b = n.x.appendTo(b)
	if n.not {
		b = append(b, " NOT IN ( "...)
	} else {
		b = append(b, " IN ( "...)
	}
	for i, s := range javaIterationOrder(n.list) {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, s...)
	}
	return append(b, " )"...)
}

func (n *inNode) depth() int { return 2 }

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
	d    int
}

func newCmp(op cmpOp, l, r node) *cmpNode {
	return &cmpNode{op: op, l: l, r: r, d: checkDepth(1 + max(l.depth(), r.depth()))}
}

func (n *cmpNode) appendTo(b []byte) []byte {
	b = n.l.appendTo(append(b, '('))
	b = append(append(append(b, ' '), cmpSymbols[n.op]...), ' ')
	return append(n.r.appendTo(b), ')')
}

func (n *cmpNode) depth() int { return n.d }

// logicNode is a chain of ANDs or of ORs (Java: LogicExpression). Java builds "a OR b OR
// c" left-deep, ((a OR b) OR c), one level per operand; the chain is kept flat here so a
// long one costs no recursion, and is printed and evaluated as Java's left-deep tree.
type logicNode struct {
	and bool
	ops []node // two or more, left to right
	d   int
}

// newLogic is l AND r (or l OR r). When l is already a chain of the same operator it
// grows in place: the parser hands over the only reference to l.
func newLogic(and bool, l, r node) *logicNode {
	if ln, ok := l.(*logicNode); ok && ln.and == and {
		ln.ops = append(ln.ops, r)
		ln.d = checkDepth(max(ln.d, 1+r.depth()))
		return ln
	}
	return &logicNode{and: and, ops: []node{l, r}, d: checkDepth(1 + max(l.depth(), r.depth()))}
}

func (n *logicNode) appendTo(b []byte) []byte {
	sym := " || "
	if n.and {
		sym = " && "
	}
	for range len(n.ops) - 1 {
		b = append(b, '(')
	}
	b = n.ops[0].appendTo(b)
	for _, o := range n.ops[1:] {
		b = append(o.appendTo(append(b, sym...)), ')')
	}
	return b
}

func (n *logicNode) depth() int { return n.d }

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
			panic(runtimeErr("'" + nodeString(l) + "' cannot be compared with '" + nodeString(r) + "'"))
		}
	}
	return newCmp(opEq, l, r)
}

// checkEqualOperand refuses a NULL literal on either side of = or <>.
func checkEqualOperand(n node) {
	if c, ok := n.(*constNode); ok && c.v.k == kNull {
		panic(runtimeErr("'" + nodeString(n) + "' cannot be compared."))
	}
}

// createOrdered builds >, >=, < or <=; only numeric literals and non-boolean
// expressions may be compared (Java: checkLessThanOperand).
func createOrdered(op cmpOp, l, r node) node {
	checkOrderedOperand(l)
	checkOrderedOperand(r)
	return newCmp(op, l, r)
}

func checkOrderedOperand(n node) {
	if c, ok := n.(*constNode); ok {
		if c.v.k == kInt || c.v.k == kLong || c.v.k == kDouble {
			return
		}
		panic(runtimeErr("Value '" + nodeString(n) + "' cannot be compared."))
	}
	if isBoolean(n) {
		panic(runtimeErr("Value '" + nodeString(n) + "' cannot be compared."))
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
	return newLogic(true, ge, createOrdered(opLe, x, high))
}

func createIn(x node, list []string, not bool) node {
	pn, ok := x.(*propNode)
	if !ok {
		panic(runtimeErr("Expected a property for In expression, got: " + nodeString(x)))
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
