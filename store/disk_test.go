package store

import (
	"math"
	"path/filepath"
	"testing"
)

func TestDiskUsedRatio_JavaWholePercent(t *testing.T) {
	if r := DiskUsedRatio(filepath.Join(t.TempDir(), "missing")); r != -1 {
		t.Errorf("missing path: %v, want -1", r)
	}
	if r := DiskUsedRatio(t.TempDir()); r <= 0 || r > 1 || math.Round(r*100)/100 != r {
		// r is Java's long/100.0: 0.14*100 is 14.000000000000002, so compare after the division
		t.Errorf("ratio %v, want a whole percent in (0, 1]", r)
	}
}
