package conformance

// A slave of an ACL-enabled master, as in Java 4.9.8: the slave's metadata sync (21, 43,
// 45, 201) carries no credentials, so the master refuses it ("No accessKey is configured")
// until the slave's address is in the master's global whitelist; the HA stream (its own
// port) has no ACL, so the CommitLog replicates either way.

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
)

func TestHA_ACLMaster_SlaveSyncsMetadataOnlyWhenWhitelisted(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "conf", "plain_acl.yml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(aclYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startHAPair(t, broker.RoleAsyncMaster, func(m, _ *broker.Options) {
		cfg := m.Config.Clone()
		cfg.Broker.ACLEnable = true
		cfg.Broker.RocketmqHome = home
		m.Config = cfg
	})
	w := newWire(t, p.master.opts.ListenAddr)
	call := func(r *protocol.Command) *protocol.Command {
		t.Helper()
		resp, err := w.cl.Invoke(t.Context(), w.addr, r, 15*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	const topic = "AclHATopic"
	if r := call(signedReq(req(protocol.CodeUpdateAndCreateTopic, "topic", topic, "defaultTopic", "TBW102", "readQueueNums", "4",
		"writeQueueNums", "4", "perm", "6", "topicFilterType", "SINGLE_TAG", "topicSysFlag", "0", "order", "false"), "aclAdminKey", "adminSecret")); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("create topic on the master: %d %q", r.Code, r.Remark)
	}
	send := sendV2(topic, 0, 0, 0, props("WAIT", "true"), []byte("replicated"))
	if r := call(signedReq(send, "aclAllowed", "allowedSecret")); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("send to the master: %d %q", r.Code, r.Remark)
	}
	p.waitCaughtUp(20 * time.Second) // the HA port has no ACL
	// Four sync periods (500 ms each): the master refuses the slave's unsigned GET_ALL_TOPIC_CONFIG.
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if _, ok := p.slave.broker.TopicConfig(topic); ok {
			t.Fatal("the slave synced the topic table from an ACL master that does not whitelist it")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if r := call(signedReq(req(protocol.CodeUpdateGlobalWhiteAddrsConfig, "globalWhiteAddrs", "127.0.0.1", "aclFileFullPath", file), "aclAllowed", "allowedSecret")); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("whitelist the slave: %d %q", r.Code, r.Remark)
	}
	eventually(t, 10*time.Second, "the whitelisted slave syncs the master's topic table", func() bool {
		_, ok := p.slave.broker.TopicConfig(topic)
		return ok
	})
}
