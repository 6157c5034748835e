package filter

import (
	"math"
	"unicode/utf16"
	"unicode/utf8"
)

// Evaluation follows Java's expression classes (filter/expression, 4.9.8):
//
//   - A missing property is null. Comparisons with null give null, and null is not a
//     match; "a = b" with both missing is TRUE (Java compares null == null first), and
//     "x IS NULL" is exactly that.
//   - AND/OR are three-valued and short-circuit left to right; NOT null is null.
//   - Before comparing, mixed types are converted the way ComparisonExpression#__compare
//     does: Integer→Long→Double upwards, and a String operand is parsed into the other
//     side's type (Integer.valueOf, Long.valueOf, Double.valueOf, Boolean.valueOf). A
//     parse failure is an error for the whole evaluation (a broker then does not deliver
//     the message), not just false for that comparison. Types that cannot meet (a number
//     and a Boolean) compare as "less", so = is false.
//   - >, >=, <, <= between two Strings (two properties) parse both as doubles.
//   - A bare property as a condition is TRUE only for a Boolean value, which message
//     properties never are: it is FALSE when present and null when missing.
//   - IN compares strings exactly.

func (n *constNode) eval(Properties) (value, error) { return n.v, nil }

func (n *propNode) eval(p Properties) (value, error) {
	if p == nil {
		return nullValue, nil
	}
	if s, ok := p.Property(n.name); ok {
		return strValue(s), nil
	}
	return nullValue, nil
}

func (n *negNode) eval(p Properties) (value, error) {
	v, err := n.x.eval(p)
	if err != nil {
		return v, err
	}
	switch v.k {
	case kInt:
		return intValue(-int32(v.i)), nil
	case kLong:
		return longValue(-v.i), nil
	case kDouble:
		return doubleValue(-v.f), nil
	}
	return nullValue, nil
}

func (n *notNode) eval(p Properties) (value, error) {
	v, err := n.x.eval(p)
	if err != nil || v.k == kNull {
		return v, err
	}
	return boolValue(!v.b), nil
}

func (n *boolCastNode) eval(p Properties) (value, error) {
	v, err := n.x.eval(p)
	if err != nil || v.k == kNull {
		return v, err
	}
	return boolValue(v.k == kBool && v.b), nil
}

func (n *inNode) eval(p Properties) (value, error) {
	v, err := n.x.eval(p)
	if err != nil || v.k != kString {
		return nullValue, err
	}
	_, in := n.set[v.s]
	return boolValue(in != n.not), nil
}

// eval folds the chain left to right as Java's left-deep tree evaluates it: each level
// returns its left side when that decides (AND with false, OR with true), else its right
// side when that decides, else null if either is null, else the operator's identity.
func (n *logicNode) eval(p Properties) (value, error) {
	l, err := n.ops[0].eval(p)
	if err != nil {
		return l, err
	}
	for _, o := range n.ops[1:] {
		if l.k != kNull && l.b != n.and {
			return l, nil // AND with false, OR with true
		}
		r, err := o.eval(p)
		if err != nil {
			return r, err
		}
		if r.k != kNull && r.b != n.and {
			return r, nil
		}
		if l.k == kNull || r.k == kNull {
			l = nullValue
		} else {
			l = boolValue(n.and)
		}
	}
	return l, nil
}

func (n *cmpNode) eval(p Properties) (value, error) {
	if n.op == opEq {
		return n.evalEqual(p)
	}
	l, err := n.l.eval(p)
	if err != nil || l.k == kNull {
		return nullValue, err
	}
	r, err := n.r.eval(p)
	if err != nil || r.k == kNull {
		return nullValue, err
	}
	if l.k == kString && r.k == kString {
		lf, lok := parseJavaDouble(l.s)
		rf, rok := parseJavaDouble(r.s)
		if !lok || !rok {
			return nullValue, &EvalError{Cause: runtimeErr("It's illegal to compare string by '>=', '>', '<', '<='. lv=" + l.s + ", rv=" + r.s)}
		}
		l, r = doubleValue(lf), doubleValue(rf)
	}
	c, err := compareValues(l, r)
	if err != nil {
		return nullValue, &EvalError{Cause: err.(*CompileError)}
	}
	switch n.op {
	case opGt:
		return boolValue(c > 0), nil
	case opGe:
		return boolValue(c >= 0), nil
	case opLt:
		return boolValue(c < 0), nil
	}
	return boolValue(c <= 0), nil
}

// evalEqual is Java's doCreateEqual#evaluate, null rules included.
func (n *cmpNode) evalEqual(p Properties) (value, error) {
	l, err := n.l.eval(p)
	if err != nil {
		return nullValue, err
	}
	r, err := n.r.eval(p)
	if err != nil {
		return nullValue, err
	}
	if (l.k == kNull) != (r.k == kNull) {
		if l.k == kNull {
			return nullValue, nil
		}
		return boolValue(false), nil
	}
	if l.k == kNull || javaEquals(l, r) {
		return boolValue(true), nil
	}
	c, err := compareValues(l, r)
	if err != nil {
		return nullValue, &EvalError{Cause: err.(*CompileError)}
	}
	return boolValue(c == 0), nil
}

// javaEquals is Object#equals of two non-null values: same class and value, doubles by
// their bits (NaN equals NaN, 0.0 does not equal -0.0).
func javaEquals(l, r value) bool {
	if l.k != r.k {
		return false
	}
	switch l.k {
	case kBool:
		return l.b == r.b
	case kInt, kLong:
		return l.i == r.i
	case kDouble:
		return doubleBits(l.f) == doubleBits(r.f)
	}
	return l.s == r.s
}

// doubleBits is Double#doubleToLongBits: every NaN is the canonical one.
func doubleBits(f float64) uint64 {
	if f != f {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

// compareValues is ComparisonExpression#__compare with string conversion on: it brings
// both values to one type and compares them; -1 when the types cannot meet. A failed
// string conversion is a *CompileError of class NumberFormatException.
func compareValues(l, r value) (int, error) {
	if l.k != r.k {
		var ok bool
		switch l.k {
		case kBool:
			if r.k == kString {
				return 0, booleanToStringCast
			}
			return -1, nil
		case kInt:
			switch r.k {
			case kLong:
				l.k = kLong
			case kDouble:
				l = doubleValue(float64(l.i))
			case kString:
				var i int32
				if i, ok = parseJavaInt(r.s); !ok {
					return 0, numberFormat(r.s)
				}
				r = intValue(i)
			default:
				return -1, nil
			}
		case kLong:
			switch r.k {
			case kInt:
				r.k = kLong
			case kDouble:
				l = doubleValue(float64(l.i))
			case kString:
				var i int64
				if i, ok = parseJavaLong(r.s); !ok {
					return 0, numberFormat(r.s)
				}
				r = longValue(i)
			default:
				return -1, nil
			}
		case kDouble:
			switch r.k {
			case kInt, kLong:
				r = doubleValue(float64(r.i))
			case kString:
				var f float64
				if f, ok = parseJavaDouble(r.s); !ok {
					return 0, doubleFormat(r.s)
				}
				r = doubleValue(f)
			default:
				return -1, nil
			}
		case kString:
			switch r.k {
			case kBool:
				l = boolValue(parseJavaBoolean(l.s))
			case kInt:
				var i int32
				if i, ok = parseJavaInt(l.s); !ok {
					return 0, numberFormat(l.s)
				}
				l = intValue(i)
			case kLong:
				var i int64
				if i, ok = parseJavaLong(l.s); !ok {
					return 0, numberFormat(l.s)
				}
				l = longValue(i)
			case kDouble:
				var f float64
				if f, ok = parseJavaDouble(l.s); !ok {
					return 0, doubleFormat(l.s)
				}
				l = doubleValue(f)
			default:
				return -1, nil
			}
		default:
			return -1, nil
		}
	}
	switch l.k {
	case kBool:
		return compareBool(l.b, r.b), nil
	case kInt, kLong:
		return compareInt(l.i, r.i), nil
	case kDouble:
		return compareDouble(l.f, r.f), nil
	case kString:
		return compareUTF16(l.s, r.s), nil
	}
	return -1, nil
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareDouble is Double#compare: -0.0 < 0.0, NaN above everything and equal to itself.
func compareDouble(a, b float64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	ab, bb := int64(doubleBits(a)), int64(doubleBits(b))
	return compareInt(ab, bb)
}

// compareUTF16 is the sign of String#compareTo, which orders by UTF-16 code units: the
// same as byte order except that a supplementary character (a surrogate pair, 0xD800..)
// sorts before U+E000..U+FFFF.
func compareUTF16(a, b string) int {
	if a == b {
		return 0
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ra, na := utf8.DecodeRuneInString(a[i:])
		rb, nb := utf8.DecodeRuneInString(b[j:])
		if ra != rb {
			return compareInt(int64(utf16Unit(ra)), int64(utf16Unit(rb)))*2 + compareInt(int64(ra), int64(rb))
		}
		i += na
		j += nb
	}
	return compareInt(int64(len(a)-i), int64(len(b)-j))
}

// utf16Unit is the first UTF-16 unit of r.
func utf16Unit(r rune) rune {
	if r >= 0x10000 {
		h, _ := utf16.EncodeRune(r)
		return h
	}
	return r
}
