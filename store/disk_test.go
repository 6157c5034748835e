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
	if r := DiskUsedRatio(t.TempDir()); r <= 0 || r > 1 || math.Round(r*100) != r*100 {
		t.Errorf("ratio %v, want a whole percent in (0, 1]", r)
	}
}
