package conformance

// The Java client 4.9.8 with AclClientRPCHook (conformance/java/tools AclClientMain) against
// Skyrocket with aclEnable=true, and the 4.2.0 client with our own signing hook
// (conformance/java/client42 Acl42RPCHook) against Skyrocket and a Java 4.9.7 broker:
// accepted with the right keys (sends and a pull or lite pull consumer), refused by a wrong
// secret, an unknown key and a denied topic with Java's code and remarks. Run by
// conformance/java/run.sh's diff step (SKYROCKET_JAVA_SERVERS=1).

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
	lines := aclResultLines(string(res))
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

// TestACLJava_Client42RPCHook: the 4.2.0 Java client, which has no AclClientRPCHook (4.4.0
// added it), signing with our own hook (conformance/java/client42 Acl42RPCHook) against
// Skyrocket with aclEnable=true: sends and pulls accepted with the right keys, refused with a
// wrong secret, an unknown key and a denied topic; then the same program against a Java 4.9.7
// broker with the same plain_acl.yml, whose answers must be the same (remarks compared
// without their last stack frame, which is one line apart between 4.9.7 and 4.9.8).
func TestACLJava_Client42RPCHook(t *testing.T) {
	needJavaServers(t)
	const n = 5
	run := func(t *testing.T, nsAddr string) map[string]string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		resFile := filepath.Join(t.TempDir(), "results.txt")
		out, err := javaservers.Client42(ctx, "org.skyrocket.client42.Acl42ClientMain", nsAddr, unique("Acl42T"), strconv.Itoa(n), resFile)
		res, _ := os.ReadFile(resFile)
		if err != nil {
			t.Fatalf("%v\n%s\nresults so far:\n%s", err, out, res)
		}
		t.Logf("Acl42ClientMain results:\n%s", res)
		return aclResultLines(string(res))
	}
	want := map[string]string{
		"wrong-secret":      "Check signature failed for accessKey=aclAllowed, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)",
		"unknown-key":       "No acl config for aclNobody, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:668)",
		"denied-topic":      "No default permission for topic:AclDenied, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)",
		"pull-wrong-secret": "Check signature failed for accessKey=aclAllowed, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)",
	}
	check := func(t *testing.T, who string, lines map[string]string, exact bool) {
		t.Helper()
		if lines["vectors"] != "ok" {
			t.Errorf("%s: the hook's golden vectors: %q", who, lines["vectors"])
		}
		if lines["allowed"] != "SEND_OK="+strconv.Itoa(n) {
			t.Errorf("%s: allowed sends: %q, want SEND_OK=%d", who, lines["allowed"], n)
		}
		if lines["consumed"] != strconv.Itoa(n) {
			t.Errorf("%s: pulled %q, want %d", who, lines["consumed"], n)
		}
		for name, remark := range want {
			got := lines[name]
			if !exact {
				got, remark = javaLine.ReplaceAllString(got, ".java)"), javaLine.ReplaceAllString(remark, ".java)")
			}
			if !strings.Contains(got, "CODE: 1 ") || !strings.Contains(got, aclRemark+remark) {
				t.Errorf("%s: %s: %q\nwant CODE: 1 and %q", who, name, got, remark)
			}
		}
	}

	c, _ := startACLCluster(t, aclYAML)
	check(t, "skyrocket", run(t, c.nsAddr()), true)

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
	check(t, "java 4.9.7", run(t, srv.NamesrvAddr), false)
}

// javaLine is the line number of a stack frame in a remark.
var javaLine = regexp.MustCompile(`\.java:\d+\)`)

// aclResultLines reads AclClientMain's and Acl42ClientMain's result files: "case: text"
// lines and "consumed=N".
func aclResultLines(res string) map[string]string {
	lines := map[string]string{}
	for _, l := range strings.Split(res, "\n") {
		if i := strings.Index(l, ": "); i > 0 && !strings.Contains(l[:i], " ") {
			lines[l[:i]] = l[i+2:]
		}
		if strings.HasPrefix(l, "consumed=") {
			lines["consumed"] = strings.TrimPrefix(l, "consumed=")
		}
	}
	return lines
}
