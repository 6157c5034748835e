package conformance

// ACL (aclEnable=true, plain_acl.yml) with the real Go client's WithCredentials and raw
// signed requests: accepted with the right keys, refused by permission, by the absence of
// a key (no whitelist match), by a wrong signature and by an unknown key, with Java
// 4.9.8's code (1) and remarks; the admin codes 50-53 change the file and take effect.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/broker/acl"
)

// aclYAML is the plain_acl.yml of the ACL tests (and of the differential ACL run).
const aclYAML = `accounts:
  - accessKey: aclAllowed
    secretKey: allowedSecret
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: SUB
    topicPerms:
      - AclDenied=DENY
      - AclSubOnly=SUB
    groupPerms:
      - AclDeniedGroup=DENY
  - accessKey: aclNoPerms
    secretKey: noPermsSecret
    defaultTopicPerm: DENY
    defaultGroupPerm: DENY
  - accessKey: aclAdminKey
    secretKey: adminSecret
    admin: true
  - accessKey: aclLocalWhite
    secretKey: localSecret
    whiteRemoteAddress: 127.0.0.1
    defaultTopicPerm: DENY
`

const aclRemark = "org.apache.rocketmq.acl.common.AclException: "

// startACLCluster starts a cluster whose broker has aclEnable=true and home/conf/plain_acl.yml.
func startACLCluster(t *testing.T, yml string) (*cluster, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "conf", "plain_acl.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, func(o *broker.Options) {
		cfg := o.Config.Clone()
		cfg.Broker.ACLEnable = true
		cfg.Broker.RocketmqHome = home
		o.Config = cfg
		o.ACLWatchInterval = 100 * time.Millisecond
	})
	return c, home
}

// signedReq signs a raw request as a 4.9.4+ Java client does (AccessKey added, then every
// extField and the body signed).
func signedReq(c *protocol.Command, ak, sk string) *protocol.Command {
	c.Ext.Set(acl.KeyAccessKey, ak)
	c.Ext.Set(acl.KeySignature, acl.Sign(sk, c.Ext, c.Body))
	return c
}

func TestConformance_ACL_GoClient(t *testing.T) {
	c, _ := startACLCluster(t, aclYAML)
	creds := func(ak, sk string) producer.Option {
		return producer.WithCredentials(primitive.Credentials{AccessKey: ak, SecretKey: sk})
	}
	topic := unique("AclT")

	// Accepted with the right keys: send, then consume with a push consumer.
	p := newProducer(t, c.nsAddr(), creds("aclAllowed", "allowedSecret"))
	const n = 5
	for i := 0; i < n; i++ {
		if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("acl-%d", i)))); err != nil {
			t.Fatalf("allowed send %d: %v", i, err)
		}
	}
	got := newReceived()
	pc, err := consumer.NewPushConsumer(consumer.WithGroupName(unique("AclCG")), consumer.WithInstance(unique("c")),
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{c.nsAddr()})),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
		consumer.WithCredentials(primitive.Credentials{AccessKey: "aclAllowed", SecretKey: "allowedSecret"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.Subscribe(topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "*"}, func(_ context.Context, ms ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		got.add(ms...)
		return consumer.ConsumeSuccess, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := pc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pc.Shutdown() }()
	eventually(t, 30*time.Second, "the allowed consumer reads every message", func() bool { d, _ := got.count(); return d == n })

	// Refused sends, with Java's remarks.
	refused := []struct {
		name   string
		opt    producer.Option
		topic  string
		remark string
	}{
		{"permission", creds("aclAllowed", "allowedSecret"), "AclDenied",
			"No default permission for topic:AclDenied, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)"},
		{"default permission", creds("aclNoPerms", "noPermsSecret"), topic,
			"No default permission for topic:" + topic + ", org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:606)"},
		{"wrong signature", creds("aclAllowed", "wrongSecret"), topic,
			"Check signature failed for accessKey=aclAllowed, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)"},
		{"unknown key", creds("aclNobody", "whatever1"), topic,
			"No acl config for aclNobody, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:668)"},
		{"no key, no whitelist", nil, topic,
			"No accessKey is configured, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:664)"},
	}
	for _, r := range refused {
		var opts []producer.Option
		if r.opt != nil {
			opts = append(opts, r.opt)
		}
		rp := newProducer(t, c.nsAddr(), opts...)
		_, err := rp.SendSync(context.Background(), primitive.NewMessage(r.topic, []byte("x")))
		if err == nil || !strings.Contains(err.Error(), "CODE: 1, DESC: "+aclRemark+r.remark) {
			t.Errorf("%s: err = %v\nwant CODE: 1 and %q", r.name, err, r.remark)
		}
	}
}

func TestConformance_ACL_RawRequestsAndAdmin(t *testing.T) {
	c, home := startACLCluster(t, aclYAML)
	w := newWire(t, c.opts.ListenAddr)
	do := func(r *protocol.Command) *protocol.Command {
		t.Helper()
		resp, err := w.cl.Invoke(context.Background(), w.addr, r, 15*time.Second)
		if err != nil {
			t.Fatalf("%d: %v", r.Code, err)
		}
		return resp
	}
	expect := func(name string, resp *protocol.Command, code protocol.ResponseCode, remark string) {
		t.Helper()
		if resp.ResponseCode() != code || (remark != "" && resp.Remark != remark) {
			t.Errorf("%s: got %d %q, want %d %q", name, resp.ResponseCode(), resp.Remark, code, remark)
		}
	}
	frame := func(m string, line int) string {
		return fmt.Sprintf("org.apache.rocketmq.acl.plain.PlainPermissionManager.%s(PlainPermissionManager.java:%d)", m, line)
	}

	// A pull for a denied group (the topic is allowed).
	expect("pull denied group", do(signedReq(req(protocol.CodePullMessage, "consumerGroup", "AclDeniedGroup", "topic", "AclT",
		"queueId", "0", "queueOffset", "0", "maxMsgNums", "1", "sysFlag", "0", "commitOffset", "0", "suspendTimeoutMillis", "0", "subVersion", "0"), "aclAllowed", "allowedSecret")),
		protocol.ResSystemError, aclRemark+"No default permission for group:AclDeniedGroup, "+frame("checkPerm", 611))
	// A SUB-only topic cannot be published to.
	expect("send SUB-only", do(signedReq(req(protocol.CodeSendMessageV2, "a", "PG", "b", "AclSubOnly", "c", "TBW102", "d", "4", "e", "0", "f", "0", "g", "1", "h", "0", "k", "false", "m", "false"), "aclAllowed", "allowedSecret")),
		protocol.ResSystemError, aclRemark+"No default permission for topic:AclSubOnly, "+frame("checkPerm", 611))
	// Admin-only code from a non-admin account; then from the admin account.
	create := func() *protocol.Command {
		return req(protocol.CodeUpdateAndCreateTopic, "topic", "AclAdminTopic", "defaultTopic", "TBW102", "readQueueNums", "4",
			"writeQueueNums", "4", "perm", "6", "topicFilterType", "SINGLE_TAG", "topicSysFlag", "0", "order", "false")
	}
	expect("non-admin create topic", do(signedReq(create(), "aclAllowed", "allowedSecret")),
		protocol.ResSystemError, aclRemark+"Need admin permission for request code=17, but accessKey=aclAllowed is not, "+frame("checkPerm", 581))
	expect("admin create topic", do(signedReq(create(), "aclAdminKey", "adminSecret")), protocol.ResSuccess, "")
	// Batch send is checked for its signature only (4.9.8): a DENY topic passes the ACL.
	batch := signedReq(req(protocol.CodeSendBatchMessage, "a", "PG", "b", "AclDenied", "c", "TBW102", "d", "4", "e", "0", "f", "0", "g", "1", "h", "0", "k", "false", "m", "false"), "aclAllowed", "allowedSecret")
	if resp := do(batch); strings.Contains(resp.Remark, "AclException") {
		t.Errorf("batch send refused by the ACL: %d %q", resp.ResponseCode(), resp.Remark)
	}
	// The account whitelist (127.0.0.1) skips the signature and the permissions.
	wl := req(protocol.CodeSendMessageV2, "a", "PG", "b", "AclWhiteTopic", "c", "TBW102", "d", "4", "e", "0", "f", "0", "g", "1", "h", "0", "k", "false", "m", "false")
	wl.Ext.Set(acl.KeyAccessKey, "aclLocalWhite")
	wl.Body = []byte("x")
	expect("account whitelist", do(wl), protocol.ResSuccess, "")
	// An unknown request code is checked first, as Java's hook runs before its default processor.
	expect("unknown code unsigned", do(req(protocol.RequestCode(9999))), protocol.ResSystemError, aclRemark+"No accessKey is configured, "+frame("validate", 664))
	expect("unknown code signed", do(signedReq(req(protocol.RequestCode(9999)), "aclAllowed", "allowedSecret")), protocol.ResRequestCodeNotSupported, "")

	// Admin codes 50-53 (signed by any valid account: none of them is admin-only).
	sign := func(r *protocol.Command) *protocol.Command { return signedReq(r, "aclAllowed", "allowedSecret") }
	expect("50 short secret", do(sign(req(protocol.CodeUpdateAndCreateAclConfig, "accessKey", "aclCreated", "secretKey", "short"))),
		protocol.ResUpdateAndCreateAclConfigFailed, "The accessKey=aclCreated and secretKey=short cannot be null and length should longer than 6")
	expect("50 create", do(sign(req(protocol.CodeUpdateAndCreateAclConfig, "accessKey", "aclCreated", "secretKey", "createdSecret",
		"defaultTopicPerm", "PUB", "topicPerms", "AclCreatedDenied=DENY", "admin", "false"))), protocol.ResSuccess, "")
	send := func(topic, ak, sk string) *protocol.Command {
		r := req(protocol.CodeSendMessageV2, "a", "PG", "b", topic, "c", "TBW102", "d", "4", "e", "0", "f", "0", "g", "1", "h", "0", "k", "false", "m", "false")
		r.Body = []byte("x")
		return do(signedReq(r, ak, sk))
	}
	expect("created account sends", send("AclCreatedTopic", "aclCreated", "createdSecret"), protocol.ResSuccess, "")
	expect("created account denied", send("AclCreatedDenied", "aclCreated", "createdSecret"), protocol.ResSystemError,
		aclRemark+"No default permission for topic:AclCreatedDenied, "+frame("checkPerm", 611))
	data, err := os.ReadFile(filepath.Join(home, "conf", "plain_acl.yml"))
	if err != nil || !strings.Contains(string(data), "aclCreated") || !strings.Contains(string(data), "dataVersion") {
		t.Fatalf("plain_acl.yml after 50: %v\n%s", err, data)
	}
	info := do(sign(req(protocol.CodeGetBrokerClusterAclInfo)))
	var h protocol.GetBrokerAclConfigResponseHeader
	if err := h.Decode(info.Ext); err != nil || info.ResponseCode() != protocol.ResSuccess ||
		!strings.HasPrefix(h.Version, `{"counter":1,"timestamp":`) || !strings.Contains(h.AllAclFileVersion, "plain_acl.yml") || h.BrokerName != "broker-a" {
		t.Errorf("52: %d %v %+v", info.ResponseCode(), err, h)
	}
	expect("51 unknown", do(sign(req(protocol.CodeDeleteAclConfig, "accessKey", "aclNobody"))), protocol.ResDeleteAclConfigFailed,
		"The accesskey[aclNobody] corresponding to accessConfig has been deleted failed.")
	expect("51 delete", do(sign(req(protocol.CodeDeleteAclConfig, "accessKey", "aclCreated"))), protocol.ResSuccess, "")
	expect("deleted account", send("AclCreatedTopic", "aclCreated", "createdSecret"), protocol.ResSystemError,
		aclRemark+"No acl config for aclCreated, "+frame("validate", 668))
	expect("53 outside home", do(sign(req(protocol.CodeUpdateGlobalWhiteAddrsConfig, "globalWhiteAddrs", "127.0.0.1", "aclFileFullPath", "/etc/passwd"))),
		protocol.ResUpdateGlobalWhiteAddrsConfigFailed, "The globalWhiteAddresses[127.0.0.1] has been updated failed.")
	expect("53", do(sign(req(protocol.CodeUpdateGlobalWhiteAddrsConfig, "globalWhiteAddrs", "127.0.0.1", "aclFileFullPath", filepath.Join(home, "conf", "plain_acl.yml")))),
		protocol.ResSuccess, "")
	expect("globally whitelisted, unsigned", send2(do, "AclDenied"), protocol.ResSuccess, "")

	// Hot reload: the file edited by hand is picked up by the watcher.
	file := filepath.Join(home, "conf", "plain_acl.yml")
	later := time.Now().Add(2 * time.Second)
	if err := os.WriteFile(file, []byte(aclYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the edited file is reloaded (the global whitelist is gone)", func() bool {
		return strings.Contains(send2(do, "AclDenied").Remark, "No accessKey is configured")
	})
}

// send2 sends an unsigned SEND_MESSAGE_V2.
func send2(do func(*protocol.Command) *protocol.Command, topic string) *protocol.Command {
	r := req(protocol.CodeSendMessageV2, "a", "PG", "b", topic, "c", "TBW102", "d", "4", "e", "0", "f", "0", "g", "1", "h", "0", "k", "false", "m", "false")
	r.Body = []byte("x")
	return do(r)
}
