package acl

// IP whitelist patterns (Java: RemoteAddressStrategyFactory and AclUtils, 4.9.8). A
// pattern is compiled once, when a file loads; matching a client address allocates
// nothing.
//
//	blank                         never matches
//	*, *.*.*.*, *:*:*:*:*:*:*:*    always matches
//	a.b.c.{1,2} / x:y::{a,b}       a set of exact addresses
//	a.b.c.d,e.f.g.h               a set of exact addresses
//	contains * or -               a range at the first octet (2nd..4th) that is * or
//	                              lo-hi; the octets before it must match literally and
//	                              every octet after it is ignored, as in Java
//	anything else                 one exact IPv4 or IPv6 address

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

type strategyKind uint8

const (
	stratBlank strategyKind = iota
	stratAll
	stratSet
	stratRange4
	stratRange6
)

// strategy is one compiled whitelist pattern.
type strategy struct {
	kind  strategyKind
	set   []netip.Addr
	head  []int // range: the literal octets (IPv4) or 16-bit groups (IPv6) before the range; -1 never matches
	lo    int
	hi    int
	index int // range: position of the ranged octet or group
}

func (s *strategy) match(ip netip.Addr) bool {
	switch s.kind {
	case stratAll:
		return true
	case stratSet:
		for _, a := range s.set {
			if a == ip {
				return true
			}
		}
	case stratRange4:
		if !ip.Is4() {
			return false
		}
		b := ip.As4()
		for i, h := range s.head {
			if int(b[i]) != h {
				return false
			}
		}
		v := int(b[s.index])
		return v >= s.lo && v <= s.hi
	case stratRange6:
		if !ip.Is6() || ip.Is4In6() {
			return false
		}
		b := ip.As16() // compileRange6 keeps index below 8
		for i, h := range s.head {
			if int(b[2*i])<<8|int(b[2*i+1]) != h {
				return false
			}
		}
		v := int(b[2*s.index])<<8 | int(b[2*s.index+1])
		return v >= s.lo && v <= s.hi
	}
	return false
}

func examineErr(addr string) error {
	return javaErrorf("Netaddress examine scope Exception netaddress is %s", addr)
}

// parseIP accepts what commons-validator's InetAddressValidator accepts (close enough:
// canonical dotted IPv4 without leading zeros, IPv6 in any standard notation).
func parseIP(s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone(""), true
}

// compileStrategy compiles one pattern (Java: RemoteAddressStrategyFactory#getRemoteAddressStrategy).
func compileStrategy(p string) (strategy, error) {
	if strings.TrimSpace(p) == "" {
		return strategy{kind: stratBlank}, nil
	}
	if p == "*" || p == "*.*.*.*" || p == "*:*:*:*:*:*:*:*" {
		return strategy{kind: stratAll}, nil
	}
	if strings.HasSuffix(p, "}") {
		var last string
		if strings.Contains(p, ":") {
			parts := splitNonEmpty(p, ':')
			last = parts[len(parts)-1]
		} else {
			parts := splitNonEmpty(p, '.')
			if len(parts) < 4 {
				return strategy{}, fmt.Errorf("MultipleRemoteAddressStrategy has got a/some wrong format IP(s) ")
			}
			last = parts[len(parts)-1]
		}
		if !strings.HasPrefix(last, "{") {
			return strategy{}, fmt.Errorf("MultipleRemoteAddressStrategy netaddress examine scope Exception netaddress")
		}
		prefix := p[:strings.IndexByte(p, '{')]
		var addrs []string
		for _, x := range splitNonEmpty(last[1:len(last)-1], ',') {
			addrs = append(addrs, prefix+x)
		}
		return compileSet(addrs)
	}
	if strings.Contains(p, ",") {
		return compileSet(splitNonEmpty(p, ','))
	}
	if strings.ContainsAny(p, "*-") {
		if strings.Contains(p, ":") {
			return compileRange6(p)
		}
		return compileRange4(p)
	}
	a, ok := parseIP(p)
	if !ok {
		return strategy{}, javaErrorf("Netaddress examine Exception netaddress is %s", p)
	}
	return strategy{kind: stratSet, set: []netip.Addr{a}}, nil
}

func compileSet(addrs []string) (strategy, error) {
	s := strategy{kind: stratSet}
	for _, x := range addrs {
		a, ok := parseIP(x)
		if !ok {
			return strategy{}, javaErrorf("Netaddress examine Exception netaddress is %s", x)
		}
		s.set = append(s.set, a)
	}
	return s, nil
}

// rangeToken reads "*" or "lo-hi" in base; ok=false for a literal.
func rangeToken(p, v string, base, maxV int) (lo, hi int, ok bool, err error) {
	v = strings.TrimSpace(v)
	if v == "*" {
		return 0, maxV, true, nil
	}
	if !strings.Contains(v, "-") {
		return 0, 0, false, nil
	}
	if strings.IndexByte(v, '-') == 0 {
		return 0, 0, false, fmt.Errorf("RangeRemoteAddressStrategy netaddress examine scope Exception value %s ", v)
	}
	parts := splitNonEmpty(v, '-')
	if len(parts) < 2 {
		return 0, 0, false, javaErrorf("For input string: %q", v)
	}
	a, err1 := strconv.ParseInt(parts[0], base, 32)
	b, err2 := strconv.ParseInt(parts[1], base, 32)
	if err1 != nil || err2 != nil {
		return 0, 0, false, javaErrorf("For input string: %q", v)
	}
	if a < 0 || b < 0 || a > int64(maxV) || b > int64(maxV) || a > b {
		return 0, 0, false, fmt.Errorf("RangeRemoteAddressStrategy netaddress examine scope Exception start is %d , end is %d", a, b)
	}
	// Java's analysis() reports "found" only when end > 0.
	return int(a), int(b), b > 0, nil
}

func compileRange4(p string) (strategy, error) {
	parts := splitNonEmpty(p, '.')
	for i := 1; i <= 3 && i < len(parts); i++ {
		lo, hi, ok, err := rangeToken(p, parts[i], 10, 255)
		if err != nil {
			return strategy{}, err
		}
		if !ok {
			continue
		}
		if len(parts) != 4 {
			return strategy{}, examineErr(p)
		}
		s := strategy{kind: stratRange4, lo: lo, hi: hi, index: i}
		for j := 0; j < i; j++ {
			t := strings.TrimSpace(parts[j])
			n, err := strconv.Atoi(t)
			if err != nil {
				return strategy{}, javaErrorf("For input string: %q", t)
			}
			if n < 0 || n > 255 {
				return strategy{}, examineErr(p)
			}
			if strconv.Itoa(n) != t { // "01" never equals a client's dotted octet
				n = -1
			}
			s.head = append(s.head, n)
		}
		return s, nil
	}
	return strategy{}, examineErr(p)
}

// compileRange6 follows AclUtils#IPv6AddressCheck, #v6ipProcess and the IPv6 branch of
// RangeRemoteAddressStrategy: the range sits on the group after the expanded prefix.
func compileRange6(p string) (strategy, error) {
	ast, minus := strings.IndexByte(p, '*'), strings.IndexByte(p, '-')
	if ast > -1 && ast != len(p)-1 {
		return strategy{}, examineErr(p)
	}
	last := strings.LastIndexByte(p, ':')
	second := strings.LastIndexByte(p[:last], ':') // the group before the last: -1 when none
	if minus > -1 {
		if ast == -1 && minus <= last {
			return strategy{}, examineErr(p)
		}
		// "a-b:*" ranges the group before the '*': there must be one, after a ':' ("-:*"
		// has none; the fuzzer found it panicking here).
		if ast > -1 && (second < 0 || minus <= second) {
			return strategy{}, examineErr(p)
		}
	}
	var prefix, tok string
	part := 7
	if ast > -1 && minus > -1 {
		part = 6
		prefix, tok = p[:second], p[second+1:last]
	} else {
		prefix, tok = p[:last], p[last+1:]
	}
	lo, hi, ok, err := rangeToken(p, tok, 16, 0xffff)
	if err != nil {
		return strategy{}, err
	}
	if !ok {
		return strategy{}, examineErr(p)
	}
	groups, err := expandGroups(prefix, part)
	if err != nil {
		return strategy{}, examineErr(p)
	}
	if len(groups) >= 8 {
		// The range would be a ninth group or later (":::::::::*" expands to nine groups
		// before it): no address has one, so the pattern never matches. match read past
		// the address's sixteen bytes for it (found by FuzzACL_CompileStrategy).
		return strategy{kind: stratBlank}, nil
	}
	return strategy{kind: stratRange6, head: groups, lo: lo, hi: hi, index: len(groups)}, nil
}

// expandGroups expands an IPv6 prefix ("2001:db8::5") to part groups, as AclUtils#expandIP.
func expandGroups(s string, part int) ([]int, error) {
	if i := strings.Index(s, "::"); i >= 0 {
		pad := part - strings.Count(s, ":")
		if pad > 0 {
			s = s[:i] + strings.Repeat(":", pad+1) + s[i+2:]
		}
	}
	var out []int
	for _, g := range strings.Split(s, ":") {
		if g == "" {
			g = "0"
		}
		n, err := strconv.ParseUint(g, 16, 16)
		if err != nil {
			return nil, err
		}
		out = append(out, int(n))
	}
	return out, nil
}
