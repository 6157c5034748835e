package filter

// Java's number parsing and printing, as far as the filter reaches them: property values
// are converted with Integer.valueOf, Long.valueOf, Double.valueOf and Boolean.valueOf,
// whose accepted syntax differs from strconv's (Java takes "+5" and non-ASCII digits for
// integers, trims and takes "1e3d" or "0x1p3" for doubles; Go takes "1_000", "inf").

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode"
)

const (
	maxDouble = math.MaxFloat64
	minDouble = 4.9e-324 // Double.MIN_VALUE, the smallest positive double
)

func isRangeErr(err error) bool { return errors.Is(err, strconv.ErrRange) }

// javaDigit is Character.digit(ch, 10) for one UTF-16 unit: any Unicode decimal digit.
func javaDigit(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	if r < 0x80 || r > 0xFFFF || !unicode.Is(unicode.Nd, r) {
		return -1
	}
	for _, rg := range unicode.Nd.R16 {
		if uint16(r) >= rg.Lo && uint16(r) <= rg.Hi {
			return int(uint16(r)-rg.Lo) % 10
		}
	}
	return -1
}

// parseJavaLong is Long.parseLong(s, 10) within [min, max].
func parseJavaLong(s string) (int64, bool) { return parseJavaInteger(s, math.MinInt64, math.MaxInt64) }

// parseJavaInt is Integer.parseInt(s, 10).
func parseJavaInt(s string) (int32, bool) {
	n, ok := parseJavaInteger(s, math.MinInt32, math.MaxInt32)
	return int32(n), ok
}

func parseJavaInteger(s string, minV, maxV int64) (int64, bool) {
	if s == "" {
		return 0, false
	}
	neg := false
	i := 0
	switch s[0] {
	case '-':
		neg = true
		i++
	case '+':
		i++
	}
	if i == len(s) {
		return 0, false // a lone sign
	}
	// Accumulate negatively, as Java does, so MIN fits.
	var n int64
	for _, r := range s[i:] {
		d := javaDigit(r)
		if d < 0 || n < minV/10 {
			return 0, false
		}
		n *= 10
		if n < minV+int64(d) {
			return 0, false
		}
		n -= int64(d)
	}
	if neg {
		return n, true
	}
	if n < -maxV {
		return 0, false
	}
	return -n, true
}

// parseJavaBoolean is Boolean.valueOf(String): "true" in any case.
func parseJavaBoolean(s string) bool { return len(s) == 4 && strings.EqualFold(s, "true") }

// javaTrim is String#trim: every char up to U+0020 goes from both ends.
func javaTrim(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}

// parseJavaDouble is Double.valueOf(String) (Java: FloatingDecimal#readJavaFormatString).
func parseJavaDouble(in string) (float64, bool) {
	s := javaTrim(in)
	if s == "" {
		return 0, false
	}
	i := 0
	neg := false
	switch s[0] {
	case '-':
		neg = true
		i++
	case '+':
		i++
	}
	if i == len(s) {
		return 0, false
	}
	switch s[i] {
	case 'N':
		if s[i:] == "NaN" {
			return math.NaN(), true
		}
		return 0, false
	case 'I':
		if s[i:] == "Infinity" {
			if neg {
				return math.Inf(-1), true
			}
			return math.Inf(1), true
		}
		return 0, false
	case '0':
		if i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') {
			return parseJavaHexDouble(s)
		}
	}
	var intPart, fracPart []byte
	seenDot, digits := false, 0
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits++
			if seenDot {
				fracPart = append(fracPart, c)
			} else {
				intPart = append(intPart, c)
			}
			continue
		}
		if c == '.' {
			if seenDot {
				return 0, false
			}
			seenDot = true
			continue
		}
		break
	}
	if digits == 0 {
		return 0, false
	}
	exp := "0"
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i >= len(s) {
			return 0, false
		}
		sign := ""
		switch s[i] {
		case '-':
			sign = "-"
			i++
		case '+':
			i++
		}
		at := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == at {
			return 0, false
		}
		e := strings.TrimLeft(s[at:i], "0")
		if len(e) > 6 {
			e = "999999" // far past any double; ParseFloat saturates to 0 or Inf
		}
		if e == "" {
			e = "0"
		}
		exp = sign + e
	}
	if i < len(s) && (i != len(s)-1 || !isFloatSuffix(s[i])) {
		return 0, false
	}
	if len(intPart) == 0 {
		intPart = []byte{'0'}
	}
	if len(fracPart) == 0 {
		fracPart = []byte{'0'}
	}
	num := string(intPart) + "." + string(fracPart) + "e" + exp
	f, err := strconv.ParseFloat(num, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

func isFloatSuffix(c byte) bool { return c == 'f' || c == 'F' || c == 'd' || c == 'D' }

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// parseJavaHexDouble accepts Java's hexadecimal form
// [+-]0x(H+.?|H*.H+)[pP][+-]?D+[fFdD]? (Java: FloatingDecimal#parseHexString).
func parseJavaHexDouble(s string) (float64, bool) {
	i := 0
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		i++
	}
	i += 2 // 0x
	at := i
	for i < len(s) && isHexDigit(s[i]) {
		i++
	}
	intDigits := i - at
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fa := i
		for i < len(s) && isHexDigit(s[i]) {
			i++
		}
		frac = s[fa:i]
	}
	if intDigits == 0 && frac == "" {
		return 0, false
	}
	if i >= len(s) || s[i] != 'p' && s[i] != 'P' {
		return 0, false
	}
	i++
	ea := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	da := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == da {
		return 0, false
	}
	if i < len(s) && (i != len(s)-1 || !isFloatSuffix(s[i])) {
		return 0, false
	}
	mant := s[at : at+intDigits]
	if mant == "" {
		mant = "0"
	}
	exp := s[ea:i]
	if i < len(s) {
		exp = s[ea : len(s)-1]
	}
	f, err := strconv.ParseFloat("0x"+mant+"."+frac+"0p"+exp, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// doubleFormat is the NumberFormatException Double.valueOf throws for s.
func doubleFormat(s string) *CompileError {
	t := javaTrim(s)
	if t == "" {
		return &CompileError{Class: classNumberFormat, Message: "empty String"}
	}
	i := 0
	if t[0] == '+' || t[0] == '-' {
		i++
	}
	if i < len(t) && t[i] != 'N' && t[i] != 'I' && !(t[i] == '0' && i+1 < len(t) && (t[i+1] == 'x' || t[i+1] == 'X')) {
		dots := 0
		for ; i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.'); i++ {
			if t[i] == '.' {
				if dots++; dots == 2 {
					return &CompileError{Class: classNumberFormat, Message: "multiple points"}
				}
			}
		}
	}
	return &CompileError{Class: classNumberFormat, Message: `For input string: "` + t + `"`}
}

// javaDoubleString is Double#toString: plain between 1e-3 and 1e7, otherwise
// "d.dddE[-]n"; always a digit after the point. Digits are the shortest that round-trip,
// at least two (as Java 19+; Java 17 prints a longer form for a few values).
func javaDoubleString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign = "-"
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±xx
	if !strings.Contains(e, ".") {
		// One digit is shortest: Java prints the two-digit decimal closest to the value
		// (Double.MIN_VALUE is 4.9E-324, not 5.0E-324).
		e = strconv.FormatFloat(f, 'e', 1, 64)
	}
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	if digits == "" {
		digits = "0"
	}
	if f >= 1e-3 && f < 1e7 {
		if exp >= 0 {
			for len(digits) < exp+2 {
				digits += "0"
			}
			return sign + digits[:exp+1] + "." + digits[exp+1:]
		}
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}
