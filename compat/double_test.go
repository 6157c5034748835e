package compat

import (
	"math"
	"testing"
)

func TestJavaDoubleString_DoubleToString(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0.0", 1: "1.0", 0.5: "0.5", 1.0 / 3: "0.3333333333333333", 0.001: "0.001",
		0.0001: "1.0E-4", 1e7: "1.0E7", 12345678.9: "1.23456789E7", -2.5: "-2.5",
		math.Inf(1): "Infinity", math.NaN(): "NaN",
	} {
		if got := JavaDoubleString(v); got != want {
			t.Errorf("JavaDoubleString(%v) = %q, want %q", v, got, want)
		}
	}
}
