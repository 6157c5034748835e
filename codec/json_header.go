package codec

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// The JSON header is parsed by hand: it has a fixed, flat shape, and a scanner that
// unescapes strings in place lets the command's strings point into the frame buffer,
// so decoding allocates nothing beyond the command itself.
//
// Accepted leniently, as fastjson does: keys in any order, unknown keys (any value),
// language as an enum name or a number, remark and extFields missing or null, numeric
// fields as numbers or numeric strings, extFields values that are numbers or booleans
// (kept as their text) or null (dropped).

type jsonScanner struct {
	b []byte
	i int
}

func (s *jsonScanner) errf(format string, args ...any) error {
	return fmt.Errorf("%w: json header at %d: %s", ErrMalformed, s.i, fmt.Sprintf(format, args...))
}

func (s *jsonScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *jsonScanner) expect(ch byte) error {
	if s.peek() != ch {
		return s.errf("want %q", ch)
	}
	s.i++
	return nil
}

func bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// str parses a JSON string at the cursor, unescaping it in place.
func (s *jsonScanner) str() (string, error) {
	if s.peek() != '"' {
		return "", s.errf("want string")
	}
	s.i++
	start := s.i
	end := bytes.IndexByte(s.b[start:], '"')
	if end < 0 {
		return "", s.errf("unterminated string")
	}
	if bytes.IndexByte(s.b[start:start+end], '\\') >= 0 {
		return s.strEscaped(start)
	}
	s.i = start + end + 1
	return bstr(s.b[start : start+end]), nil
}

func (s *jsonScanner) strEscaped(start int) (string, error) {
	w := s.i // bytes before the first backslash are already in place
	for {
		q := bytes.IndexByte(s.b[s.i:], '"')
		if q < 0 {
			return "", s.errf("unterminated string")
		}
		// Copy the run up to the next backslash (or the closing quote) in one move.
		run := s.b[s.i : s.i+q]
		k := bytes.IndexByte(run, '\\')
		if k < 0 {
			w += copy(s.b[w:], run)
			s.i += q + 1
			return bstr(s.b[start:w]), nil
		}
		w += copy(s.b[w:], run[:k])
		s.i += k
		if s.i+1 >= len(s.b) {
			return "", s.errf("unterminated string")
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			s.b[w] = e
		case 'b':
			s.b[w] = '\b'
		case 'f':
			s.b[w] = '\f'
		case 'n':
			s.b[w] = '\n'
		case 'r':
			s.b[w] = '\r'
		case 't':
			s.b[w] = '\t'
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return "", s.errf("bad \\u escape")
			}
			if r < utf8.RuneSelf {
				s.b[w] = byte(r)
				w++
				continue
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					save := s.i
					s.i += 2
					if lo, ok := s.hex4(); ok {
						if d := utf16.DecodeRune(r, lo); d != utf8.RuneError {
							r2 = d
						} else {
							s.i = save
						}
					} else {
						s.i = save
					}
				}
				r = r2
			}
			w += utf8.EncodeRune(s.b[w:], r)
			continue
		default:
			return "", s.errf("bad escape %q", e)
		}
		w++
	}
}

func (s *jsonScanner) hex4() (rune, bool) {
	if s.i+4 > len(s.b) {
		return 0, false
	}
	var r rune
	for _, c := range s.b[s.i : s.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	s.i += 4
	return r, true
}

// scalar returns the text of a number, true, false or null at the cursor.
func (s *jsonScanner) scalar() (string, error) {
	s.ws()
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' || c == '.' || c == 'E' {
			s.i++
			continue
		}
		break
	}
	if s.i == start {
		return "", s.errf("want value")
	}
	return bstr(s.b[start:s.i]), nil
}

// text returns a string or scalar value as text; null gives ok=false.
func (s *jsonScanner) text() (v string, ok bool, err error) {
	if s.peek() == '"' {
		v, err = s.str()
		return v, true, err
	}
	v, err = s.scalar()
	if err != nil {
		return "", false, err
	}
	if v == "null" {
		return "", false, nil
	}
	return v, true, nil
}

func (s *jsonScanner) int32v() (int32, error) {
	v, ok, err := s.text()
	if err != nil || !ok {
		return 0, err
	}
	n, perr := strconv.ParseInt(v, 10, 32)
	if perr != nil {
		return 0, s.errf("bad integer %q", v)
	}
	return int32(n), nil
}

// skip skips any JSON value.
func (s *jsonScanner) skip(depth int) error {
	if depth > 64 {
		return s.errf("nested too deep")
	}
	switch s.peek() {
	case '"':
		_, err := s.str()
		return err
	case '{', '[':
		open := s.b[s.i]
		closer := byte('}')
		if open == '[' {
			closer = ']'
		}
		s.i++
		if s.peek() == closer {
			s.i++
			return nil
		}
		for {
			if open == '{' {
				if _, err := s.str(); err != nil {
					return err
				}
				if err := s.expect(':'); err != nil {
					return err
				}
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			switch s.peek() {
			case ',':
				s.i++
			case closer:
				s.i++
				return nil
			default:
				return s.errf("want , or %q", closer)
			}
		}
	default:
		_, err := s.scalar()
		return err
	}
}

func decodeJSONHeader(b []byte, c *protocol.Command) error {
	s := jsonScanner{b: b}
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		switch key {
		case "code":
			c.Code, err = s.int32v()
		case "version":
			c.Version, err = s.int32v()
		case "opaque":
			c.Opaque, err = s.int32v()
		case "flag":
			c.Flag, err = s.int32v()
		case "language":
			var v string
			var ok bool
			v, ok, err = s.text()
			if ok {
				c.Language = protocol.ParseLanguage(v)
			}
		case "remark":
			c.Remark, c.HasRemark, err = s.text()
		case "extFields":
			err = s.extFields(c)
		default:
			err = s.skip(0)
		}
		if err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.errf("want , or }")
		}
	}
}

func (s *jsonScanner) extFields(c *protocol.Command) error {
	switch s.peek() {
	case 'n':
		_, err := s.scalar()
		return err
	case '{':
		s.i++
	default:
		return s.errf("extFields is not an object")
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		k, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		var v string
		var ok bool
		if p := s.peek(); p == '{' || p == '[' {
			start := s.i
			if err := s.skip(0); err != nil {
				return err
			}
			v, ok = bstr(s.b[start:s.i]), true
		} else if v, ok, err = s.text(); err != nil {
			return err
		}
		if ok {
			c.Ext = append(c.Ext, protocol.KV{Key: k, Value: v})
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.errf("want , or } in extFields")
		}
	}
}

// appendJSONHeader writes the header as Java's fastjson does: compact, keys in
// alphabetical order, null remark and extFields omitted.
func appendJSONHeader(dst []byte, c *protocol.Command) []byte {
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, int64(c.Code), 10)
	if len(c.Ext) > 0 {
		dst = append(dst, `,"extFields":{`...)
		for i, kv := range c.Ext {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = compat.AppendJSONString(dst, kv.Key)
			dst = append(dst, ':')
			dst = compat.AppendJSONString(dst, kv.Value)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"flag":`...)
	dst = strconv.AppendInt(dst, int64(c.Flag), 10)
	dst = append(dst, `,"language":"`...)
	dst = append(dst, c.Language.String()...)
	dst = append(dst, `","opaque":`...)
	dst = strconv.AppendInt(dst, int64(c.Opaque), 10)
	if c.HasRemark || c.Remark != "" {
		dst = append(dst, `,"remark":`...)
		dst = compat.AppendJSONString(dst, c.Remark)
	}
	dst = append(dst, `,"serializeTypeCurrentRPC":"`...)
	dst = append(dst, c.Serialize.String()...)
	dst = append(dst, `","version":`...)
	dst = strconv.AppendInt(dst, int64(c.Version), 10)
	return append(dst, '}')
}
