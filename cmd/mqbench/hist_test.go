package main

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

func TestHistogram_Quantile_KnownData(t *testing.T) {
	h := newHistogram()
	// 1..100000 µs, each once: the q-quantile is q*100000 µs.
	for v := int64(1); v <= 100000; v++ {
		h.record(v * 1000)
	}
	cases := []struct {
		q    float64
		want int64
	}{{0.5, 50_000_000}, {0.9, 90_000_000}, {0.99, 99_000_000}, {0.999, 99_900_000}, {1, 100_000_000}}
	for _, c := range cases {
		got := h.quantile(c.q)
		if rel := math.Abs(float64(got-c.want)) / float64(c.want); got < c.want || rel > 1.0/128 {
			t.Errorf("quantile(%v) = %d, want %d within +1/128 (rel %.4f)", c.q, got, c.want, rel)
		}
	}
	if h.count() != 100000 || h.min != 1000 || h.max != 100_000_000 {
		t.Fatalf("count %d min %d max %d", h.count(), h.min, h.max)
	}
	if m := h.mean(); math.Abs(m-50_000_500) > 1 {
		t.Fatalf("mean %v", m)
	}
}

func TestHistogram_Quantile_SmallValuesExact(t *testing.T) {
	h := newHistogram()
	for _, v := range []int64{5, 1, 3, 2, 4} {
		h.record(v)
	}
	for q, want := range map[float64]int64{0.2: 1, 0.4: 2, 0.5: 3, 0.6: 3, 0.8: 4, 1: 5} {
		if got := h.quantile(q); got != want {
			t.Errorf("quantile(%v) = %d, want %d", q, got, want)
		}
	}
	if got := newHistogram().quantile(0.5); got != 0 {
		t.Fatalf("empty histogram quantile = %d", got)
	}
}

// TestHistogram_Quantile_Random compares with the exact order statistic of random
// log-distributed latencies.
func TestHistogram_Quantile_Random(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))
	h := newHistogram()
	vals := make([]int64, 20000)
	for i := range vals {
		vals[i] = int64(math.Exp(rng.Float64() * 25)) // 1 ns .. ~72 s
		h.record(vals[i])
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		exact := vals[int(math.Ceil(q*float64(len(vals))))-1]
		got := h.quantile(q)
		if got < exact || float64(got-exact) > float64(exact)/128+1 {
			t.Errorf("seed %d: quantile(%v) = %d, exact %d", seed, q, got, exact)
		}
	}
}

func TestHistogram_Bounds_CoverEveryIndex(t *testing.T) {
	for i := range histBuckets {
		lo, hi := histBounds(i)
		if histIndex(lo) != i || histIndex(hi) != i {
			t.Fatalf("bucket %d: bounds [%d,%d] map to %d and %d", i, lo, hi, histIndex(lo), histIndex(hi))
		}
		if i > 0 {
			_, prevHi := histBounds(i - 1)
			if prevHi+1 != lo {
				t.Fatalf("gap before bucket %d: previous ends %d, this starts %d", i, prevHi, lo)
			}
		}
		if lo >= 1<<histBits && float64(hi-lo+1)/float64(lo) > 1.0/128 {
			t.Fatalf("bucket %d [%d,%d] wider than 1/128", i, lo, hi)
		}
	}
	if histIndex(math.MaxInt64) != histBuckets-1 {
		t.Fatalf("max int64 maps to %d of %d", histIndex(math.MaxInt64), histBuckets)
	}
}

func TestHistogram_Merge_EqualsOneHistogram(t *testing.T) {
	a, b, all := newHistogram(), newHistogram(), newHistogram()
	for v := int64(0); v < 5000; v++ {
		x := v*v + 7
		if v%3 == 0 {
			a.record(x)
		} else {
			b.record(x)
		}
		all.record(x)
	}
	a.merge(b)
	for _, q := range []float64{0.1, 0.5, 0.99, 1} {
		if a.quantile(q) != all.quantile(q) {
			t.Fatalf("quantile(%v): merged %d, single %d", q, a.quantile(q), all.quantile(q))
		}
	}
	if a.count() != all.count() || a.min != all.min || a.max != all.max {
		t.Fatalf("merged count/min/max %d/%d/%d, single %d/%d/%d", a.count(), a.min, a.max, all.count(), all.min, all.max)
	}
}
