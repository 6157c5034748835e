package acl

import (
	"sort"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// javaHashOrder returns the indexes of res in the iteration order of the java.util.HashMap
// Java's validator collects them in (default capacity 16, load factor 0.75): by bucket,
// then by insertion within a bucket (resizes keep that order). Only refusals call it.
func javaHashOrder(res []resource) []int {
	n := 16
	for float64(len(res)) > 0.75*float64(n) {
		n *= 2
	}
	bucket := make([]int, len(res))
	for i, r := range res {
		key := r.name
		if r.group {
			key = retryPrefix + r.name
		}
		h := uint32(compat.JavaHashCode(key))
		bucket[i] = int((h ^ (h >> 16)) & uint32(n-1))
	}
	idx := make([]int, len(res))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return bucket[idx[a]] < bucket[idx[b]] })
	return idx
}
