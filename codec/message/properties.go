package message

import "bytes"

// Property is one key/value pair of a message's properties.
type Property struct {
	Key, Value string
}

// Properties is an ordered set of message properties. It is built for the broker's send
// path: Parse takes the client's "k\x01v\x02..." string and keeps substrings of it (no
// per-property copies), Set adds CLUSTER, AppendTo re-encodes into a caller's buffer.
// A Properties value can be Reset and reused, so a steady-state parse allocates nothing.
//
// Duplicate keys keep the last value, as Java's HashMap does. Encoding keeps insertion
// order (Java's order is HashMap order, which no client relies on).
type Properties struct {
	kv []Property
}

// ParseProperties parses s with Java 4.9.1+ rules (MessageDecoder#string2messageProperties):
// a segment is kept when it holds a non-empty key, a \x01 and a non-empty value; a
// trailing \x02, empty segments and segments without \x01 are skipped. A value may
// contain \x01 (everything after the first one). The strings in the result share s.
func ParseProperties(s string) Properties {
	var p Properties
	p.Parse(s)
	return p
}

// Reset empties p and keeps its capacity.
func (p *Properties) Reset() { p.kv = p.kv[:0] }

// Parse adds the properties of s to p (see ParseProperties).
func (p *Properties) Parse(s string) {
	for i := 0; i < len(s); {
		end := indexByteFrom(s, i, propertySeparator)
		if end < 0 {
			end = len(s)
		}
		if end-i >= 3 {
			// Java searches for \x01 from the segment start over the whole string.
			kv := indexByteFrom(s, i, nameValueSeparator)
			if kv > i && kv < end-1 {
				p.Set(s[i:kv], s[kv+1:end])
			}
		}
		i = end + 1
	}
}

func indexByteFrom(s string, from int, c byte) int {
	for j := from; j < len(s); j++ {
		if s[j] == c {
			return j
		}
	}
	return -1
}

// Len returns the number of properties.
func (p *Properties) Len() int { return len(p.kv) }

// All returns the properties in order; the slice belongs to p.
func (p *Properties) All() []Property { return p.kv }

// Get returns the value of key.
func (p *Properties) Get(key string) (string, bool) {
	for i := range p.kv {
		if p.kv[i].Key == key {
			return p.kv[i].Value, true
		}
	}
	return "", false
}

// Set sets key to value, replacing an existing value in place.
func (p *Properties) Set(key, value string) {
	for i := range p.kv {
		if p.kv[i].Key == key {
			p.kv[i].Value = value
			return
		}
	}
	p.kv = append(p.kv, Property{Key: key, Value: value})
}

// Delete removes key; it reports whether it was present.
func (p *Properties) Delete(key string) bool {
	for i := range p.kv {
		if p.kv[i].Key == key {
			p.kv = append(p.kv[:i], p.kv[i+1:]...)
			return true
		}
	}
	return false
}

// EncodedLen is the length AppendTo will add.
func (p *Properties) EncodedLen() int {
	n := 0
	for i := range p.kv {
		n += len(p.kv[i].Key) + len(p.kv[i].Value) + 2
	}
	if n > 0 {
		n-- // no trailing separator (Java 4.9.1+)
	}
	return n
}

// AppendTo appends the encoding "k\x01v\x02k\x01v" without a trailing separator, as Java
// 4.9.1+ MessageDecoder#messageProperties2String does.
func (p *Properties) AppendTo(dst []byte) []byte {
	for i := range p.kv {
		if i > 0 {
			dst = append(dst, propertySeparator)
		}
		dst = append(dst, p.kv[i].Key...)
		dst = append(dst, nameValueSeparator)
		dst = append(dst, p.kv[i].Value...)
	}
	return dst
}

// String returns the encoding as a string.
func (p *Properties) String() string { return string(p.AppendTo(make([]byte, 0, p.EncodedLen()))) }

// LookupProperty finds key in an encoded properties string without parsing it into a
// Properties and without allocating, with the same rules as Parse (the last occurrence
// wins). The dispatch path uses it for TAGS, KEYS, UNIQ_KEY and DELAY.
func LookupProperty(props []byte, key string) ([]byte, bool) {
	var (
		val   []byte
		found bool
	)
	for i := 0; i < len(props); {
		end := bytes.IndexByte(props[i:], propertySeparator)
		if end < 0 {
			end = len(props)
		} else {
			end += i
		}
		if end-i >= 3 {
			kv := bytes.IndexByte(props[i:], nameValueSeparator)
			if kv >= 0 {
				kv += i
			}
			if kv > i && kv < end-1 && string(props[i:kv]) == key {
				val, found = props[kv+1:end], true
			}
		}
		i = end + 1
	}
	return val, found
}

// AppendProperty appends one "k\x01v" pair to an encoded properties string, with a
// separator when dst is non-empty and does not already end in one.
func AppendProperty(dst []byte, key, value string) []byte {
	if len(dst) > 0 && dst[len(dst)-1] != propertySeparator {
		dst = append(dst, propertySeparator)
	}
	dst = append(dst, key...)
	dst = append(dst, nameValueSeparator)
	return append(dst, value...)
}
