package conformance

// The Java client 4.9.8 with AclClientRPCHook against Skyrocket with aclEnable=true
// (conformance/java/tools AclClientMain): accepted with the right keys (sends and a lite pull
// consumer), refused by a wrong secret, an unknown key and a denied topic with Java's code
// and remarks. Run by conformance/java/run.sh's diff step (SKYROCKET_JAVA_SERVERS=1).

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	javaservers "github.com/skyrocket-mq/skyrocket/conformance/java"
)

func TestACLJava_ClientRPCHook(t *testing.T) {
	needJavaServers(t)
	c, _ := startACLCluster(t, aclYAML)
	topic := unique("AclJavaT")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	resFile := filepath.Join(t.TempDir(), "results.txt")
	out, err := javaservers.Tool(ctx, "org.skyrocket.fixture.AclClientMain", c.nsAddr(), topic, "5", resFile)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	res, err := os.ReadFile(resFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("AclClientMain results:\n%s", res)
	lines := map[string]string{}
	for _, l := range strings.Split(string(res), "\n") {
		if i := strings.Index(l, ": "); i > 0 && !strings.Contains(l[:i], " ") {
			lines[l[:i]] = l[i+2:]
		}
		if strings.HasPrefix(l, "consumed=") {
			lines["consumed"] = strings.TrimPrefix(l, "consumed=")
		}
	}
	if lines["allowed"] != "SEND_OK=5" {
		t.Errorf("allowed sends: %q, want SEND_OK=5", lines["allowed"])
	}
	if lines["consumed"] != "5" {
		t.Errorf("consumed %q, want 5", lines["consumed"])
	}
	for name, remark := range map[string]string{
		"wrong-secret": "Check signature failed for accessKey=aclAllowed, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)",
		"unknown-key":  "No acl config for aclNobody, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:668)",
		"denied-topic": "No default permission for topic:AclDenied, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)",
	} {
		got := lines[name]
		if !strings.Contains(got, "CODE: 1 ") || !strings.Contains(got, aclRemark+remark) {
			t.Errorf("%s: %q\nwant CODE: 1 and %q", name, got, remark)
		}
	}
}
