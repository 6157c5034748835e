package conformance

// mqadmin 4.9.8 signing with ${ROCKETMQ_HOME}/conf/tools.yml (Java: MQAdminStartup passes
// AclUtils#getAclRPCHook of that file to every sub-command) against Skyrocket with
// aclEnable=true and no whitelist: the four ACL sub-commands and an admin-only one work with an
// admin account's keys; a non-admin account is refused the admin-only code, a wrong secret is
// refused every command, and without tools.yml nothing is signed. The mqadmin matrix
// (conformance/java/mqadmin) runs every sub-command with 127.0.0.1 whitelisted instead.
// Run by conformance/java/run.sh's diff step (SKYROCKET_JAVA_SERVERS=1).

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

func TestACLJava_MqadminToolsYML(t *testing.T) {
	needJavaServers(t)
	c, brokerHome := startACLCluster(t, aclYAML)
	broker := c.opts.ListenAddr

	// mqadmin's home: conf/tools.yml (written per case) and the logback file it loads.
	home := t.TempDir()
	logback, err := os.ReadFile(filepath.Join(filepath.Dir(javaservers.Script()), "mqadmin", "src", "main", "resources", "logback.xml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(filepath.Join(home, "conf", "logback_tools.xml"), string(logback))
	tools := filepath.Join(home, "conf", "tools.yml")
	t.Setenv("ROCKETMQ_HOME", home) // MQAdminStartup reads rocketmq.home.dir or ROCKETMQ_HOME
	keys := func(ak, sk string) {
		t.Helper()
		if ak == "" {
			if err := os.Remove(tools); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			return
		}
		writeFile(tools, "accessKey: "+ak+"\nsecretKey: "+sk+"\n")
	}
	mqadmin := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		args = append(args, "-n", c.nsAddr())
		out, err := javaservers.Tool(ctx, "org.apache.rocketmq.tools.command.MQAdminStartup", args...)
		if err != nil {
			t.Fatalf("mqadmin %s: %v", strings.Join(args, " "), err)
		}
		t.Logf("mqadmin %s:\n%s", strings.Join(args, " "), resultLines(string(out)))
		return string(out)
	}
	expect := func(out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("output lacks %q:\n%s", w, out)
			}
		}
	}
	refusedBy := func(msg string) string { return "CODE: 1  DESC: " + aclRemark + msg }

	// The admin account: every ACL sub-command and an admin-only code (17) pass.
	keys("aclAdminKey", "adminSecret")
	expect(mqadmin("updateAclConfig", "-b", broker, "-a", "aclByMqadmin", "-s", "byMqadminSecret", "-t", "AclMqadminT=PUB", "-i", "DENY"),
		"create or update plain access config to "+broker+" success.")
	expect(mqadmin("clusterAclConfigVersion", "-b", broker), "broker-a", "get broker's plain access config version success.")
	expect(mqadmin("updateTopic", "-b", broker, "-t", "AclMqadminT"), "create topic to "+broker+" success.")
	white := filepath.Join(brokerHome, "conf", "plain_acl.yml")
	expect(mqadmin("updateGlobalWhiteAddr", "-b", broker, "-g", "10.9.8.7", "-p", white),
		"update global white remote addresses to "+broker+" success.")

	// The account mqadmin created signs a send to its topic; the ACL file holds the whitelist.
	w := newWire(t, broker)
	resp, err := w.cl.Invoke(context.Background(), w.addr, signedReq(sendV2("AclMqadminT", 0, 0, 0,
		props("UNIQ_KEY", "00000000000000000000000000000002", "WAIT", "true"), []byte("m")), "aclByMqadmin", "byMqadminSecret"), 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ResponseCode() != protocol.ResSuccess {
		t.Errorf("a send by the account mqadmin created: %d %q", resp.Code, resp.Remark)
	}
	if b, err := os.ReadFile(white); err != nil || !strings.Contains(string(b), "10.9.8.7") || !strings.Contains(string(b), "aclByMqadmin") {
		t.Errorf("plain_acl.yml after mqadmin (%v):\n%s", err, b)
	}
	expect(mqadmin("deleteAclConfig", "-b", broker, "-a", "aclByMqadmin"), "delete plain access config account from "+broker+" success.")

	// A signed non-admin account: the ACL codes are not admin-only (as in Java), 17 is.
	keys("aclAllowed", "allowedSecret")
	expect(mqadmin("clusterAclConfigVersion", "-b", broker), "broker-a", "get broker's plain access config version success.")
	expect(mqadmin("updateTopic", "-b", broker, "-t", "AclMqadminT"),
		refusedBy("Need admin permission for request code=17, but accessKey=aclAllowed is not"))

	// A wrong secret, and no tools.yml at all.
	keys("aclAdminKey", "wrongSecret")
	expect(mqadmin("updateAclConfig", "-b", broker, "-a", "aclByMqadmin2", "-s", "byMqadminSecret"),
		refusedBy("Check signature failed for accessKey=aclAdminKey"))
	keys("", "")
	expect(mqadmin("deleteAclConfig", "-b", broker, "-a", "aclAllowed"), refusedBy("No accessKey is configured"))
}

// resultLines is what a sub-command printed about its result (not the clients' logging).
func resultLines(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "success") || strings.Contains(l, "CODE:") || strings.Contains(l, "broker-a") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
