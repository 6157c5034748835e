package acl

// The per-request check (Java: PlainAccessValidator#parse, PlainPermissionManager#validate
// and #checkPerm, 4.9.8), in Java's order, with Java's remarks.

import (
	"errors"
	"fmt"
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

	cur atomic.Pointer[snapshot]
	mu  sync.Mutex // serializes reloads and admin changes (Java: the synchronized admin handlers)

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
	// The client's address is parsed only when a whitelist pattern needs it.
	var ip netip.Addr
	parsed := false
	// 1. The global whitelist allows everything.
	for i := range s.global {
		if !parsed {
			ip, parsed = clientIP(remote), true
		}
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
	if a.white.kind != stratBlank {
		if !parsed {
			ip = clientIP(remote)
		}
		if a.white.match(ip) {
			return nil
		}
	}
	// 6. The signature.
	if !signatureOK(a, ext, body) {
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
