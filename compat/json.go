package compat

import "unicode/utf8"

// hexDigits are upper case, as fastjson writes them (\u001A, \u007F).
const hexDigits = "0123456789ABCDEF"

// plainJSON[c] is true for bytes AppendJSONString copies as they are: one table load per
// byte instead of five comparisons.
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\' && c != 0x7F && c != 0xE2
	}
	return t
}()

// AppendJSONString appends s as a JSON string literal, escaped exactly as fastjson
// 1.2.69 escapes it (Java: SerializeWriter#writeStringWithDoubleQuote, checked against
// real fastjson output in TestAppendJSONString_FastjsonGolden):
//   - '"' and '\\' get a backslash; \b \t \n \f \r use their short escapes;
//   - every other control character, and DEL (0x7F), is written as \u00XX with upper-case
//     hex (the RocketMQ property separators 0x01 and 0x02 among them);
//   - U+2028 and U+2029 are written as \u2028 and \u2029;
//   - everything else, '/' and non-ASCII text included, is written as is (UTF-8).
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plainJSON[c] {
			i++
			continue
		}
		if c == 0xE2 {
			// U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8.
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != '\u2028' && r != '\u2029' {
				i += n
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += n
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
