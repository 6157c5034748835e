package compat

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrMalformedEscape is returned by ParseProperties for a \u escape that is not followed
// by four hex digits, where java.util.Properties#load throws
// IllegalArgumentException("Malformed \\uxxxx encoding.").
var ErrMalformedEscape = errors.New(`compat: malformed \uxxxx encoding`)

// KV is one property: a key and its value, in file order.
type KV struct {
	Key   string
	Value string
}

// ParseProperties reads a properties text with java.util.Properties#load semantics:
//
//   - lines end at \n, \r or \r\n; leading whitespace (space, \t, \f) of every line is
//     skipped; blank lines and lines whose first non-blank character is '#' or '!' are
//     comments (a comment never continues onto the next line);
//   - a line ending in an odd number of backslashes continues on the next line, whose
//     leading whitespace is dropped (a backslash at the very end of input is dropped);
//   - the key ends at the first unescaped '=', ':' or whitespace; whitespace, then at most
//     one '=' or ':', then whitespace, separate it from the value; trailing whitespace of
//     the value is kept;
//   - escapes in keys and values: \t \n \r \f, \uXXXX (UTF-16 surrogate pairs are joined;
//     a lone surrogate becomes U+FFFD), and \c is c for any other c.
//
// The pairs come back in file order, duplicates included (Java keeps the last; see
// PropertiesMap). One deliberate difference: Java's load(InputStream) reads bytes as
// ISO-8859-1, so UTF-8 text turns into mojibake; here bytes are kept, so UTF-8 keys and
// values read as the user wrote them.
func ParseProperties(data []byte) ([]KV, error) {
	var kvs []KV
	var line []byte
	for pos := 0; ; {
		var ok bool
		line, pos, ok = nextLogicalLine(data, pos, line[:0])
		if !ok {
			return kvs, nil
		}
		kv, err := splitPropertyLine(line)
		if err != nil {
			return nil, err
		}
		kvs = append(kvs, kv)
	}
}

// nextLogicalLine returns the next non-comment, non-blank logical line starting at pos,
// with continuations joined (Java: Properties.LineReader#readLine).
func nextLogicalLine(data []byte, pos int, buf []byte) (line []byte, next int, ok bool) {
newLine:
	// Skip leading whitespace and empty lines.
	for pos < len(data) {
		c := data[pos]
		if c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\n' {
			pos++
			continue
		}
		break
	}
	if pos >= len(data) {
		return nil, pos, false
	}
	if data[pos] == '#' || data[pos] == '!' {
		for pos < len(data) && data[pos] != '\n' && data[pos] != '\r' {
			pos++
		}
		goto newLine
	}
	buf = buf[:0]
	for continued := false; ; continued = true {
		start := pos
		for pos < len(data) && data[pos] != '\n' && data[pos] != '\r' {
			pos++
		}
		if continued && len(buf) == 0 && pos == start {
			// Java treats a logical line that is still empty at a line end as a blank
			// line (and yields nothing at end of input).
			if pos >= len(data) {
				return nil, pos, false
			}
			goto newLine
		}
		buf = append(buf, data[start:pos]...)
		// Count trailing backslashes of this natural line.
		n := 0
		for i := len(buf) - 1; i >= 0 && buf[i] == '\\'; i-- {
			n++
		}
		if n%2 == 0 {
			return buf, pos, true
		}
		buf = buf[:len(buf)-1] // drop the continuation backslash
		if pos >= len(data) {
			return buf, pos, true
		}
		// Consume the line end (\r\n counts as one).
		if data[pos] == '\r' && pos+1 < len(data) && data[pos+1] == '\n' {
			pos += 2
		} else {
			pos++
		}
		// Skip leading whitespace of the continuation line; a blank continuation line
		// ends the logical line (Java: appendedLineBegin).
		for pos < len(data) && (data[pos] == ' ' || data[pos] == '\t' || data[pos] == '\f') {
			pos++
		}
	}
}

// splitPropertyLine splits one logical line into key and value (Java: Properties#load0).
func splitPropertyLine(line []byte) (KV, error) {
	keyLen, valueStart := 0, len(line)
	hasSep, backslash := false, false
	for keyLen < len(line) {
		c := line[keyLen]
		if (c == '=' || c == ':') && !backslash {
			valueStart = keyLen + 1
			hasSep = true
			break
		} else if (c == ' ' || c == '\t' || c == '\f') && !backslash {
			valueStart = keyLen + 1
			break
		}
		if c == '\\' {
			backslash = !backslash
		} else {
			backslash = false
		}
		keyLen++
	}
	for valueStart < len(line) {
		c := line[valueStart]
		if c != ' ' && c != '\t' && c != '\f' {
			if !hasSep && (c == '=' || c == ':') {
				hasSep = true
			} else {
				break
			}
		}
		valueStart++
	}
	key, err := unescapeProperty(line[:keyLen])
	if err != nil {
		return KV{}, err
	}
	value, err := unescapeProperty(line[valueStart:])
	if err != nil {
		return KV{}, err
	}
	return KV{Key: key, Value: value}, nil
}

// unescapeProperty applies Java's loadConvert.
func unescapeProperty(b []byte) (string, error) {
	if strings.IndexByte(string(b), '\\') < 0 {
		return string(b), nil
	}
	out := make([]byte, 0, len(b))
	var pending rune = -1 // a high surrogate waiting for its low half
	flush := func() {
		if pending >= 0 {
			out = utf8.AppendRune(out, utf8.RuneError)
			pending = -1
		}
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			flush()
			out = append(out, c)
			continue
		}
		i++
		c = b[i]
		if c != 'u' {
			flush()
			switch c {
			case 't':
				c = '\t'
			case 'r':
				c = '\r'
			case 'n':
				c = '\n'
			case 'f':
				c = '\f'
			}
			out = append(out, c)
			continue
		}
		if i+4 >= len(b) {
			return "", fmt.Errorf("%w in %q", ErrMalformedEscape, b)
		}
		var r rune
		for _, h := range b[i+1 : i+5] {
			switch {
			case h >= '0' && h <= '9':
				r = r<<4 | rune(h-'0')
			case h >= 'a' && h <= 'f':
				r = r<<4 | rune(h-'a'+10)
			case h >= 'A' && h <= 'F':
				r = r<<4 | rune(h-'A'+10)
			default:
				return "", fmt.Errorf("%w in %q", ErrMalformedEscape, b)
			}
		}
		i += 4
		switch {
		case utf16.IsSurrogate(r) && r < 0xDC00:
			flush()
			pending = r
		case utf16.IsSurrogate(r):
			if pending >= 0 {
				out = utf8.AppendRune(out, utf16.DecodeRune(pending, r))
				pending = -1
			} else {
				out = utf8.AppendRune(out, utf8.RuneError)
			}
		default:
			flush()
			out = utf8.AppendRune(out, r)
		}
	}
	flush()
	return string(out), nil
}

// PropertiesMap turns parsed pairs into a map; a later duplicate wins, as in Java.
func PropertiesMap(kvs []KV) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// FormatProperties writes pairs as MixAll.properties2String does: "key=value\n" per pair,
// in the order given. Java escapes nothing there, which loses backslashes, line breaks
// and leading blanks on the way back in; here just those are escaped (and '=', ':', '#',
// '!' and blanks that would end or hide a key), so every pair survives ParseProperties
// and Java's Properties#load, while ordinary text is byte-identical to Java's.
func FormatProperties(kvs []KV) []byte {
	var dst []byte
	for _, kv := range kvs {
		dst = AppendProperty(dst, kv.Key, kv.Value)
	}
	return dst
}

// AppendProperty appends one "key=value\n" line as FormatProperties writes it.
func AppendProperty(dst []byte, key, value string) []byte {
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch c {
		case '=', ':', ' ', '\t', '\f':
			dst = append(dst, '\\', c)
		case '#', '!':
			if i == 0 {
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
		default:
			dst = appendPropertyByte(dst, c)
		}
	}
	dst = append(dst, '=')
	for i := 0; i < len(value); i++ {
		c := value[i]
		if (c == ' ' || c == '\t' || c == '\f') && i == 0 {
			dst = append(dst, '\\', c)
			continue
		}
		dst = appendPropertyByte(dst, c)
	}
	return append(dst, '\n')
}

func appendPropertyByte(dst []byte, c byte) []byte {
	switch c {
	case '\\':
		return append(dst, '\\', '\\')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	default:
		return append(dst, c)
	}
}
