package acl

// The per-request check (Java: PlainAccessValidator#parse, PlainPermissionManager#validate
// and #checkPerm, 4.9.8), in Java's order, with Java's remarks.

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// Wire keys of the credentials (Java: SessionCredentials) and the flag that 4.9.8's
// broker leaves out of the signed content (Java: MixAll.UNIQUE_MSG_QUERY_FLAG).
const (
	KeyAccessKey     = "AccessKey"
	KeySignature     = "Signature"
	KeySecurityToken = "SecurityToken"
	keyUniqueQuery   = "_UNIQUE_KEY_QUERY"
)

// Options configures a Validator.
type Options struct {
	// Home is Java's rocketmq.home.dir / ROCKETMQ_HOME: the files are under Home/conf.
	Home string
	// PlainFile is the default file, relative to Home (Java: -Drocketmq.acl.plain.file,
	// default conf/plain_acl.yml).
	PlainFile string
	// WatchInterval is how often the files are looked at (Java: 5000 ms).
	WatchInterval time.Duration
	Logger        zerolog.Logger
}

// Validator holds the loaded ACL and checks requests against it. Safe for concurrent use.
type Validator struct {
	home, dir, defaultFile, toolsFile string
	interval                          time.Duration
	log                               zerolog.Logger

	cur  atomic.Pointer[snapshot]
	mu   sync.Mutex // serializes reloads and admin changes (Java: the synchronized admin handlers)
	bufs sync.Pool  // *[]byte: the signed content

	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	started atomic.Bool
}

// ErrNoHome is returned by New when Options.Home is empty.
var ErrNoHome = errors.New("acl: aclEnable=true needs rocketmqHome (ROCKETMQ_HOME): the ACL files are ${ROCKETMQ_HOME}/conf/plain_acl.yml and ${ROCKETMQ_HOME}/conf/acl/*.yml")

// New loads the ACL files, creating an empty default file when it is missing as Java
// does. A file that does not load is an error (Java logs it and runs without ACL).
func New(o Options) (*Validator, error) {
	if o.Home == "" {
		return nil, ErrNoHome
	}
	if o.PlainFile == "" {
		o.PlainFile = "conf/plain_acl.yml"
	}
	if o.WatchInterval <= 0 {
		o.WatchInterval = 5 * time.Second
	}
	home := filepath.Clean(o.Home)
	v := &Validator{home: home, dir: filepath.Join(home, "conf", "acl"), defaultFile: filepath.Join(home, o.PlainFile),
		interval: o.WatchInterval, log: o.Logger, stop: make(chan struct{}), done: make(chan struct{})}
	v.toolsFile = filepath.Join(v.dir, "tools.yml") // AclFileWatchService skips it
	if _, err := os.Stat(v.defaultFile); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(v.defaultFile), 0o755); err != nil {
			return nil, fmt.Errorf("acl: create %s: %w", v.defaultFile, err)
		}
		f, err := os.OpenFile(v.defaultFile, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("acl: create %s: %w", v.defaultFile, err)
		}
		_ = f.Close()
	}
	s, err := v.load()
	if err != nil {
		return nil, fmt.Errorf("acl: %w", err)
	}
	v.cur.Store(s)
	return v, nil
}

// DefaultFile is the path of plain_acl.yml.
func (v *Validator) DefaultFile() string { return v.defaultFile }

// Home is the ROCKETMQ_HOME the files are under.
func (v *Validator) Home() string { return v.home }

// Remarks: the AclException's toString plus its first stack frame, as Java's
// RemotingHelper#exceptionSimpleDesc writes them.
const (
	aclException = "org.apache.rocketmq.acl.common.AclException"
	framePPM     = "org.apache.rocketmq.acl.plain.PlainPermissionManager."
	frameParse   = "org.apache.rocketmq.acl.plain.PlainAccessValidator.parse(PlainAccessValidator.java:134)"
)

func refusal(msg, frame string) *protocol.Error {
	if msg == "" {
		return &protocol.Error{Code: protocol.ResSystemError, Remark: aclException + ", " + frame}
	}
	return &protocol.Error{Code: protocol.ResSystemError, Remark: aclException + ": " + msg + ", " + frame}
}

func validateFrame(line int) string {
	return fmt.Sprintf("%svalidate(PlainPermissionManager.java:%d)", framePPM, line)
}

// resource is one resource a request needs. Groups are named without %RETRY%.
type resource struct {
	name  string
	group bool
	perm  Perm
}

func addResource(res []resource, name string, perm Perm) []resource {
	group := strings.HasPrefix(name, retryPrefix)
	if group {
		name = name[len(retryPrefix):]
	}
	for i := range res {
		if res[i].name == name && res[i].group == group {
			res[i].perm = perm // Java's HashMap#put keeps the first position
			return res
		}
	}
	return append(res, resource{name: name, group: group, perm: perm})
}

func addGroup(res []resource, group string, perm Perm) []resource {
	for i := range res {
		if res[i].name == group && res[i].group {
			res[i].perm = perm
			return res
		}
	}
	return append(res, resource{name: group, group: true, perm: perm})
}

// Check validates one request from remote ("ip:port"). It answers nil or the refusal
// Java's broker answers (code 1 and the AclException remark).
func (v *Validator) Check(code int32, ext protocol.Ext, body []byte, remote string) *protocol.Error {
	var fixed [2]resource
	res := fixed[:0]
	// Java: PlainAccessValidator#parse, the resources each code needs.
	switch protocol.RequestCode(code) {
	case protocol.CodeSendMessage:
		if topic, ok := ext.Get("topic"); ok {
			if strings.HasPrefix(topic, retryPrefix) {
				// The SEND_MESSAGE header has no "group" (it is producerGroup): in practice
				// nothing is added, as in Java.
				if g, ok := ext.Get("group"); ok {
					res = addGroup(res, g, PermSub)
				}
			} else {
				res = addResource(res, topic, PermPub)
			}
		}
	case protocol.CodeSendMessageV2:
		if topic, ok := ext.Get("b"); ok {
			if strings.HasPrefix(topic, retryPrefix) {
				if g, ok := ext.Get("a"); ok {
					res = addGroup(res, g, PermSub)
				}
			} else {
				res = addResource(res, topic, PermPub)
			}
		}
	case protocol.CodeConsumerSendMsgBack:
		if g, ok := ext.Get("group"); ok {
			res = addGroup(res, g, PermSub)
		}
	case protocol.CodePullMessage:
		if t, ok := ext.Get("topic"); ok {
			res = addResource(res, t, PermSub)
		}
		if g, ok := ext.Get("consumerGroup"); ok {
			res = addGroup(res, g, PermSub)
		}
	case protocol.CodeQueryMessage:
		if t, ok := ext.Get("topic"); ok {
			res = addResource(res, t, PermSub)
		}
	case protocol.CodeHeartBeat:
		var err *protocol.Error
		if res, err = heartbeatResources(res, body); err != nil {
			return err
		}
	case protocol.CodeUnregisterClient, protocol.CodeGetConsumerListByGroup:
		if g, ok := ext.Get("consumerGroup"); ok {
			res = addGroup(res, g, PermSub)
		}
	case protocol.CodeUpdateConsumerOffset:
		if g, ok := ext.Get("consumerGroup"); ok {
			res = addGroup(res, g, PermSub)
		}
		if t, ok := ext.Get("topic"); ok {
			res = addResource(res, t, PermSub)
		}
	}

	s := v.cur.Load()
	ip := clientIP(remote)
	// 1. The global whitelist allows everything.
	for i := range s.global {
		if s.global[i].match(ip) {
			return nil
		}
	}
	ak, ok := ext.Get(KeyAccessKey)
	if !ok {
		return refusal("No accessKey is configured", validateFrame(664))
	}
	a := s.accounts[ak]
	if a == nil {
		if s.stale[ak] {
			return refusal("No PlainAccessResource for accessKey="+ak, validateFrame(675))
		}
		return refusal("No acl config for "+ak, validateFrame(668))
	}
	// 5. The account's whitelist skips the signature and the permissions.
	if a.white.match(ip) {
		return nil
	}
	// 6. The signature.
	if !v.signatureOK(a, ext, body) {
		return refusal("Check signature failed for accessKey="+ak, validateFrame(684))
	}
	// 7. Publishing to the trace topic needs no permission.
	for i := range res {
		if !res[i].group && res[i].name == traceTopic && res[i].perm == PermPub {
			return nil
		}
	}
	return checkPerm(code, res, a)
}

// checkPerm is Java's PlainPermissionManager#checkPerm.
func checkPerm(code int32, res []resource, a *account) *protocol.Error {
	if adminCode(code) && !a.admin {
		return refusal(fmt.Sprintf("Need admin permission for request code=%d, but accessKey=%s is not", code, a.accessKey),
			framePPM+"checkPerm(PlainPermissionManager.java:581)")
	}
	if len(res) == 0 || (a.admin && !a.hasPerms) {
		return nil
	}
	failed := -1
	for i := range res {
		if !allowed(a, res[i]) {
			failed = i
			break
		}
	}
	if failed < 0 {
		return nil
	}
	// Java walks a HashMap: when several resources fail, the one it reports is the
	// first failing one in that map's iteration order.
	for _, i := range javaHashOrder(res) {
		if !allowed(a, res[i]) {
			failed = i
			break
		}
	}
	r := res[failed]
	line := 611
	if _, own := a.perm(r.name, r.group); !own {
		line = 606
	}
	kind := "topic:"
	if r.group {
		kind = "group:"
	}
	return refusal("No default permission for "+kind+r.name, fmt.Sprintf("%scheckPerm(PlainPermissionManager.java:%d)", framePPM, line))
}

func allowed(a *account, r resource) bool {
	owned, ok := a.perm(r.name, r.group)
	if !ok {
		owned = a.defaultTopic
		if r.group {
			owned = a.defaultGroup
		}
	}
	return checkPermission(r.perm, owned)
}

func heartbeatResources(res []resource, body []byte) ([]resource, *protocol.Error) {
	if len(body) == 0 {
		// Java: new String(null body) throws a NullPointerException without a message.
		return res, refusal("", frameParse)
	}
	var hb protocol.HeartbeatData
	if err := protocol.UnmarshalBody(body, &hb); err != nil {
		return res, refusal(err.Error(), frameParse)
	}
	for _, c := range hb.ConsumerDataSet {
		if c.GroupName != "" {
			res = addGroup(res, c.GroupName, PermSub)
		}
		for _, sd := range c.SubscriptionDataSet {
			if sd.Topic != "" {
				res = addResource(res, sd.Topic, PermSub)
			}
		}
	}
	return res, nil
}

// clientIP is the text before the last ':' of "ip:port", parsed (Java: PlainAccessValidator#parse).
func clientIP(remote string) netip.Addr {
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		return ap.Addr().WithZone("")
	}
	if a, err := netip.ParseAddr(remote); err == nil {
		return a
	}
	return netip.Addr{}
}

// signatureOK recomputes the signature over the sorted extFields (without Signature and
// _UNIQUE_KEY_QUERY) plus the body, and compares it with the sent one. A signature over
// the content with _UNIQUE_KEY_QUERY is accepted too: Java 4.9.4+ clients sign it
// (apache/rocketmq#5310), and Java's broker then refuses their query by key.
func (v *Validator) signatureOK(a *account, ext protocol.Ext, body []byte) bool {
	sent, ok := ext.Get(KeySignature)
	if !ok || len(sent) != base64.StdEncoding.EncodedLen(20) {
		return false
	}
	if v.sign(a, ext, body, false, sent) {
		return true
	}
	if _, ok := ext.Get(keyUniqueQuery); ok {
		return v.sign(a, ext, body, true, sent)
	}
	return false
}

// sigScratch is the per-request signature buffer, pooled.
type sigScratch struct {
	content []byte
	order   []int
	sum     [20]byte
	b64     [28]byte
}

func (v *Validator) sign(a *account, ext protocol.Ext, body []byte, withUnique bool, sent string) bool {
	sc, _ := v.bufs.Get().(*sigScratch)
	if sc == nil {
		sc = &sigScratch{content: make([]byte, 0, 512), order: make([]int, 0, 32)}
	}
	sc.content = appendContent(sc.content[:0], &sc.order, ext, withUnique)
	m := a.mac()
	m.Reset()
	m.Write(sc.content)
	m.Write(body)
	m.Sum(sc.sum[:0])
	a.macs.Put(m)
	base64.StdEncoding.Encode(sc.b64[:], sc.sum[:])
	ok := subtle.ConstantTimeCompare(sc.b64[:], []byte(sent)) == 1
	v.bufs.Put(sc)
	return ok
}

// appendContent appends the values of ext sorted by key, leaving out Signature (and
// _UNIQUE_KEY_QUERY unless withUnique). A key present twice counts once, with its last
// value (Java's extFields is a map).
func appendContent(dst []byte, order *[]int, ext protocol.Ext, withUnique bool) []byte {
	o := (*order)[:0]
	for i := range ext {
		k := ext[i].Key
		if k == KeySignature || (!withUnique && k == keyUniqueQuery) {
			continue
		}
		o = append(o, i)
	}
	// insertion sort: a request has a few dozen fields at most
	for i := 1; i < len(o); i++ {
		for j := i; j > 0 && ext[o[j]].Key < ext[o[j-1]].Key; j-- {
			o[j], o[j-1] = o[j-1], o[j]
		}
	}
	for i, idx := range o {
		if i+1 < len(o) && ext[o[i+1]].Key == ext[idx].Key {
			continue // a later duplicate wins (the sort is stable)
		}
		dst = append(dst, ext[idx].Value...)
	}
	*order = o
	return dst
}

// Sign returns the signature a client sends: Base64(HmacSHA1(secretKey, sorted values +
// body)) over ext as given (Java: AclClientRPCHook, 4.9.4+). For tests and load generators.
func Sign(secretKey string, ext protocol.Ext, body []byte) string {
	a := &account{secretKey: secretKey}
	var order []int
	content := appendContent(nil, &order, ext, true)
	m := a.mac()
	m.Write(content)
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Signer signs requests with one secret key, reusing its HMAC and buffers: a client's
// per-connection signer (load generators). Not safe for concurrent use.
type Signer struct {
	mac     hash.Hash
	content []byte
	order   []int
	sum     [20]byte
	b64     [28]byte
}

// NewSigner returns a Signer for secretKey.
func NewSigner(secretKey string) *Signer {
	return &Signer{mac: hmac.New(sha1.New, []byte(secretKey))}
}

// Sign is Sign(secretKey, ext, body) without the per-call HMAC setup; the only allocation
// is the returned string.
func (s *Signer) Sign(ext protocol.Ext, body []byte) string {
	s.content = appendContent(s.content[:0], &s.order, ext, true)
	s.mac.Reset()
	s.mac.Write(s.content)
	s.mac.Write(body)
	s.mac.Sum(s.sum[:0])
	base64.StdEncoding.Encode(s.b64[:], s.sum[:])
	return string(s.b64[:])
}
