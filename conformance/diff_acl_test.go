package conformance

// Differential ACL run: a Java 4.9.7 broker and a Skyrocket broker, both with aclEnable=true
// and the same plain_acl.yml (aclYAML), get the same raw requests signed as a 4.9.4+ Java
// client signs them; their codes and remarks must be equal. The remarks are compared
// without their last ", Class.method(File.java:NN)" frame: 4.9.7's PlainPermissionManager
// throws one line above 4.9.8's (Skyrocket writes 4.9.8's frames, which
// conformance/acl_test.go checks).

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	javaservers "github.com/skyrocket-mq/skyrocket/conformance/java"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

func TestDifferential_ACL(t *testing.T) {
	needJavaServers(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "home", "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "home", "conf", "plain_acl.yml"), []byte(aclYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := javaservers.Start(ctx, javaservers.Options{
		Dir:    dir,
		Broker: []string{"aclEnable=true", "mappedFileSizeCommitLog=67108864"},
		Heap:   "-Xms256m -Xmx256m -XX:MaxDirectMemorySize=256m",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stop the Java servers: %v", err)
		}
	})
	skyC, _ := startACLCluster(t, aclYAML)
	java := newSide(t, "java", srv.NamesrvAddr, srv.BrokerAddr)
	sky := newSide(t, "skyrocket", skyC.nsAddr(), skyC.opts.ListenAddr)
	d := newDiffer(t)

	const topic = "AclDiffT"
	for _, s := range []*side{java, sky} {
		r := s.call(t, s.broker, signedReq(req(protocol.CodeUpdateAndCreateTopic, "topic", topic, "defaultTopic", "TBW102", "readQueueNums", "4",
			"writeQueueNums", "4", "perm", "6", "topicFilterType", "SINGLE_TAG", "topicSysFlag", "0", "order", "false"), "aclAdminKey", "adminSecret"))
		if r.ResponseCode() != protocol.ResSuccess {
			t.Fatalf("%s: create %s as admin: %d %q", s.name, topic, r.Code, r.Remark)
		}
	}
	ok := props("TAGS", "TagA", "UNIQ_KEY", "00000000000000000000000000000001", "WAIT", "true")
	send := func(tp string) func() *protocol.Command {
		return func() *protocol.Command { return sendV2(tp, 0, 0, 0, ok, []byte("acl")) }
	}
	allowed := func(f func() *protocol.Command) func() *protocol.Command {
		return func() *protocol.Command { return signedReq(f(), "aclAllowed", "allowedSecret") }
	}
	as := func(ak, sk string, f func() *protocol.Command) func() *protocol.Command {
		return func() *protocol.Command { return signedReq(f(), ak, sk) }
	}
	fixed := func(c *protocol.Command) func() *protocol.Command { return func() *protocol.Command { return c } }
	heartbeat := func() *protocol.Command {
		c := req(protocol.CodeHeartBeat)
		c.Body = []byte(`{"clientID":"aclDiff","consumerDataSet":[{"groupName":"AclG1","consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING",` +
			`"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","subscriptionDataSet":[{"topic":"AclTopicX","subString":"*","tagsSet":[],"codeSet":[],"subVersion":1,"expressionType":"TAG"}],"unitMode":false},` +
			`{"groupName":"AclG2","consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","subscriptionDataSet":[],"unitMode":false}],"producerDataSet":[]}`)
		return c
	}
	cases := []struct {
		name     string
		req      func() *protocol.Command
		codeOnly bool // the request passes the ACL; what follows differs in details compared elsewhere
	}{
		{"unsigned", fixed(req(protocol.CodeGetConsumerListByGroup, "consumerGroup", "AclG")), false},
		{"unknown-key", as("aclNobody", "whatever1", func() *protocol.Command { return req(protocol.CodeGetConsumerListByGroup, "consumerGroup", "AclG") }), false},
		{"wrong-signature", as("aclAllowed", "wrongSecret", func() *protocol.Command { return req(protocol.CodeGetConsumerListByGroup, "consumerGroup", "AclG") }), false},
		{"body-tampered", func() *protocol.Command { c := allowed(send(topic))(); c.Body = []byte("ACL"); return c }, false},
		{"consumer-list-allowed", allowed(func() *protocol.Command { return req(protocol.CodeGetConsumerListByGroup, "consumerGroup", "AclG") }), false},
		{"consumer-list-denied-group", allowed(func() *protocol.Command {
			return req(protocol.CodeGetConsumerListByGroup, "consumerGroup", "AclDeniedGroup")
		}), false},
		{"send-allowed", allowed(send(topic)), true},
		{"send-denied-topic", allowed(send("AclDenied")), false},
		{"send-sub-only-topic", allowed(send("AclSubOnly")), false},
		{"send-default-deny", as("aclNoPerms", "noPermsSecret", send(topic)), false},
		{"send-retry-topic-v2", allowed(func() *protocol.Command {
			c := sendV2("%RETRY%AclDeniedGroup", 0, 0, 0, ok, []byte("r"))
			c.Ext.Set("a", "AclDeniedGroup")
			return c
		}), false},
		{"send-trace-topic-no-perms", as("aclNoPerms", "noPermsSecret", send("RMQ_SYS_TRACE_TOPIC")), true},
		{"batch-denied-topic", allowed(func() *protocol.Command { return sendV2("AclDenied", 0, 0, 0, ok, []byte("b")) }), true},
		{"create-topic-not-admin", allowed(func() *protocol.Command {
			return req(protocol.CodeUpdateAndCreateTopic, "topic", "AclX", "defaultTopic", "TBW102", "readQueueNums", "4",
				"writeQueueNums", "4", "perm", "6", "topicFilterType", "SINGLE_TAG", "topicSysFlag", "0", "order", "false")
		}), false},
		{"pull-denied-group", allowed(func() *protocol.Command { return pull("AclDeniedGroup", topic, 0, 0) }), false},
		{"pull-both-denied", as("aclNoPerms", "noPermsSecret", func() *protocol.Command { return pull("AclG", topic, 0, 0) }), false},
		{"update-offset-both-denied", as("aclNoPerms", "noPermsSecret", func() *protocol.Command {
			return req(protocol.CodeUpdateConsumerOffset, "consumerGroup", "AclG", "topic", topic, "queueId", "0", "commitOffset", "0")
		}), false},
		{"heartbeat-denied", as("aclNoPerms", "noPermsSecret", heartbeat), false},
		{"heartbeat-allowed", allowed(heartbeat), true},
		{"account-whitelist-unsigned", func() *protocol.Command { c := send("AclDenied")(); c.Ext.Set("AccessKey", "aclLocalWhite"); return c }, true},
		{"unknown-code-unsigned", fixed(req(protocol.RequestCode(9999))), false},
		{"unknown-code-signed", allowed(func() *protocol.Command { return req(protocol.RequestCode(9999)) }), false},
		{"acl-info", allowed(func() *protocol.Command { return req(protocol.CodeGetBrokerClusterAclInfo) }), true},
		{"acl-update-short-secret", allowed(func() *protocol.Command {
			return req(protocol.CodeUpdateAndCreateAclConfig, "accessKey", "aclCreated", "secretKey", "short")
		}), false},
		{"acl-update-bad-perm", allowed(func() *protocol.Command {
			return req(protocol.CodeUpdateAndCreateAclConfig, "accessKey", "aclCreated", "secretKey", "createdSecret", "topicPerms", "t=WRONG")
		}), false},
		{"acl-delete-unknown", allowed(func() *protocol.Command { return req(protocol.CodeDeleteAclConfig, "accessKey", "aclNobody") }), false},
		{"acl-white-outside-home", allowed(func() *protocol.Command {
			return req(protocol.CodeUpdateGlobalWhiteAddrsConfig, "globalWhiteAddrs", "10.1.1.1", "aclFileFullPath", "/etc/hosts")
		}), false},
		{"acl-update-create", allowed(func() *protocol.Command {
			return req(protocol.CodeUpdateAndCreateAclConfig, "accessKey", "aclCreated", "secretKey", "createdSecret", "defaultTopicPerm", "PUB", "admin", "false")
		}), false},
		{"created-account-sends", as("aclCreated", "createdSecret", send(topic)), true},
		{"acl-delete-created", allowed(func() *protocol.Command { return req(protocol.CodeDeleteAclConfig, "accessKey", "aclCreated") }), false},
	}
	for _, c := range cases {
		var resp [2]*protocol.Command
		for i, s := range []*side{java, sky} {
			r := c.req()
			if strings.HasPrefix(c.name, "batch") {
				r.Code = int32(protocol.CodeSendBatchMessage) // the code is not signed
			}
			resp[i] = s.call(t, s.broker, r)
		}
		jrem, srem := stackFrame.ReplaceAllString(resp[0].Remark, ""), stackFrame.ReplaceAllString(resp[1].Remark, "")
		t.Logf("%s: java %d %q / skyrocket %d %q", c.name, resp[0].Code, firstLine(resp[0].Remark), resp[1].Code, firstLine(resp[1].Remark))
		d.add("acl/"+c.name+".code", resp[0].Code, resp[1].Code)
		if c.codeOnly {
			d.add("acl/"+c.name+".refusedByACL", strings.Contains(jrem, "AclException"), strings.Contains(srem, "AclException"))
			continue
		}
		d.add("acl/"+c.name+".remark", java.norm(jrem), sky.norm(srem))
	}
}
