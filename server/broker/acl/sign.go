package acl

// The signature, as a Java 4.9.4+ client makes it and the 4.9.8 broker checks it (Java:
// AclClientRPCHook#doBeforeRequest, AclUtils#combineRequestContent, AclSigner):
// Base64(HmacSHA1(secretKey, the extFields' values in key order, then the body)).
//
// Cost (BenchmarkCheck_* against BenchmarkHMACFloor, bench_test.go): the HMAC over the
// values and the body is the floor, about 1 µs for a 1 KiB send on SHA-NI hardware; the
// rest is kept to the sort of a few dozen keys and one copy of their values:
//   - the HMAC is keyed once per account and pooled: Reset restores the precomputed
//     ipad state (crypto/hmac marshals it), so no per-request key schedule;
//   - the keys are sorted by their first 8 bytes as one integer (a full comparison only
//     on a tie), an insertion sort that is linear for the Go client's nearly sorted
//     headers and ~n²/4 integer comparisons for a Java client's HashMap order;
//   - the values are copied into one buffer and hashed in one Write with the body (one
//     Write per value costs more than the copy).

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"hash"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// sigLen is the length of a Base64 HmacSHA1: 28 characters ending in '='.
const sigLen = 28

// signState is one account's keyed HMAC-SHA1 and the buffers of a signature.
type signState struct {
	mac     hash.Hash
	content []byte
	keys    []sortKey
	sum     [sha1.Size]byte
	b64     [sigLen]byte
}

func newSignState(secretKey string) *signState {
	return &signState{mac: hmac.New(sha1.New, []byte(secretKey)), content: make([]byte, 0, 512), keys: make([]sortKey, 0, 32)}
}

// signature computes the signature of ext (without Signature, and without
// _UNIQUE_KEY_QUERY unless withUnique) and body into st.b64.
func (st *signState) signature(ext protocol.Ext, body []byte, withUnique bool) []byte {
	st.content = appendContent(st.content[:0], &st.keys, ext, withUnique)
	st.mac.Reset()
	st.mac.Write(st.content)
	st.mac.Write(body)
	st.mac.Sum(st.sum[:0])
	base64.StdEncoding.Encode(st.b64[:], st.sum[:])
	return st.b64[:]
}

// state takes a signing state keyed with the account's secret key from its pool.
func (a *account) state() *signState {
	if st, ok := a.states.Get().(*signState); ok {
		return st
	}
	return newSignState(a.secretKey)
}

// signatureOK recomputes the signature over the sorted extFields (without Signature and
// _UNIQUE_KEY_QUERY) plus the body, and compares it with the sent one. A signature over
// the content with _UNIQUE_KEY_QUERY is accepted too: Java 4.9.4+ clients sign it
// (apache/rocketmq#5310), and Java's broker then refuses their query by key.
func signatureOK(a *account, ext protocol.Ext, body []byte) bool {
	sent, ok := ext.Get(KeySignature)
	if !ok || len(sent) != sigLen {
		return false
	}
	st := a.state()
	ok = subtle.ConstantTimeCompare(st.signature(ext, body, false), []byte(sent)) == 1
	if !ok {
		if _, unique := ext.Get(keyUniqueQuery); unique {
			ok = subtle.ConstantTimeCompare(st.signature(ext, body, true), []byte(sent)) == 1
		}
	}
	a.states.Put(st)
	return ok
}

// sortKey is one extFields entry to sign: its index and its key's first 8 bytes as a
// big-endian integer, zero-padded. Two keys whose prefixes differ compare as the
// prefixes do (byte order, which is Java's String#compareTo order for the ASCII keys of
// every header); equal prefixes fall back to comparing the keys.
type sortKey struct {
	prefix uint64
	idx    int
}

func keyPrefix(k string) uint64 {
	var p uint64
	n := min(len(k), 8)
	for i := 0; i < n; i++ {
		p |= uint64(k[i]) << (56 - 8*uint(i))
	}
	return p
}

func keyLess(ext protocol.Ext, a, b sortKey) bool {
	if a.prefix != b.prefix {
		return a.prefix < b.prefix
	}
	return ext[a.idx].Key < ext[b.idx].Key
}

// appendContent appends the values of ext sorted by key, leaving out Signature (and
// _UNIQUE_KEY_QUERY unless withUnique). A key present twice counts once, with its last
// value (Java's extFields is a map).
func appendContent(dst []byte, keys *[]sortKey, ext protocol.Ext, withUnique bool) []byte {
	ks := (*keys)[:0]
	for i := range ext {
		k := ext[i].Key
		if k == KeySignature || (!withUnique && k == keyUniqueQuery) {
			continue
		}
		ks = append(ks, sortKey{prefix: keyPrefix(k), idx: i})
	}
	// insertion sort, stable: a request has a few dozen fields at most
	for i := 1; i < len(ks); i++ {
		x := ks[i]
		j := i
		for ; j > 0 && keyLess(ext, x, ks[j-1]); j-- {
			ks[j] = ks[j-1]
		}
		ks[j] = x
	}
	for i, k := range ks {
		if i+1 < len(ks) && ks[i+1].prefix == k.prefix && ext[ks[i+1].idx].Key == ext[k.idx].Key {
			continue // a later duplicate wins (the sort is stable)
		}
		dst = append(dst, ext[k.idx].Value...)
	}
	*keys = ks
	return dst
}

// Sign returns the signature a client sends: Base64(HmacSHA1(secretKey, sorted values +
// body)) over ext as given (Java: AclClientRPCHook, 4.9.4+). For tests and load generators.
func Sign(secretKey string, ext protocol.Ext, body []byte) string {
	return string(newSignState(secretKey).signature(ext, body, true))
}

// Signer signs requests with one secret key, reusing its HMAC and buffers: a client's
// per-connection signer (load generators). Not safe for concurrent use.
type Signer struct{ st *signState }

// NewSigner returns a Signer for secretKey.
func NewSigner(secretKey string) *Signer { return &Signer{st: newSignState(secretKey)} }

// Sign is Sign(secretKey, ext, body) without the per-call HMAC setup; the only allocation
// is the returned string.
func (s *Signer) Sign(ext protocol.Ext, body []byte) string {
	return string(s.st.signature(ext, body, true))
}
