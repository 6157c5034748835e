package main

import (
	"math"
	"math/bits"
)

// histogram is a log-linear latency histogram in the HDR style: values below 2^histBits
// are counted exactly, larger values in 2^(histBits-1) sub-buckets per power of two, so
// every recorded value is known to within 1/128 (0.8 %) of itself. It is not safe for
// concurrent use: each connection's reader owns one and they are merged at the end.
//
// Bucket index of v (e = bit length of v minus histBits, m = v >> e, 128 <= m < 256):
//
//	v <  256: index v                  (exact)
//	v >= 256: index e*128 + m          (bucket [m<<e, (m+1)<<e))
type histogram struct {
	counts   []uint64
	n        uint64
	sum      float64
	min, max int64
}

const (
	histBits    = 8
	histHalf    = 1 << (histBits - 1)
	histBuckets = (63-histBits)*histHalf + 1<<histBits // the last bucket holds MaxInt64
)

func newHistogram() *histogram {
	return &histogram{counts: make([]uint64, histBuckets), min: math.MaxInt64}
}

func histIndex(v int64) int {
	if v < 1<<histBits {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - histBits
	return e*histHalf + int(uint64(v)>>e)
}

// histBounds returns the smallest and largest value that fall in bucket i.
func histBounds(i int) (lo, hi int64) {
	if i < 1<<histBits {
		return int64(i), int64(i)
	}
	e := i/histHalf - 1
	m := int64(i - e*histHalf)
	return m << e, (m+1)<<e - 1
}

// record adds one value; negative values count as 0.
func (h *histogram) record(v int64) {
	if v < 0 {
		v = 0
	}
	h.counts[histIndex(v)]++
	h.n++
	h.sum += float64(v)
	if v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
}

// merge adds o's counts to h.
func (h *histogram) merge(o *histogram) {
	if o == nil || o.n == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
}

func (h *histogram) count() uint64 { return h.n }

func (h *histogram) mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n)
}

// quantile returns the value at quantile q (0 < q <= 1): the highest value of the
// bucket holding the ceil(q*n)-th smallest value, clamped to the exact min and max, as
// HdrHistogram's getValueAtPercentile does. 0 when empty.
func (h *histogram) quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	rank = min(rank, h.n)
	var cum uint64
	for i, c := range h.counts {
		cum += c
		if cum >= rank {
			_, hi := histBounds(i)
			return min(max(hi, h.min), h.max)
		}
	}
	return h.max
}
