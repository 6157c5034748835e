package filter

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// tokenKind numbers follow Java's SelectorParserConstants, so the expected-token lists of
// syntax errors come out in Java's order.
type tokenKind int

const (
	tkEOF     tokenKind = 0
	tkNot     tokenKind = 8
	tkAnd     tokenKind = 9
	tkOr      tokenKind = 10
	tkBetween tokenKind = 11
	tkIn      tokenKind = 12
	tkTrue    tokenKind = 13
	tkFalse   tokenKind = 14
	tkNull    tokenKind = 15
	tkIs      tokenKind = 16
	tkDecimal tokenKind = 17
	tkFloat   tokenKind = 18
	tkString  tokenKind = 20
	tkID      tokenKind = 21
	tkEq      tokenKind = 22 // =
	tkNe      tokenKind = 23 // <>
	tkGt      tokenKind = 24 // >
	tkGe      tokenKind = 25 // >=
	tkLt      tokenKind = 26 // <
	tkLe      tokenKind = 27 // <=
	tkLParen  tokenKind = 28 // (
	tkComma   tokenKind = 29 // ,
	tkRParen  tokenKind = 30 // )
	tkPlus    tokenKind = 31 // +
	tkMinus   tokenKind = 32 // -
	numKinds            = 33
)

// tokenImage is Java's TOKEN_IMAGE: how a kind is named in a syntax error.
var tokenImage = [numKinds]string{
	0: "<EOF>", 1: `" "`, 2: `"\t"`, 3: `"\n"`, 4: `"\r"`, 5: `"\f"`,
	6: "<LINE_COMMENT>", 7: "<BLOCK_COMMENT>",
	8: `"NOT"`, 9: `"AND"`, 10: `"OR"`, 11: `"BETWEEN"`, 12: `"IN"`, 13: `"TRUE"`, 14: `"FALSE"`,
	15: `"NULL"`, 16: `"IS"`, 17: "<DECIMAL_LITERAL>", 18: "<FLOATING_POINT_LITERAL>", 19: "<EXPONENT>",
	20: "<STRING_LITERAL>", 21: "<ID>", 22: `"="`, 23: `"<>"`, 24: `">"`, 25: `">="`, 26: `"<"`, 27: `"<="`,
	28: `"("`, 29: `","`, 30: `")"`, 31: `"+"`, 32: `"-"`,
}

// keywords are matched case-insensitively; an identifier of the same length loses to
// them, a longer one wins ("NOTE" is an ID).
var keywords = map[string]tokenKind{
	"NOT": tkNot, "AND": tkAnd, "OR": tkOr, "BETWEEN": tkBetween, "IN": tkIn,
	"TRUE": tkTrue, "FALSE": tkFalse, "NULL": tkNull, "IS": tkIs,
}

// token is one lexed token. image is the source text (a keyword keeps its case); line and
// col are 1-based, counted as Java's SimpleCharStream does (UTF-16 units, tab stops of 8).
type token struct {
	kind      tokenKind
	image     string
	line, col int
}

// source is the selector as UTF-16 code units with the position of each unit: the
// JavaCC lexer works on Java chars, and its error positions count them.
type source struct {
	u         []uint16
	line, col []int
}

func newSource(s string) *source {
	src := &source{u: utf16.Encode([]rune(s))}
	src.line = make([]int, len(src.u))
	src.col = make([]int, len(src.u))
	line, col := 1, 0
	prevLF, prevCR := false, false
	for i, c := range src.u {
		col++
		if prevLF {
			prevLF = false
			line++
			col = 1
		} else if prevCR {
			prevCR = false
			if c == '\n' {
				prevLF = true
			} else {
				line++
				col = 1
			}
		}
		switch c {
		case '\r':
			prevCR = true
		case '\n':
			prevLF = true
		case '\t':
			col--
			col += 8 - col%8
		}
		src.line[i], src.col[i] = line, col
	}
	return src
}

func (s *source) text(from, to int) string { return string(utf16.Decode(s.u[from:to])) }

// lexer hands out tokens one at a time; the parser pulls them only as far as it looks,
// as JavaCC does, so text after a complete selector is never lexed and a lexical error
// there surfaces only if the parser peeks at it.
type lexer struct {
	src *source
	pos int
}

func isIDStart(c uint16) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isIDPart(c uint16) bool { return isIDStart(c) || c >= '0' && c <= '9' }

func isDigit(c uint16) bool { return c >= '0' && c <= '9' }

// next returns the next token, or a *lexicalError.
func (l *lexer) next() (token, error) {
	u := l.src.u
	for {
		s := l.pos
		if s >= len(u) {
			// Java's EOF token sits on the last char read (line 0, column 0 for empty input).
			t := token{kind: tkEOF}
			if n := len(u); n > 0 {
				t.line, t.col = l.src.line[n-1], l.src.col[n-1]
			}
			return t, nil
		}
		c := u[s]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			l.pos++
			continue
		case c == '-' && s+1 < len(u) && u[s+1] == '-':
			// A line comment needs its line end; without one the text lexes as "-" "-" ...
			if end := lineCommentEnd(u, s+2); end > 0 {
				l.pos = end
				continue
			}
			return l.emit(tkMinus, s, s+1), nil
		case c == '/':
			if s+1 < len(u) && u[s+1] == '*' {
				if end := blockCommentEnd(u, s+2); end > 0 {
					l.pos = end
					continue
				}
				return token{}, l.lexError(s, len(u))
			}
			return token{}, l.lexError(s, s+1)
		case c == '\'':
			if end := stringEnd(u, s); end > 0 {
				return l.emit(tkString, s, end), nil
			}
			return token{}, l.lexError(s, len(u))
		case c == '.':
			if s+1 < len(u) && isDigit(u[s+1]) {
				end := digitsEnd(u, s+1)
				return l.emit(tkFloat, s, exponentEnd(u, end)), nil
			}
			return token{}, l.lexError(s, s+1)
		case isDigit(c):
			kind, end := number(u, s)
			return l.emit(kind, s, end), nil
		case isIDStart(c):
			end := s + 1
			for end < len(u) && isIDPart(u[end]) {
				end++
			}
			kind := tkID
			if k, ok := keywords[strings.ToUpper(l.src.text(s, end))]; ok {
				kind = k
			}
			return l.emit(kind, s, end), nil
		}
		kind, n := operator(u, s)
		if n == 0 {
			return token{}, l.lexError(s, s)
		}
		return l.emit(kind, s, s+n), nil
	}
}

func (l *lexer) emit(kind tokenKind, from, to int) token {
	l.pos = to
	return token{kind: kind, image: l.src.text(from, to), line: l.src.line[from], col: l.src.col[from]}
}

func operator(u []uint16, s int) (tokenKind, int) {
	next := uint16(0)
	if s+1 < len(u) {
		next = u[s+1]
	}
	switch u[s] {
	case '=':
		return tkEq, 1
	case '<':
		switch next {
		case '>':
			return tkNe, 2
		case '=':
			return tkLe, 2
		}
		return tkLt, 1
	case '>':
		if next == '=' {
			return tkGe, 2
		}
		return tkGt, 1
	case '(':
		return tkLParen, 1
	case ')':
		return tkRParen, 1
	case ',':
		return tkComma, 1
	case '+':
		return tkPlus, 1
	case '-':
		return tkMinus, 1
	}
	return 0, 0
}

// lineCommentEnd returns the end of a "--" comment body starting at i (after its line
// end, "\r\n" included), or 0 when the input ends first.
func lineCommentEnd(u []uint16, i int) int {
	for ; i < len(u); i++ {
		switch u[i] {
		case '\n':
			return i + 1
		case '\r':
			if i+1 < len(u) && u[i+1] == '\n' {
				return i + 2
			}
			return i + 1
		}
	}
	return 0
}

// blockCommentEnd returns the end of a "/*" comment whose body starts at i, or 0.
func blockCommentEnd(u []uint16, i int) int {
	for ; i+1 < len(u); i++ {
		if u[i] == '*' && u[i+1] == '/' {
			return i + 2
		}
	}
	return 0
}

// stringEnd returns the end of the longest string literal at s, or 0. The grammar is
// "'" ("”" | ~["'"])* "'": every quote that could close the literal is a candidate end
// and the longest candidate wins, so "'a”b" lexes as 'a' followed by an unterminated 'b.
func stringEnd(u []uint16, s int) int {
	end := 0
	atQuote := false // the last unit was a quote that may close the literal
	for i := s + 1; i < len(u); i++ {
		if atQuote {
			if u[i] != '\'' {
				return end
			}
			atQuote = false // "''": an escaped quote, the literal goes on
			continue
		}
		if u[i] == '\'' {
			atQuote = true
			end = i + 1
		}
	}
	return end
}

func digitsEnd(u []uint16, i int) int {
	for i < len(u) && isDigit(u[i]) {
		i++
	}
	return i
}

// exponentEnd returns the end of an exponent ([eE][+-]?[0-9]+) at i, or i when there is none.
func exponentEnd(u []uint16, i int) int {
	if i >= len(u) || u[i] != 'e' && u[i] != 'E' {
		return i
	}
	j := i + 1
	if j < len(u) && (u[j] == '+' || u[j] == '-') {
		j++
	}
	if j >= len(u) || !isDigit(u[j]) {
		return i
	}
	return digitsEnd(u, j)
}

// number lexes the longest of DECIMAL_LITERAL ("0" | [1-9][0-9]*[lL]?) and
// FLOATING_POINT_LITERAL at s: "007" is three tokens, "007.5" one float.
func number(u []uint16, s int) (tokenKind, int) {
	d := digitsEnd(u, s)
	decEnd := s + 1
	if u[s] != '0' {
		decEnd = d
		if d < len(u) && (u[d] == 'l' || u[d] == 'L') {
			decEnd++
		}
	}
	floatEnd := 0
	if d < len(u) && u[d] == '.' {
		floatEnd = exponentEnd(u, digitsEnd(u, d+1))
	} else if e := exponentEnd(u, d); e > d {
		floatEnd = e
	}
	if floatEnd > decEnd {
		return tkFloat, floatEnd
	}
	return tkDecimal, decEnd
}

// lexError builds Java's TokenMgrError for a token starting at s whose scan read up to
// and including unit last (last = len when the input ran out while a token was open).
func (l *lexer) lexError(s, last int) error {
	u := l.src.u
	if last >= len(u) {
		last = len(u) - 1
	}
	read := last - s + 1 // units the lexer read, the failing one included
	e := &lexicalError{line: l.src.line[last], col: l.src.col[last]}
	if last == len(u)-1 {
		// JavaCC peeks one more char to tell: nothing left reports <EOF> one column on.
		e.eof = true
		if u[last] == '\n' || u[last] == '\r' {
			e.line++
			e.col = 0
		} else {
			e.col++
		}
		if read > 1 {
			e.after = l.src.text(s, last+1)
		}
	} else {
		e.char = u[last]
		if read > 1 {
			e.after = l.src.text(s, last)
		}
	}
	return e
}

// lexicalError is Java's TokenMgrError (LEXICAL_ERROR).
type lexicalError struct {
	line, col int
	eof       bool
	char      uint16
	after     string
}

func (e *lexicalError) Error() string {
	var b strings.Builder
	b.WriteString("Lexical error at line ")
	b.WriteString(strconv.Itoa(e.line))
	b.WriteString(", column ")
	b.WriteString(strconv.Itoa(e.col))
	b.WriteString(".  Encountered: ")
	if e.eof {
		b.WriteString("<EOF> ")
	} else {
		b.WriteByte('"')
		b.WriteString(javaEscape([]uint16{e.char}))
		b.WriteString(`" (`)
		b.WriteString(strconv.Itoa(int(e.char)))
		b.WriteString("), ")
	}
	b.WriteString(`after : "`)
	b.WriteString(javaEscape(utf16.Encode([]rune(e.after))))
	b.WriteByte('"')
	return b.String()
}

// javaEscape is JavaCC's addEscapes: backslash escapes for controls and quotes, \uXXXX
// for every other unit outside printable ASCII, NUL dropped.
func javaEscape(u []uint16) string {
	var b strings.Builder
	for _, c := range u {
		switch c {
		case 0:
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"':
			b.WriteString(`\"`)
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 || c > 0x7e {
				h := strconv.FormatUint(uint64(c), 16)
				b.WriteString(`\u`)
				b.WriteString(strings.Repeat("0", 4-len(h)))
				b.WriteString(h)
			} else {
				b.WriteByte(byte(c))
			}
		}
	}
	return b.String()
}
