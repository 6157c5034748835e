package consumerfilter

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// bloomFilter is Java's filter/util/BloomFilter, as far as generating bit positions.
type bloomFilter struct{ k, m int32 }

// newBloomFilter sizes the filter for errorRate percent false positives over n keys
// (Java: BloomFilter#createByFn).
func newBloomFilter(errorRate, n int32) (bloomFilter, error) {
	if errorRate < 1 || errorRate >= 100 {
		return bloomFilter{}, errors.New("maxErrorRateOfBloomFilter must be in [1, 100)")
	}
	if n < 1 {
		return bloomFilter{}, errors.New("expectConsumerNumUseFilter must be positive")
	}
	rate := float64(errorRate) / 100
	k := int32(math.Ceil(math.Log(rate) / math.Log(0.5)))
	bitsNeeded := math.Ceil(float64(n) * (math.Log(1/rate) / math.Log(2)) * (math.Log(math.E) / math.Log(2)))
	m := int32(8 * math.Ceil(float64(int32(bitsNeeded))/8))
	return bloomFilter{k: k, m: m}, nil
}

// generate returns the bits of key (Java: calcBitPositions, "Less Hashing, Same
// Performance" over the first long of murmur3_128 of the UTF-8 bytes).
func (b bloomFilter) generate(key string) *BloomFilterData {
	h := murmur3x64First([]byte(key))
	h1, h2 := int32(h), int32(h>>32)
	pos := make([]int32, b.k)
	for i := int32(1); i <= b.k; i++ {
		c := h1 + i*h2
		if c < 0 {
			c = ^c
		}
		pos[i-1] = c % b.m
	}
	return &BloomFilterData{BitPos: pos, BitNum: b.m}
}

// valid is Java's BloomFilter#isValid: data made by a filter of this size.
func (b bloomFilter) valid(d *BloomFilterData) bool {
	return d != nil && d.BitNum == b.m && d.BitPos != nil && int32(len(d.BitPos)) == b.k
}

func (d *BloomFilterData) equal(o *BloomFilterData) bool {
	if d == nil || o == nil {
		return d == o
	}
	if d.BitNum != o.BitNum || len(d.BitPos) != len(o.BitPos) {
		return false
	}
	for i := range d.BitPos {
		if d.BitPos[i] != o.BitPos[i] {
			return false
		}
	}
	return true
}

// murmur3x64First is the first 64 bits (h1, Guava's asLong) of MurmurHash3 x64 128 with
// seed 0.
func murmur3x64First(data []byte) uint64 {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	var h1, h2 uint64
	n := len(data)
	for len(data) >= 16 {
		k1 := binary.LittleEndian.Uint64(data)
		k2 := binary.LittleEndian.Uint64(data[8:])
		h1 ^= bits.RotateLeft64(k1*c1, 31) * c2
		h1 = (bits.RotateLeft64(h1, 27)+h2)*5 + 0x52dce729
		h2 ^= bits.RotateLeft64(k2*c2, 33) * c1
		h2 = (bits.RotateLeft64(h2, 31)+h1)*5 + 0x38495ab5
		data = data[16:]
	}
	var k1, k2 uint64
	for i := len(data) - 1; i >= 8; i-- {
		k2 = k2<<8 | uint64(data[i])
	}
	for i := min(len(data), 8) - 1; i >= 0; i-- {
		k1 = k1<<8 | uint64(data[i])
	}
	if len(data) > 8 {
		h2 ^= bits.RotateLeft64(k2*c2, 33) * c1
	}
	if len(data) > 0 {
		h1 ^= bits.RotateLeft64(k1*c1, 31) * c2
	}
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	return h1 + h2
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
