package filter

// The parser follows the productions of Java's SelectorParser.jj (4.9.8) one for one and
// makes its choices exactly where the JavaCC-generated parser makes them:
//
//   orExpression    := andExpression (OR andExpression)*
//   andExpression   := equality (AND equality)*
//   equality        := comparison ( "=" comparison | "<>" comparison
//                                 | LOOKAHEAD(2) IS NULL | IS NOT NULL )*
//   comparison      := unary ( (">" | ">=" | "<" | "<=") unary | BETWEEN unary AND unary
//                            | LOOKAHEAD(2) NOT BETWEEN unary AND unary
//                            | IN "(" STRING ("," STRING)* ")"
//                            | LOOKAHEAD(2) NOT IN "(" STRING ("," STRING)* ")" )*
//   unary           := LOOKAHEAD("+" unary) "+" unary | "-" unary | NOT unary | primary
//   primary         := literal | ID | "(" orExpression ")"
//   literal         := STRING | DECIMAL | FLOAT | TRUE | FALSE | NULL
//
// The selector is orExpression with no <EOF> after it: Java ignores whatever follows a
// complete expression ("a = 1 b" compiles as "a = 1"), and lexes only the one token it
// peeks at. Tokens are pulled lazily to keep that. The syntactic lookaheads are replayed
// by the scan* functions (ordered choice with backtracking, as JavaCC's jj_3 routines),
// and the bookkeeping JavaCC uses for the "Was expecting" list of a syntax error (the
// choice points that fell through at the current token, and a rescan of recent
// lookaheads) is kept too, so error texts match Java's.

import "errors"

// Choice points that record what they expected when they fell through (Java: jj_la1).
const (
	laOr = iota
	laAnd
	laEqualityLoop
	laEqualityOp
	laIsNotNull
	laComparisonLoop
	laInList
	laNotInList
	laComparisonOp
	laIn
	laUnary
	laPrimary
	laLiteral
	numLA
)

func kinds(ks ...tokenKind) uint64 {
	var m uint64
	for _, k := range ks {
		m |= 1 << k
	}
	return m
}

var (
	literalKinds = kinds(tkTrue, tkFalse, tkNull, tkDecimal, tkFloat, tkString)
	primaryKinds = literalKinds | kinds(tkID, tkLParen)
	laSets       = [numLA]uint64{
		laOr:             kinds(tkOr),
		laAnd:            kinds(tkAnd),
		laEqualityLoop:   kinds(tkIs, tkEq, tkNe),
		laEqualityOp:     kinds(tkEq, tkNe),
		laIsNotNull:      kinds(tkIs),
		laComparisonLoop: kinds(tkNot, tkBetween, tkIn, tkGt, tkGe, tkLt, tkLe),
		laInList:         kinds(tkComma),
		laNotInList:      kinds(tkComma),
		laComparisonOp:   kinds(tkBetween, tkGt, tkGe, tkLt, tkLe),
		laIn:             kinds(tkIn),
		laUnary:          primaryKinds | kinds(tkNot, tkMinus),
		laPrimary:        primaryKinds,
		laLiteral:        literalKinds,
	}
)

// Syntactic lookahead sites (Java: jj_2_1 .. jj_2_4).
const (
	siteIsNull = iota
	siteNotBetween
	siteNotIn
	sitePlus
	numSites
)

// lookaheadCall remembers one lookahead for the rescan of a syntax error (Java: JJCalls).
type lookaheadCall struct {
	gen   int
	first int // index of the token the scan started after
	arg   int
}

type parser struct {
	lx   lexer
	toks []token
	pos  int // tokens consumed; toks[pos] is the next one
	gen  int

	la1   [numLA]int
	kind  tokenKind // the kind a failed consume wanted, -1 for none
	calls [numSites][]lookaheadCall

	// scan state of a syntactic lookahead (Java: jj_la, jj_scanpos, jj_lastpos)
	la               int
	scanpos, lastpos int
	rescan           bool

	// nesting (limits.go): depth counts the parentheses and unary operators open around
	// the parse; a scan runs scanDepth levels further in from scanBase.
	depth, scanBase, scanDepth int

	// The "+" lookahead is unbounded, so each "+" of "+(+(+(...)))" would rescan all
	// that follows it. memo keeps what scanUnary found from a position during such a
	// lookahead, for the nested ones to reuse; reach is the furthest token the scan in
	// progress looked at.
	unbounded bool
	memo      map[int]scanMemo
	reach     int

	// expected-token sequences of a syntax error (Java: jj_expentries and friends)
	expected   [][]tokenKind
	lastTokens [100]tokenKind
	endPos     int
}

// lookaheadSuccess ends a scan that matched as many tokens as it was allowed to look at.
type lookaheadSuccess struct{}

// scanMemo is the outcome of scanUnary from one position in an unbounded lookahead.
type scanMemo struct {
	miss       bool
	end, reach int // scanpos after it, furthest token it looked at
	depth      int // its nesting level, which a position keeps (checked all the same)
}

func newParser(src string) *parser {
	p := &parser{lx: lexer{src: newSource(src)}, kind: -1}
	for i := range p.la1 {
		p.la1[i] = -1
	}
	for i := range p.calls {
		p.calls[i] = []lookaheadCall{{}}
	}
	return p
}

// tok returns token i, lexing up to it; a lexical error aborts the parse.
func (p *parser) tok(i int) *token {
	for len(p.toks) <= i {
		t, err := p.lx.next()
		if err != nil {
			panic(err)
		}
		p.toks = append(p.toks, t)
	}
	return &p.toks[i]
}

func (p *parser) peek() tokenKind { return p.tok(p.pos).kind }

func (p *parser) consume(k tokenKind) *token {
	t := p.tok(p.pos)
	if t.kind == k {
		p.pos++
		p.gen++
		return t
	}
	p.kind = k
	panic(p.syntaxError())
}

// fail is JavaCC's jj_consume_token(-1): no alternative fits the next token.
func (p *parser) fail(la int) {
	p.la1[la] = p.gen
	p.tok(p.pos)
	p.kind = -1
	panic(p.syntaxError())
}

func (p *parser) miss(la int) { p.la1[la] = p.gen }

// lookahead runs a syntactic lookahead of at most xla tokens (Java: jj_2_N).
func (p *parser) lookahead(site, xla int, scan func() bool) (ok bool) {
	p.la = xla
	p.scanpos, p.lastpos = p.pos-1, p.pos-1
	p.scanBase, p.scanDepth = p.depth, 0
	p.unbounded, p.reach = xla == maxLookahead, p.scanpos
	defer func() {
		if r := recover(); r != nil {
			if _, success := r.(lookaheadSuccess); !success {
				panic(r)
			}
			ok = true
		}
		p.save(site, xla)
	}()
	return !scan()
}

func (p *parser) save(site, xla int) {
	cs := p.calls[site]
	i := 0
	for i < len(cs) && cs[i].gen > p.gen {
		i++
	}
	if i == len(cs) {
		cs = append(cs, lookaheadCall{})
		p.calls[site] = cs
	}
	cs[i] = lookaheadCall{gen: p.gen + xla - p.la, first: p.pos - 1, arg: xla}
}

// scanTok is JavaCC's jj_scan_token: true means the token does not match.
func (p *parser) scanTok(k tokenKind) bool {
	if p.scanpos == p.lastpos {
		p.la--
		p.scanpos++
		p.lastpos = p.scanpos
		p.tok(p.scanpos)
	} else {
		p.scanpos++
	}
	p.reach = max(p.reach, p.scanpos)
	if p.rescan && p.scanpos >= p.pos-1 {
		p.addErrorToken(k, p.scanpos-(p.pos-1))
	}
	if p.toks[p.scanpos].kind != k {
		return true
	}
	if p.la == 0 && p.scanpos == p.lastpos {
		panic(lookaheadSuccess{})
	}
	return false
}

// alt tries alternatives in order from the same position (a JavaCC choice in a scan).
func (p *parser) alt(fns ...func() bool) bool {
	at := p.scanpos
	for _, f := range fns {
		if !f() {
			return false
		}
		p.scanpos = at
	}
	return true
}

// many repeats f until it fails, restoring the position of the failed try.
func (p *parser) many(f func() bool) {
	for {
		at := p.scanpos
		if f() {
			p.scanpos = at
			return
		}
	}
}

func (p *parser) seq(fns ...func() bool) bool {
	for _, f := range fns {
		if f() {
			return true
		}
	}
	return false
}

func (p *parser) st(k tokenKind) func() bool { return func() bool { return p.scanTok(k) } }

// The scans, one per production (Java: the jj_3R routines).

// scanUnary scans what unary parses one level further in (after an operator or "("),
// so it keeps to MaxNesting as the parse does: the "+" lookahead is unbounded and would
// otherwise recurse through the whole operand.
func (p *parser) scanUnary() bool {
	p.scanDepth++
	level := p.scanBase + p.scanDepth
	if level > MaxNesting {
		t := &p.toks[max(p.scanpos, 0)]
		panic(tooDeep(t.line, t.col))
	}
	at := p.scanpos
	if p.unbounded && !p.rescan {
		if m, ok := p.memo[at]; ok && m.depth == level {
			// Replay the scan's effects: where it ended and how far it looked (la, lastpos).
			p.scanpos = m.end
			p.reach = max(p.reach, m.reach)
			if m.reach > p.lastpos {
				p.la -= m.reach - p.lastpos
				p.lastpos = m.reach
			}
			p.scanDepth--
			return m.miss
		}
	}
	outer := p.reach
	p.reach = at
	miss := p.alt(
		func() bool { return p.seq(p.st(tkPlus), p.scanUnary) },
		func() bool { return p.seq(p.st(tkMinus), p.scanUnary) },
		func() bool { return p.seq(p.st(tkNot), p.scanUnary) },
		p.scanPrimary,
	)
	if p.unbounded && !p.rescan {
		if p.memo == nil {
			p.memo = map[int]scanMemo{}
		}
		p.memo[at] = scanMemo{miss: miss, end: p.scanpos, reach: p.reach, depth: level}
	}
	p.reach = max(outer, p.reach)
	p.scanDepth--
	return miss
}

func (p *parser) scanPrimary() bool {
	return p.alt(
		func() bool {
			return p.alt(p.st(tkString), p.st(tkDecimal), p.st(tkFloat), p.st(tkTrue), p.st(tkFalse), p.st(tkNull))
		},
		p.st(tkID),
		func() bool { return p.seq(p.st(tkLParen), p.scanOr, p.st(tkRParen)) },
	)
}

func (p *parser) scanOr() bool {
	if p.scanAnd() {
		return true
	}
	p.many(func() bool { return p.seq(p.st(tkOr), p.scanAnd) })
	return false
}

func (p *parser) scanAnd() bool {
	if p.scanEquality() {
		return true
	}
	p.many(func() bool { return p.seq(p.st(tkAnd), p.scanEquality) })
	return false
}

func (p *parser) scanEquality() bool {
	if p.scanComparison() {
		return true
	}
	p.many(func() bool {
		return p.alt(
			func() bool { return p.seq(p.st(tkEq), p.scanComparison) },
			func() bool { return p.seq(p.st(tkNe), p.scanComparison) },
			p.scanIsNull,
			func() bool { return p.seq(p.st(tkIs), p.st(tkNot), p.st(tkNull)) },
		)
	})
	return false
}

func (p *parser) scanIsNull() bool { return p.seq(p.st(tkIs), p.st(tkNull)) }

func (p *parser) scanBetweenTail() bool {
	return p.seq(p.scanUnary, p.st(tkAnd), p.scanUnary)
}

func (p *parser) scanInTail() bool {
	if p.seq(p.st(tkLParen), p.st(tkString)) {
		return true
	}
	p.many(func() bool { return p.seq(p.st(tkComma), p.st(tkString)) })
	return p.scanTok(tkRParen)
}

func (p *parser) scanNotBetween() bool { return p.seq(p.st(tkNot), p.st(tkBetween), p.scanBetweenTail) }

func (p *parser) scanNotIn() bool { return p.seq(p.st(tkNot), p.st(tkIn), p.scanInTail) }

func (p *parser) scanPlus() bool { return p.seq(p.st(tkPlus), p.scanUnary) }

func (p *parser) scanComparison() bool {
	if p.scanUnary() {
		return true
	}
	p.many(func() bool {
		return p.alt(
			func() bool { return p.seq(p.st(tkGt), p.scanUnary) },
			func() bool { return p.seq(p.st(tkGe), p.scanUnary) },
			func() bool { return p.seq(p.st(tkLt), p.scanUnary) },
			func() bool { return p.seq(p.st(tkLe), p.scanUnary) },
			func() bool { return p.seq(p.st(tkBetween), p.scanBetweenTail) },
			p.scanNotBetween,
			func() bool { return p.seq(p.st(tkIn), p.scanInTail) },
			p.scanNotIn,
		)
	})
	return false
}

// The productions.

func (p *parser) orExpression() node {
	left := p.andExpression()
	for {
		if p.peek() != tkOr {
			p.miss(laOr)
			return left
		}
		p.consume(tkOr)
		right := p.andExpression()
		l := p.asBoolean(left)
		left = newLogic(false, l, p.asBoolean(right))
	}
}

func (p *parser) andExpression() node {
	left := p.equality()
	for {
		if p.peek() != tkAnd {
			p.miss(laAnd)
			return left
		}
		p.consume(tkAnd)
		right := p.equality()
		l := p.asBoolean(left)
		left = newLogic(true, l, p.asBoolean(right))
	}
}

func (p *parser) equality() node {
	left := p.comparison()
	for {
		switch p.peek() {
		case tkIs, tkEq, tkNe:
		default:
			p.miss(laEqualityLoop)
			return left
		}
		switch p.peek() {
		case tkEq:
			p.consume(tkEq)
			left = createEqual(left, p.comparison())
		case tkNe:
			p.consume(tkNe)
			left = newNot(createEqual(left, p.comparison()))
		default:
			p.miss(laEqualityOp)
			if p.lookahead(siteIsNull, 2, p.scanIsNull) {
				p.consume(tkIs)
				p.consume(tkNull)
				left = newCmp(opEq, left, nullConst)
			} else if p.peek() == tkIs {
				p.consume(tkIs)
				p.consume(tkNot)
				p.consume(tkNull)
				left = newNot(newCmp(opEq, left, nullConst))
			} else {
				p.fail(laIsNotNull)
			}
		}
	}
}

func (p *parser) comparison() node {
	left := p.unary()
	for {
		switch p.peek() {
		case tkNot, tkBetween, tkIn, tkGt, tkGe, tkLt, tkLe:
		default:
			p.miss(laComparisonLoop)
			return left
		}
		switch k := p.peek(); k {
		case tkGt, tkGe, tkLt, tkLe:
			p.consume(k)
			left = createOrdered(cmpOps[k], left, p.unary())
		case tkBetween:
			p.consume(tkBetween)
			low := p.unary()
			p.consume(tkAnd)
			high := p.unary()
			left = createBetween(left, low, high)
		default:
			p.miss(laComparisonOp)
			if p.lookahead(siteNotBetween, 2, p.scanNotBetween) {
				p.consume(tkNot)
				p.consume(tkBetween)
				low := p.unary()
				p.consume(tkAnd)
				high := p.unary()
				lt := createOrdered(opLt, left, low)
				left = newLogic(false, lt, createOrdered(opGt, left, high))
			} else if p.peek() == tkIn {
				p.consume(tkIn)
				left = createIn(left, p.inList(laInList), false)
			} else {
				p.miss(laIn)
				if !p.lookahead(siteNotIn, 2, p.scanNotIn) {
					p.fail(laIn)
				}
				p.consume(tkNot)
				p.consume(tkIn)
				left = createIn(left, p.inList(laNotInList), true)
			}
		}
	}
}

func (p *parser) inList(la int) []string {
	p.consume(tkLParen)
	list := []string{p.stringLiteral()}
	for p.peek() == tkComma {
		p.consume(tkComma)
		list = append(list, p.stringLiteral())
	}
	p.miss(la)
	p.consume(tkRParen)
	return list
}

func (p *parser) unary() node {
	if p.lookahead(sitePlus, maxLookahead, p.scanPlus) {
		p.enter(p.consume(tkPlus))
		n := p.unary()
		p.depth--
		return n
	}
	switch p.peek() {
	case tkMinus:
		p.enter(p.consume(tkMinus))
		n := newNeg(p.unary())
		p.depth--
		return n
	case tkNot:
		p.enter(p.consume(tkNot))
		n := newNot(p.asBoolean(p.unary()))
		p.depth--
		return n
	case tkTrue, tkFalse, tkNull, tkDecimal, tkFloat, tkString, tkID, tkLParen:
		return p.primary()
	}
	p.fail(laUnary)
	return nil
}

// enter opens the level of nesting of operator or parenthesis t, before the parser
// recurses into it; past MaxNesting the selector is refused (limits.go).
func (p *parser) enter(t *token) {
	p.depth++
	if p.depth > MaxNesting {
		panic(tooDeep(t.line, t.col))
	}
}

// maxLookahead is the "+" lookahead's limit: Java's Integer.MAX_VALUE.
const maxLookahead = 1<<31 - 1

func (p *parser) primary() node {
	switch p.peek() {
	case tkTrue, tkFalse, tkNull, tkDecimal, tkFloat, tkString:
		return p.literal()
	case tkID:
		return &propNode{name: p.consume(tkID).image}
	case tkLParen:
		p.enter(p.consume(tkLParen))
		n := p.orExpression()
		p.consume(tkRParen)
		p.depth--
		return n
	}
	p.fail(laPrimary)
	return nil
}

func (p *parser) literal() node {
	switch p.peek() {
	case tkString:
		return &constNode{v: strValue(p.stringLiteral())}
	case tkDecimal:
		return createDecimal(p.consume(tkDecimal).image)
	case tkFloat:
		return createFloat(p.consume(tkFloat).image)
	case tkTrue:
		p.consume(tkTrue)
		return trueConst
	case tkFalse:
		p.consume(tkFalse)
		return falseConst
	case tkNull:
		p.consume(tkNull)
		return nullConst
	}
	p.fail(laLiteral)
	return nil
}

// stringLiteral decodes a literal's image: the quotes go, "”" becomes "'".
func (p *parser) stringLiteral() string {
	u := utf16Of(p.consume(tkString).image)
	out := make([]uint16, 0, len(u))
	for i := 1; i < len(u)-1; i++ {
		if u[i] == '\'' {
			i++
		}
		out = append(out, u[i])
	}
	return stringOf(out)
}

// asBoolean is Java's asBooleanExpression: boolean expressions pass, a bare property is
// cast (true only if it holds a Boolean, which a message property never does), anything
// else is a syntax error.
func (p *parser) asBoolean(n node) node {
	if isBoolean(n) {
		return n
	}
	if pn, ok := n.(*propNode); ok {
		return &boolCastNode{x: pn}
	}
	panic(&CompileError{Class: classParseException, Message: "Expression will not result in a boolean value: " + nodeString(n)})
}

// syntaxError builds Java's ParseException (Java: generateParseException).
func (p *parser) syntaxError() error {
	p.expected = p.expected[:0]
	var want [numKinds]bool
	if p.kind >= 0 {
		want[p.kind] = true
		p.kind = -1
	}
	for i, g := range p.la1 {
		if g == p.gen {
			for k := 0; k < numKinds; k++ {
				if laSets[i]&(1<<k) != 0 {
					want[k] = true
				}
			}
		}
	}
	for k, w := range want {
		if w {
			p.expected = append(p.expected, []tokenKind{tokenKind(k)})
		}
	}
	p.endPos = 0
	p.rescanLookaheads()
	p.addErrorToken(0, 0)
	return &CompileError{Class: classParseException, Message: p.syntaxMessage()}
}

// rescanLookaheads replays the lookaheads that looked past the current token, recording
// the tokens they wanted (Java: jj_rescan_token).
func (p *parser) rescanLookaheads() {
	p.rescan = true
	defer func() { p.rescan = false }()
	scans := [numSites]func() bool{p.scanIsNull, p.scanNotBetween, p.scanNotIn, p.scanPlus}
	for site, scan := range scans {
		func() {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(lookaheadSuccess); !ok {
						panic(r)
					}
				}
			}()
			for _, c := range p.calls[site] {
				if c.gen > p.gen {
					p.la = c.arg
					p.scanpos, p.lastpos = c.first, c.first
					// A replay goes no deeper than the scan did, which kept to MaxNesting.
					p.scanBase, p.scanDepth = 0, 0
					p.unbounded, p.reach = false, p.scanpos
					scan()
				}
			}
		}()
	}
}

// addErrorToken is Java's jj_add_error_token, including its habit of keeping a finished
// sequence only when an equal one is already listed.
func (p *parser) addErrorToken(k tokenKind, pos int) {
	if pos >= 100 {
		return
	}
	if pos == p.endPos+1 {
		p.lastTokens[p.endPos] = k
		p.endPos++
		return
	}
	if p.endPos != 0 {
		entry := append([]tokenKind(nil), p.lastTokens[:p.endPos]...)
		for _, old := range p.expected {
			if len(old) == len(entry) && equalKinds(old, entry) {
				p.expected = append(p.expected, entry)
				break
			}
		}
		if pos != 0 {
			p.endPos = pos
			p.lastTokens[pos-1] = k
		}
	}
}

func equalKinds(a, b []tokenKind) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (p *parser) syntaxMessage() string {
	const eol = "\n"
	maxSize := 0
	var exp []byte
	for _, seq := range p.expected {
		maxSize = max(maxSize, len(seq))
		for _, k := range seq {
			exp = append(exp, tokenImage[k]...)
			exp = append(exp, ' ')
		}
		if seq[len(seq)-1] != 0 {
			exp = append(exp, "..."...)
		}
		exp = append(exp, eol+"    "...)
	}
	msg := []byte(`Encountered "`)
	for i := 0; i < maxSize; i++ {
		if i != 0 {
			msg = append(msg, ' ')
		}
		t := p.tok(p.pos + i)
		if t.kind == tkEOF {
			msg = append(msg, tokenImage[0]...)
			break
		}
		msg = append(msg, ' ')
		msg = append(msg, tokenImage[t.kind]...)
		msg = append(msg, ` "`...)
		msg = append(msg, javaEscape(utf16Of(t.image))...)
		msg = append(msg, ` "`...)
	}
	next := p.tok(p.pos)
	msg = append(msg, `" at line `...)
	msg = appendInt(msg, next.line)
	msg = append(msg, ", column "...)
	msg = appendInt(msg, next.col)
	msg = append(msg, "."+eol...)
	if len(p.expected) == 1 {
		msg = append(msg, "Was expecting:"+eol+"    "...)
	} else {
		msg = append(msg, "Was expecting one of:"+eol+"    "...)
	}
	return string(append(msg, exp...))
}

// parse compiles src; every failure comes back as a *CompileError.
func parse(src string) (n node, err error) {
	p := newParser(src)
	defer func() {
		if r := recover(); r != nil {
			var le *lexicalError
			var ce *CompileError
			switch e := r.(type) {
			case error:
				if errors.As(e, &ce) {
					err = ce
					return
				}
				if errors.As(e, &le) {
					err = &CompileError{Class: classTokenMgrError, Message: le.Error()}
					return
				}
			}
			panic(r)
		}
	}()
	return p.asBoolean(p.orExpression()), nil
}
