package compat

import "strconv"

// AppendMessageQueueKey appends the JSON object fastjson writes for a MessageQueue,
// fields in alphabetical order as fastjson sorts them:
//
//	{"brokerName":"b","queueId":0,"topic":"T"}
//
// Written bare, it is the map key of Java bodies keyed by MessageQueue (ResetOffsetBody,
// ConsumeStats, TopicStatsTable: `{{"brokerName":"b","queueId":0,"topic":"T"}:100}`);
// it is also the element of MessageQueue sets (LockBatchRequestBody).
func AppendMessageQueueKey(dst []byte, brokerName string, queueID int32, topic string) []byte {
	dst = append(dst, `{"brokerName":`...)
	dst = AppendJSONString(dst, brokerName)
	dst = append(dst, `,"queueId":`...)
	dst = strconv.AppendInt(dst, int64(queueID), 10)
	dst = append(dst, `,"topic":`...)
	dst = AppendJSONString(dst, topic)
	return append(dst, '}')
}

// PrettyFastJSON re-lays compact JSON (standard, or fastjson's dialect with unquoted or
// object keys) the way fastjson 1.2.69 writes `JSON.toJSONString(obj, true)`, the layout
// of every config file a Java broker persists (topics.json, consumerOffset.json,
// subscriptionGroup.json, delayOffset.json, consumerFilter.json):
//
//   - tab indentation, "\n" line ends, no space after ':' and no trailing newline;
//   - a bean or a String-keyed map: each member on its own line, one tab deeper, and the
//     closing brace on a line of its own at the parent's depth; `{}` when empty;
//   - fastjson's quirk for maps whose keys are not Strings (Integer queue ids, delay
//     levels, MessageQueue objects): their entries are NOT put on new lines, only the
//     closing brace is: `{0:120,1:98` + "\n\t\t}"; an object key is itself laid out as a
//     bean one level deeper;
//   - arrays are written inline, as fastjson writes Java arrays and Sets (`"bitPos":[1,2]`),
//     with their elements laid out at the array's depth. Use PrettyFastJSONLists for
//     documents whose arrays are java.util.List values.
//
// Member order is kept as given: fastjson writes a map in its iteration order, which for
// Java's ConcurrentHashMap tables is hash order; callers choose theirs. Input that does not
// parse is returned unchanged. Golden: testdata/fastjson/*.pretty.json, printed by fastjson.
func PrettyFastJSON(compact []byte) []byte {
	return prettyFastJSON(compact, false)
}

// PrettyFastJSONLists is PrettyFastJSON for documents whose arrays are java.util.List
// values, which fastjson (ListSerializer) lays out one element per line, one tab deeper,
// with the closing bracket on its own line; `[]` when empty.
func PrettyFastJSONLists(compact []byte) []byte {
	return prettyFastJSON(compact, true)
}

func prettyFastJSON(compact []byte, lists bool) []byte {
	p := prettyPrinter{src: compact, lists: lists, out: make([]byte, 0, len(compact)*5/4+16)}
	p.ws()
	if !p.value(0, 0) {
		return compact
	}
	p.ws()
	if p.pos != len(p.src) {
		return compact
	}
	return p.out
}

type prettyPrinter struct {
	src   []byte
	pos   int
	out   []byte
	lists bool
}

func (p *prettyPrinter) ws() {
	for p.pos < len(p.src) && isJSONSpace(p.src[p.pos]) {
		p.pos++
	}
}

func (p *prettyPrinter) newline(level int) {
	p.out = append(p.out, '\n')
	for range level {
		p.out = append(p.out, '\t')
	}
}

// value writes the value at pos; level is the indentation level of the line it starts on.
func (p *prettyPrinter) value(level, depth int) bool {
	if p.pos >= len(p.src) || depth > maxJSONDepth {
		return false
	}
	switch c := p.src[p.pos]; c {
	case '{':
		return p.object(level, depth+1)
	case '[':
		return p.array(level, depth+1)
	case '"', '\'':
		return p.str()
	default:
		return p.scalar()
	}
}

func (p *prettyPrinter) object(level, depth int) bool {
	p.pos++
	p.ws()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		p.out = append(p.out, '{', '}')
		return true
	}
	p.out = append(p.out, '{')
	for first := true; ; first = false {
		if p.pos >= len(p.src) {
			return false
		}
		if !first {
			p.out = append(p.out, ',')
		}
		switch p.src[p.pos] {
		case '"', '\'':
			// Java: MapSerializer / JavaBeanSerializer println before a String key.
			p.newline(level + 1)
			if !p.str() {
				return false
			}
		case '{', '[':
			if !p.value(level+1, depth) {
				return false
			}
		default:
			if !p.scalar() {
				return false
			}
		}
		p.ws()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return false
		}
		p.pos++
		p.out = append(p.out, ':')
		p.ws()
		if !p.value(level+1, depth) {
			return false
		}
		p.ws()
		if p.pos >= len(p.src) {
			return false
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.ws()
		case '}':
			p.pos++
			p.newline(level)
			p.out = append(p.out, '}')
			return true
		default:
			return false
		}
	}
}

func (p *prettyPrinter) array(level, depth int) bool {
	p.pos++
	p.ws()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		p.out = append(p.out, '[', ']')
		return true
	}
	p.out = append(p.out, '[')
	inner := level
	if p.lists {
		inner = level + 1
	}
	for first := true; ; first = false {
		if !first {
			p.out = append(p.out, ',')
		}
		if p.lists {
			p.newline(inner)
		}
		if !p.value(inner, depth) {
			return false
		}
		p.ws()
		if p.pos >= len(p.src) {
			return false
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.ws()
		case ']':
			p.pos++
			if p.lists {
				p.newline(level)
			}
			p.out = append(p.out, ']')
			return true
		default:
			return false
		}
	}
}

// str copies a quoted string token as it is.
func (p *prettyPrinter) str() bool {
	q := p.src[p.pos]
	for i := p.pos + 1; i < len(p.src); i++ {
		switch p.src[i] {
		case '\\':
			i++
		case q:
			p.out = append(p.out, p.src[p.pos:i+1]...)
			p.pos = i + 1
			return true
		}
	}
	return false
}

// scalar copies a number or literal token: everything up to the next delimiter.
func (p *prettyPrinter) scalar() bool {
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == ',' || c == ':' || c == '}' || c == ']' || c == '{' || c == '[' || c == '"' || c == '\'' || isJSONSpace(c) {
			break
		}
		p.pos++
	}
	if p.pos == start {
		return false
	}
	p.out = append(p.out, p.src[start:p.pos]...)
	return true
}
