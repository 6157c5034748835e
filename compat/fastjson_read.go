package compat

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrInvalidJSON is returned by NormalizeJSON when its input is neither standard JSON nor
// fastjson's dialect of it. The wrapping error names the byte offset.
var ErrInvalidJSON = errors.New("compat: invalid JSON")

// ErrBadMessageQueueKey is returned by ParseMessageQueueKey when a map key is not a
// MessageQueue object.
var ErrBadMessageQueueKey = errors.New("compat: bad MessageQueue key")

// maxJSONDepth bounds nesting as encoding/json does, so that NormalizeJSON accepts
// exactly the standard documents encoding/json accepts and never exhausts the stack.
const maxJSONDepth = 10000

// NormalizeJSON turns fastjson's non-standard output into standard JSON that
// encoding/json and json-iterator read. Java writes that dialect into consumerOffset.json,
// delayOffset.json and into bodies built by Java tools (Java: JSON.toJSONString without
// WriteNonStringKeyAsString):
//
//	{0:"a",-1:"b"}              -> {"0":"a","-1":"b"}          unquoted numeric keys
//	{abc:1,true:2}              -> {"abc":1,"true":2}          unquoted identifier keys
//	{{"queueId":0,"topic":"T"}:100}
//	                            -> {"{\"queueId\":0,\"topic\":\"T\"}":100}
//	                                 an object (or array) key becomes a string holding
//	                                 the key's compact JSON text (itself normalized)
//	{'k':'it''s'}               -> single-quoted strings become double-quoted
//
// Everything else is copied byte for byte, whitespace included, so a document that is
// already standard JSON comes back unchanged. Raw control characters inside strings
// (invalid JSON) are escaped rather than rejected.
func NormalizeJSON(data []byte) ([]byte, error) {
	n := normalizer{src: data, out: make([]byte, 0, len(data)+len(data)/8)}
	n.ws()
	if err := n.value(0); err != nil {
		return nil, err
	}
	n.ws()
	if n.pos != len(n.src) {
		return nil, n.errorf("data after the top-level value")
	}
	return n.out, nil
}

// normalizer is a recursive-descent copier. With compact set, whitespace between tokens
// is dropped instead of copied (used for object keys, whose text must be compact).
type normalizer struct {
	src     []byte
	pos     int
	out     []byte
	compact bool
}

func (n *normalizer) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s at offset %d", ErrInvalidJSON, fmt.Sprintf(format, args...), n.pos)
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (n *normalizer) ws() {
	start := n.pos
	for n.pos < len(n.src) && isJSONSpace(n.src[n.pos]) {
		n.pos++
	}
	if !n.compact {
		n.out = append(n.out, n.src[start:n.pos]...)
	}
}

func (n *normalizer) value(depth int) error {
	if n.pos >= len(n.src) {
		return n.errorf("unexpected end of input")
	}
	switch c := n.src[n.pos]; {
	case c == '{':
		return n.object(depth + 1)
	case c == '[':
		return n.array(depth + 1)
	case c == '"' || c == '\'':
		return n.str()
	case c == '-' || (c >= '0' && c <= '9'):
		start := n.pos
		if err := n.number(); err != nil {
			return err
		}
		n.out = append(n.out, n.src[start:n.pos]...)
		return nil
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if n.hasPrefix(lit) && !n.identAt(n.pos+len(lit)) {
				n.out = append(n.out, lit...)
				n.pos += len(lit)
				return nil
			}
		}
		return n.errorf("unexpected character %q", c)
	}
}

func (n *normalizer) hasPrefix(s string) bool {
	return len(n.src)-n.pos >= len(s) && string(n.src[n.pos:n.pos+len(s)]) == s
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func (n *normalizer) identAt(i int) bool { return i < len(n.src) && isIdentPart(n.src[i]) }

func (n *normalizer) object(depth int) error {
	if depth > maxJSONDepth {
		return n.errorf("nesting deeper than %d", maxJSONDepth)
	}
	n.out = append(n.out, '{')
	n.pos++
	n.ws()
	if n.pos < len(n.src) && n.src[n.pos] == '}' {
		n.out = append(n.out, '}')
		n.pos++
		return nil
	}
	for {
		if err := n.key(depth); err != nil {
			return err
		}
		n.ws()
		if n.pos >= len(n.src) || n.src[n.pos] != ':' {
			return n.errorf("expected ':' after object key")
		}
		n.out = append(n.out, ':')
		n.pos++
		n.ws()
		if err := n.value(depth); err != nil {
			return err
		}
		n.ws()
		if n.pos >= len(n.src) {
			return n.errorf("unterminated object")
		}
		switch n.src[n.pos] {
		case ',':
			n.out = append(n.out, ',')
			n.pos++
			n.ws()
		case '}':
			n.out = append(n.out, '}')
			n.pos++
			return nil
		default:
			return n.errorf("expected ',' or '}' in object")
		}
	}
}

func (n *normalizer) array(depth int) error {
	if depth > maxJSONDepth {
		return n.errorf("nesting deeper than %d", maxJSONDepth)
	}
	n.out = append(n.out, '[')
	n.pos++
	n.ws()
	if n.pos < len(n.src) && n.src[n.pos] == ']' {
		n.out = append(n.out, ']')
		n.pos++
		return nil
	}
	for {
		if err := n.value(depth); err != nil {
			return err
		}
		n.ws()
		if n.pos >= len(n.src) {
			return n.errorf("unterminated array")
		}
		switch n.src[n.pos] {
		case ',':
			n.out = append(n.out, ',')
			n.pos++
			n.ws()
		case ']':
			n.out = append(n.out, ']')
			n.pos++
			return nil
		default:
			return n.errorf("expected ',' or ']' in array")
		}
	}
}

// key copies an object key, quoting the forms fastjson leaves unquoted.
func (n *normalizer) key(depth int) error {
	if n.pos >= len(n.src) {
		return n.errorf("unexpected end of input, expected an object key")
	}
	c := n.src[n.pos]
	switch {
	case c == '"' || c == '\'':
		return n.str()
	case c == '-' || (c >= '0' && c <= '9'):
		start := n.pos
		if err := n.number(); err != nil {
			return err
		}
		n.out = append(n.out, '"')
		n.out = append(n.out, n.src[start:n.pos]...)
		n.out = append(n.out, '"')
		return nil
	case isIdentStart(c):
		start := n.pos
		for n.pos < len(n.src) && isIdentPart(n.src[n.pos]) {
			n.pos++
		}
		n.out = append(n.out, '"')
		n.out = append(n.out, n.src[start:n.pos]...)
		n.out = append(n.out, '"')
		return nil
	case c == '{' || c == '[':
		// Normalize the key's own text compactly, then write it as a string.
		sub := normalizer{src: n.src, pos: n.pos, compact: true}
		var err error
		if c == '{' {
			err = sub.object(depth + 1)
		} else {
			err = sub.array(depth + 1)
		}
		if err != nil {
			return err
		}
		n.pos = sub.pos
		n.out = AppendJSONString(n.out, string(sub.out))
		return nil
	default:
		return n.errorf("unexpected character %q in object key", c)
	}
}

// number validates a JSON number at pos and moves past it.
func (n *normalizer) number() error {
	s := n.src
	i := n.pos
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		n.pos = i
		return n.errorf("bad number")
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			n.pos = i
			return n.errorf("bad number fraction")
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			n.pos = i
			return n.errorf("bad number exponent")
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	n.pos = i
	return nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// str copies a double-quoted string, or rewrites a single-quoted one with double quotes.
func (n *normalizer) str() error {
	q := n.src[n.pos]
	n.pos++
	n.out = append(n.out, '"')
	for {
		if n.pos >= len(n.src) {
			return n.errorf("unterminated string")
		}
		c := n.src[n.pos]
		switch {
		case c == q:
			n.out = append(n.out, '"')
			n.pos++
			return nil
		case c == '\\':
			if n.pos+1 >= len(n.src) {
				return n.errorf("unterminated escape")
			}
			e := n.src[n.pos+1]
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				n.out = append(n.out, '\\', e)
				n.pos += 2
			case '\'':
				// \' is fastjson's escape inside single quotes; standard JSON has none.
				n.out = append(n.out, '\'')
				n.pos += 2
			case 'u':
				if n.pos+6 > len(n.src) || !isHex(n.src[n.pos+2]) || !isHex(n.src[n.pos+3]) ||
					!isHex(n.src[n.pos+4]) || !isHex(n.src[n.pos+5]) {
					return n.errorf("bad \\u escape")
				}
				n.out = append(n.out, n.src[n.pos:n.pos+6]...)
				n.pos += 6
			default:
				return n.errorf("bad escape \\%c", e)
			}
		case c == '"': // only reached inside single quotes
			n.out = append(n.out, '\\', '"')
			n.pos++
		case c < 0x20:
			n.out = append(n.out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			n.pos++
		default:
			n.out = append(n.out, c)
			n.pos++
		}
	}
}

// ParseMessageQueueKey reads the object key fastjson writes for a map keyed by
// MessageQueue, `{"brokerName":"b","queueId":0,"topic":"T"}` (as NormalizeJSON hands it
// over: the key's compact text). The fastjson forms with single quotes or unquoted
// names are accepted too; missing fields read as empty (fastjson omits null fields).
func ParseMessageQueueKey(key string) (topic, brokerName string, queueID int32, err error) {
	norm, err := NormalizeJSON([]byte(key))
	if err != nil {
		return "", "", 0, fmt.Errorf("%w: %w", ErrBadMessageQueueKey, err)
	}
	var mq struct {
		Topic      *string `json:"topic"`
		BrokerName *string `json:"brokerName"`
		QueueID    *int32  `json:"queueId"`
	}
	if len(norm) == 0 || norm[firstNonSpace(norm)] != '{' {
		return "", "", 0, fmt.Errorf("%w: not an object: %q", ErrBadMessageQueueKey, key)
	}
	if err := json.Unmarshal(norm, &mq); err != nil {
		return "", "", 0, fmt.Errorf("%w: %w", ErrBadMessageQueueKey, err)
	}
	if mq.Topic != nil {
		topic = *mq.Topic
	}
	if mq.BrokerName != nil {
		brokerName = *mq.BrokerName
	}
	if mq.QueueID != nil {
		queueID = *mq.QueueID
	}
	return topic, brokerName, queueID, nil
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if !isJSONSpace(c) {
			return i
		}
	}
	return 0
}
