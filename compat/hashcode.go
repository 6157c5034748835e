package compat

import "unicode/utf8"

// JavaHashCode is Java's String.hashCode: h = 31*h + c over the UTF-16 code units of s,
// with int32 overflow. Tag codes in the ConsumeQueue and IndexFile key hashes use it.
func JavaHashCode(s string) int32 {
	var h int32
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			h = 31*h + int32(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
		} else {
			h = 31*h + int32(r)
		}
	}
	return h
}
