package acl

import (
	"sort"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// JavaHashMapOrder returns the indexes of keys (distinct, in insertion order) in the
// iteration order of a java.util.HashMap they were put into (default capacity 16, load
// factor 0.75): by bucket, then by insertion within a bucket (resizes keep that order).
// Java's validator collects a request's resources in such a map and reports the first
// failing one in this order; fastjson writes a HashMap in it.
func JavaHashMapOrder(keys []string) []int {
	n := 16
	for float64(len(keys)) > 0.75*float64(n) {
		n *= 2
	}
	bucket := make([]int, len(keys))
	for i, k := range keys {
		h := uint32(compat.JavaHashCode(k))
		bucket[i] = int((h ^ (h >> 16)) & uint32(n-1))
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return bucket[idx[a]] < bucket[idx[b]] })
	return idx
}

// javaHashOrder orders a request's resources as Java's HashMap of them. Only refusals
// call it.
func javaHashOrder(res []resource) []int {
	keys := make([]string, len(res))
	for i, r := range res {
		keys[i] = r.name
		if r.group {
			keys[i] = retryPrefix + r.name
		}
	}
	return JavaHashMapOrder(keys)
}
