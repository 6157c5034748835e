package compat

import (
	"math"
	"strconv"
	"strings"
)

// JavaDoubleString formats v as Java's Double.toString (String.valueOf(double)): the
// shortest digits that read back as v, at least one fraction digit, and computerized
// scientific notation outside [1e-3, 1e7). GET_BROKER_RUNTIME_INFO's figures are written
// this way ("0.0", "244.40909090909092", "1.0E-4").
func JavaDoubleString(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(v); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(v, 'e', -1, 64) // 1.2345e+07
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
