package acl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

func ext(kv ...string) protocol.Ext {
	var e protocol.Ext
	for i := 0; i+1 < len(kv); i += 2 {
		e = append(e, protocol.KV{Key: kv[i], Value: kv[i+1]})
	}
	return e
}

// The golden vectors of acl-tls-facts.md A2.5, computed by the 4.9.8 jars (AK RocketMQ, SK 12345678).
func TestSign_GoldenVectors(t *testing.T) {
	sendV2 := ext("AccessKey", "RocketMQ", "a", "PG", "b", "TopicA", "c", "TBW102", "d", "4", "e", "0", "f", "0", "g", "1", "h", "0", "i", "", "k", "false", "m", "false")
	send10 := ext("AccessKey", "RocketMQ", "batch", "false", "bornTimestamp", "1", "defaultTopic", "TBW102", "defaultTopicQueueNums", "4",
		"flag", "0", "producerGroup", "PG", "queueId", "0", "sysFlag", "0", "topic", "%RETRY%CG", "unitMode", "false")
	cases := []struct {
		name string
		ext  protocol.Ext
		body string
		want string
	}{
		{"GET_CONSUMER_LIST_BY_GROUP", ext("consumerGroup", "CG", "AccessKey", "RocketMQ"), "", "8wB2JGMC2flyHfgUSd/BFGlpcHs="},
		{"with token", ext("consumerGroup", "CG", "AccessKey", "RocketMQ", "SecurityToken", "tok"), "", "0MmRILLKwECb0Cd3czzoENf9d2o="},
		{"HEART_BEAT", ext("AccessKey", "RocketMQ"), `{"clientID":"x","consumerDataSet":[],"producerDataSet":[]}`, "Q8xXL4Qyf89xpDk0yzLRSnUFZ4E="},
		{"SEND_MESSAGE_V2", sendV2, "hello", "y4Rc/F3ryybGa1bwX6DD1Qa7iTc="},
		{"SEND_MESSAGE retry", send10, "", "bSIDT2YytjfzZqe21B2Zm3krWeg="},
		{"QUERY_MESSAGE 4.9.8 client", ext("AccessKey", "RocketMQ", "_UNIQUE_KEY_QUERY", "false", "beginTimestamp", "0", "endTimestamp", "1", "key", "k", "maxNum", "32", "topic", "TopicA"), "", "y9wIyyygcuDdJU5QaPF1Xbj8NGs="},
		{"QUERY_MESSAGE broker content", ext("AccessKey", "RocketMQ", "beginTimestamp", "0", "endTimestamp", "1", "key", "k", "maxNum", "32", "topic", "TopicA"), "", "rxG9qv6IIqviXJenjaK1rcZkVXI="},
	}
	signer := NewSigner("12345678")
	for _, c := range cases {
		var body []byte
		if c.body != "" {
			body = []byte(c.body)
		}
		if got := Sign("12345678", c.ext, body); got != c.want {
			t.Errorf("%s: Sign = %s, want %s", c.name, got, c.want)
		}
		if got := signer.Sign(c.ext, body); got != c.want {
			t.Errorf("%s: Signer.Sign = %s, want %s", c.name, got, c.want)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const sampleACL = `globalWhiteRemoteAddresses:
  - 10.10.103.*
accounts:
  - accessKey: RocketMQ
    secretKey: 12345678
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=DENY
      - topicB=PUB|SUB
      - topicC=SUB
    groupPerms:
      - groupA=DENY
      - groupB=PUB|SUB
  - accessKey: rocketmq2
    secretKey: 12345678
    whiteRemoteAddress: 192.168.1.*
    admin: true
`

func newValidator(t *testing.T, content string) (*Validator, string) {
	t.Helper()
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "conf", "plain_acl.yml"), content)
	v, err := New(Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return v, home
}

// signed returns ext plus AccessKey and a valid Signature.
func signed(ak, sk string, e protocol.Ext, body []byte) protocol.Ext {
	e = append(e, protocol.KV{Key: "AccessKey", Value: ak})
	return append(e, protocol.KV{Key: "Signature", Value: Sign(sk, e, body)})
}

func wantRefusal(t *testing.T, err *protocol.Error, remark string) {
	t.Helper()
	if err == nil {
		t.Fatalf("allowed, want refusal %q", remark)
	}
	if err.Code != protocol.ResSystemError || err.Remark != remark {
		t.Fatalf("got %d %q\nwant 1 %q", err.Code, err.Remark, remark)
	}
}

const ppm = "org.apache.rocketmq.acl.common.AclException: "

func TestCheck_OrderAndRemarks(t *testing.T) {
	v, _ := newValidator(t, sampleACL)
	const cli = "127.0.0.1:50000"
	sendV2 := func(topic string) protocol.Ext { return ext("a", "PG", "b", topic, "c", "TBW102", "d", "4") }

	if err := v.Check(310, signed("RocketMQ", "12345678", sendV2("topicB"), []byte("x")), []byte("x"), cli); err != nil {
		t.Fatalf("topicB PUB|SUB: %v", err)
	}
	// Whitelisted globally: no key needed.
	if err := v.Check(310, sendV2("topicA"), nil, "10.10.103.7:1"); err != nil {
		t.Fatalf("global whitelist: %v", err)
	}
	wantRefusal(t, v.Check(310, sendV2("topicB"), nil, cli),
		ppm+"No accessKey is configured, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:664)")
	wantRefusal(t, v.Check(310, signed("nobodyxx", "12345678", sendV2("topicB"), nil), nil, cli),
		ppm+"No acl config for nobodyxx, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:668)")
	wantRefusal(t, v.Check(310, signed("RocketMQ", "wrongkey", sendV2("topicB"), nil), nil, cli),
		ppm+"Check signature failed for accessKey=RocketMQ, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)")
	// The body is signed.
	wantRefusal(t, v.Check(310, signed("RocketMQ", "12345678", sendV2("topicB"), []byte("x")), []byte("y"), cli),
		ppm+"Check signature failed for accessKey=RocketMQ, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)")
	wantRefusal(t, v.Check(310, signed("RocketMQ", "12345678", sendV2("topicA"), nil), nil, cli),
		ppm+"No default permission for topic:topicA, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)")
	wantRefusal(t, v.Check(310, signed("RocketMQ", "12345678", sendV2("topicZ"), nil), nil, cli),
		ppm+"No default permission for topic:topicZ, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:606)")
	wantRefusal(t, v.Check(310, signed("RocketMQ", "12345678", sendV2("topicC"), nil), nil, cli),
		ppm+"No default permission for topic:topicC, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)")
	// Admin codes.
	wantRefusal(t, v.Check(17, signed("RocketMQ", "12345678", ext("topic", "x"), nil), nil, cli),
		ppm+"Need admin permission for request code=17, but accessKey=RocketMQ is not, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:581)")
	if err := v.Check(17, signed("rocketmq2", "12345678", ext("topic", "x"), nil), nil, cli); err != nil {
		t.Fatalf("admin account: %v", err)
	}
	// Batch send (320) is checked only for its signature.
	if err := v.Check(320, signed("RocketMQ", "12345678", sendV2("topicA"), nil), nil, cli); err != nil {
		t.Fatalf("batch: %v", err)
	}
	// Pull: the topic and the group's retry topic; the group default is SUB.
	pull := ext("consumerGroup", "groupZ", "topic", "topicC", "queueId", "0")
	if err := v.Check(11, signed("RocketMQ", "12345678", pull, nil), nil, cli); err != nil {
		t.Fatalf("pull: %v", err)
	}
	wantRefusal(t, v.Check(11, signed("RocketMQ", "12345678", ext("consumerGroup", "groupA", "topic", "topicC"), nil), nil, cli),
		ppm+"No default permission for group:groupA, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)")
	// The account whitelist skips the signature and the permissions.
	if err := v.Check(310, ext("AccessKey", "rocketmq2", "b", "anything"), nil, "192.168.1.5:1"); err != nil {
		t.Fatalf("account whitelist: %v", err)
	}
	// The trace topic may be published to by anyone with a valid signature.
	if err := v.Check(310, signed("RocketMQ", "12345678", sendV2("RMQ_SYS_TRACE_TOPIC"), nil), nil, cli); err != nil {
		t.Fatalf("trace topic: %v", err)
	}
	// A retry-topic SEND_MESSAGE (10) has no "group" key: no resource check.
	if err := v.Check(10, signed("RocketMQ", "12345678", ext("topic", "%RETRY%groupA", "producerGroup", "groupA"), nil), nil, cli); err != nil {
		t.Fatalf("code 10 retry: %v", err)
	}
	// 310 to a retry topic checks the producer group's retry resource.
	wantRefusal(t, v.Check(310, signed("RocketMQ", "12345678", ext("a", "groupA", "b", "%RETRY%groupA"), nil), nil, cli),
		ppm+"No default permission for group:groupA, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)")
	// Heartbeat: every consumer group and subscribed topic.
	hb := []byte(`{"clientID":"c","consumerDataSet":[{"groupName":"groupB","subscriptionDataSet":[{"topic":"topicA"}]}],"producerDataSet":[]}`)
	wantRefusal(t, v.Check(34, signed("RocketMQ", "12345678", nil, hb), hb, cli),
		ppm+"No default permission for topic:topicA, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)")
	// query by key from a 4.9.4+ client (signs _UNIQUE_KEY_QUERY): accepted (Java refuses).
	q := ext("_UNIQUE_KEY_QUERY", "false", "beginTimestamp", "0", "endTimestamp", "1", "key", "k", "maxNum", "32", "topic", "topicC")
	if err := v.Check(12, signed("RocketMQ", "12345678", q, nil), nil, cli); err != nil {
		t.Fatalf("query with _UNIQUE_KEY_QUERY signed: %v", err)
	}
}

// Several failing resources: Java reports the first in its HashMap's order.
func TestCheck_JavaHashMapOrder(t *testing.T) {
	v, _ := newValidator(t, sampleACL)
	// UPDATE_CONSUMER_OFFSET inserts %RETRY%groupA then topicA; both are DENY.
	e := signed("RocketMQ", "12345678", ext("consumerGroup", "groupA", "topic", "topicA", "queueId", "0", "commitOffset", "1"), nil)
	err := v.Check(15, e, nil, "127.0.0.1:1")
	// Java: HashMap{%RETRY%groupA, topicA} iterates by (h ^ h>>>16) & 15.
	idx := javaHashOrder([]resource{{name: "groupA", group: true}, {name: "topicA"}})
	want := "group:groupA"
	if idx[0] == 1 {
		want = "topic:topicA"
	}
	if err == nil || !strings.Contains(err.Remark, "No default permission for "+want+",") {
		t.Fatalf("got %v, want the refusal of %s", err, want)
	}
}

func TestWhitelist_Patterns(t *testing.T) {
	cases := []struct {
		pattern string
		ip      string
		want    bool
	}{
		{"", "1.2.3.4", false},
		{"*", "1.2.3.4", true},
		{"*.*.*.*", "::1", true},
		{"192.168.1.{1,2,3}", "192.168.1.2", true},
		{"192.168.1.{1,2,3}", "192.168.1.4", false},
		{"192.168.1.1,10.0.0.1", "10.0.0.1", true},
		{"192.168.0.*", "192.168.0.77", true},
		{"192.168.0.*", "192.168.1.77", false},
		{"192.168.*.1", "192.168.5.2", true}, // octets after the range are ignored, as in Java
		{"192.168.1.1-100", "192.168.1.100", true},
		{"192.168.1.1-100", "192.168.1.101", false},
		{"192.168.1-3.*", "192.168.3.9", true},
		{"192.168.1-3.*", "192.168.4.9", false},
		{"10.1.1.1", "10.1.1.1", true},
		{"::1", "::1", true},
		{"0:0:0:0:0:0:0:1", "::1", true},
		{"10.1.1.1", "::ffff:10.1.1.1", false},
		{"2001:db8::*", "2001:db8::5", true}, // Java expands the prefix "2001:db8:" to 3 groups: the range is the 4th
		{"2001:db8::*", "2001:db9::5", false},
		{"2001:db8:0:0:0:0:0:*", "2001:db8::5", true},
		// Nine groups before the range: no address has them. The fuzzer found match
		// reading past the address here (FuzzACL_CompileStrategy's f51fd5309fc2fb6e).
		{":::::::::*", "::1", false},
		{":::::::::*", "2001:db8::5", false},
		{"::::::::::1-5", "::3", false},
		{"1:2:3:4:5:6:7:8:*", "1:2:3:4:5:6:7:8", false}, // eight literal groups: the range would be the ninth
	}
	for _, c := range cases {
		s, err := compileStrategy(c.pattern)
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		remote := c.ip + ":1"
		if strings.Contains(c.ip, ":") {
			remote = "[" + c.ip + "]:1"
		}
		if got := s.match(clientIP(remote)); got != c.want {
			t.Errorf("%q match %s = %v, want %v", c.pattern, c.ip, got, c.want)
		}
	}
	for _, bad := range []string{"192.*", "1.2.3.x", "192.168.1.-5", "192.168.1.{1,x}", "300.1.1.1"} {
		if _, err := compileStrategy(bad); err == nil {
			t.Errorf("%q compiled, want an error", bad)
		}
	}
	if _, err := compileStrategy("192.*"); err == nil || err.Error() != "Netaddress examine scope Exception netaddress is 192.*" {
		t.Errorf("192.*: %v", err)
	}
}

func TestLoad_MultipleFilesAndErrors(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "conf", "plain_acl.yml"), "accounts:\n  - accessKey: dupkey1\n    secretKey: fromdefault\n    defaultTopicPerm: PUB\n")
	writeFile(t, filepath.Join(home, "conf", "acl", "team", "a.yaml"), "globalWhiteRemoteAddresses: [10.0.0.9]\naccounts:\n  - accessKey: dupkey1\n    secretKey: fromteamA\n    defaultTopicPerm: SUB\n")
	writeFile(t, filepath.Join(home, "conf", "acl", "notes.txt"), "not yaml: [")
	v, err := New(Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Check(311, signed("dupkey1", "fromteamA", nil, nil), nil, "1.1.1.1:1"); err != nil {
		t.Fatalf("the conf/acl file's account must win: %v", err)
	}
	if err := v.Check(311, nil, nil, "10.0.0.9:1"); err != nil {
		t.Fatalf("global whitelist from conf/acl: %v", err)
	}
	_, all := v.Versions()
	if len(all) != 2 {
		t.Fatalf("versions of %d files, want 2: %v", len(all), all)
	}

	for name, content := range map[string]string{
		"short key":  "accounts:\n  - accessKey: short\n    secretKey: 12345678\n",
		"bad perm":   "accounts:\n  - accessKey: longenough\n    secretKey: 12345678\n    topicPerms: [a=b=c]\n",
		"bad white":  "globalWhiteRemoteAddresses: [192.*]\n",
		"bad yaml":   "accounts: [\n",
		"bad acc ip": "accounts:\n  - accessKey: longenough\n    secretKey: 12345678\n    whiteRemoteAddress: 1.2.3\n",
	} {
		home := t.TempDir()
		writeFile(t, filepath.Join(home, "conf", "plain_acl.yml"), content)
		if _, err := New(Options{Home: home}); err == nil {
			t.Errorf("%s: loaded, want an error", name)
		}
	}
	if _, err := New(Options{}); err != ErrNoHome {
		t.Errorf("no home: %v", err)
	}
	// A missing default file is created empty: everything is refused.
	home = t.TempDir()
	v, err = New(Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "conf", "plain_acl.yml")); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, v.Check(311, nil, nil, "1.1.1.1:1"),
		ppm+"No accessKey is configured, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:664)")
}

func touchLater(t *testing.T, path, content string, after time.Time) {
	t.Helper()
	writeFile(t, path, content)
	later := after.Add(2 * time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

func TestPoll_HotReload(t *testing.T) {
	v, home := newValidator(t, sampleACL)
	file := filepath.Join(home, "conf", "plain_acl.yml")
	if v.Poll() {
		t.Fatal("reloaded without a change")
	}
	e := signed("newaccount", "newsecret", ext("b", "t1"), nil)
	wantRefusal(t, v.Check(310, e, nil, "1.1.1.1:1"), ppm+"No acl config for newaccount, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:668)")
	touchLater(t, file, "accounts:\n  - accessKey: newaccount\n    secretKey: newsecret\n    defaultTopicPerm: PUB\n", time.Now())
	if !v.Poll() {
		t.Fatal("no reload after a change")
	}
	if err := v.Check(310, e, nil, "1.1.1.1:1"); err != nil {
		t.Fatalf("after reload: %v", err)
	}
	// RocketMQ was removed from the file by hand: Java keeps it in its key table.
	wantRefusal(t, v.Check(310, signed("RocketMQ", "12345678", ext("b", "t1"), nil), nil, "1.1.1.1:1"),
		ppm+"No PlainAccessResource for accessKey=RocketMQ, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:675)")
	// A broken file keeps the previous configuration.
	st, _ := os.Stat(file)
	touchLater(t, file, "accounts: [\n", st.ModTime())
	if !v.Poll() {
		t.Fatal("no reload attempt")
	}
	if err := v.Check(310, e, nil, "1.1.1.1:1"); err != nil {
		t.Fatalf("after a broken reload: %v", err)
	}
	if v.Poll() {
		t.Fatal("a broken file is read again without a change")
	}
	// The watcher goroutine picks a change up by itself.
	w, home2 := newValidator(t, sampleACL)
	w.interval = 20 * time.Millisecond
	w.Start()
	defer func() { w.Close(); w.Wait() }()
	touchLater(t, filepath.Join(home2, "conf", "plain_acl.yml"), "globalWhiteRemoteAddresses: ['*']\n", time.Now())
	deadline := time.Now().Add(5 * time.Second)
	for w.Check(310, nil, nil, "1.1.1.1:1") != nil {
		if time.Now().After(deadline) {
			t.Fatal("the watcher did not reload within 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAdmin_UpdateDeleteWhitelist(t *testing.T) {
	v, home := newValidator(t, sampleACL)
	file := filepath.Join(home, "conf", "plain_acl.yml")
	if err := v.UpdateAccount(AccountUpdate{AccessKey: "short", SecretKey: "12345678"}); err == nil ||
		err.Error() != "The accessKey=short and secretKey=12345678 cannot be null and length should longer than 6" {
		t.Fatalf("short key: %v", err)
	}
	if err := v.UpdateAccount(AccountUpdate{AccessKey: "newaccount", SecretKey: "12345678", TopicPerms: []string{"t=BAD"}}); err == nil ||
		!strings.HasPrefix(err.Error(), "Parse resource permission error for t=BAD.") {
		t.Fatalf("bad perm: %v", err)
	}
	if err := v.UpdateAccount(AccountUpdate{AccessKey: "newaccount", SecretKey: "87654321", DefaultTopicPerm: "PUB", TopicPerms: []string{"topicX=SUB"}}); err != nil {
		t.Fatal(err)
	}
	if err := v.Check(310, signed("newaccount", "87654321", ext("b", "t1"), nil), nil, "1.1.1.1:1"); err != nil {
		t.Fatalf("new account: %v", err)
	}
	// Update an existing account: keys not sent are kept.
	if err := v.UpdateAccount(AccountUpdate{AccessKey: "RocketMQ", SecretKey: "abcdefgh", DefaultTopicPerm: "PUB"}); err != nil {
		t.Fatal(err)
	}
	if err := v.Check(310, signed("RocketMQ", "abcdefgh", ext("b", "topicZ"), nil), nil, "1.1.1.1:1"); err != nil {
		t.Fatalf("updated account: %v", err)
	}
	wantRefusal(t, v.Check(310, signed("RocketMQ", "abcdefgh", ext("b", "topicA"), nil), nil, "1.1.1.1:1"),
		ppm+"No default permission for topic:topicA, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)")
	dv, _ := v.Versions()
	if dv.Counter != 2 {
		t.Fatalf("dataVersion counter %d, want 2", dv.Counter)
	}
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), "10.10.103.*") || !strings.Contains(string(data), "groupA=DENY") {
		t.Fatalf("the rewrite lost keys:\n%s", data)
	}
	if ok, err := v.DeleteAccount("newaccount"); !ok || err != nil {
		t.Fatalf("delete: %v %v", ok, err)
	}
	if ok, _ := v.DeleteAccount("newaccount"); ok {
		t.Fatal("second delete succeeded")
	}
	wantRefusal(t, v.Check(310, signed("newaccount", "87654321", ext("b", "t1"), nil), nil, "1.1.1.1:1"),
		ppm+"No acl config for newaccount, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:668)")
	if ok, err := v.UpdateGlobalWhiteAddrs([]string{"127.0.0.1"}, ""); !ok || err != nil {
		t.Fatalf("whitelist: %v %v", ok, err)
	}
	if err := v.Check(310, nil, nil, "127.0.0.1:5"); err != nil {
		t.Fatalf("whitelisted: %v", err)
	}
	outside := filepath.Join(t.TempDir(), "x.yml")
	writeFile(t, outside, "")
	for _, f := range []string{outside, filepath.Join(home, "conf", "missing.yml"), filepath.Join(home, "conf"),
		filepath.Join(home, "conf", "..", "..", outside)} {
		if ok, _ := v.UpdateGlobalWhiteAddrs([]string{"1.1.1.1"}, f); ok {
			t.Errorf("%s accepted", f)
		}
	}
	yamlFile := filepath.Join(home, "conf", "acl", "x.yaml")
	writeFile(t, yamlFile, "")
	if ok, _ := v.UpdateGlobalWhiteAddrs([]string{"1.1.1.1"}, yamlFile); ok {
		t.Error(".yaml accepted (Java's inverted extension check refuses it)")
	}
	if ok, _ := v.UpdateGlobalWhiteAddrs([]string{"192.*"}, ""); ok {
		t.Error("a bad pattern was written")
	}
}

func BenchmarkCheck_SendV2Signed(b *testing.B) {
	home := b.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "conf"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "conf", "plain_acl.yml"), []byte(sampleACL), 0o644); err != nil {
		b.Fatal(err)
	}
	v, err := New(Options{Home: home})
	if err != nil {
		b.Fatal(err)
	}
	body := make([]byte, 1024)
	e := signed("RocketMQ", "12345678", ext("a", "PG", "b", "topicB", "c", "TBW102", "d", "4", "e", "0", "f", "0", "g", "1", "h", "0", "i", "", "j", "0", "k", "false", "m", "false"), body)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := v.Check(310, e, body, "127.0.0.1:40000"); err != nil {
			b.Fatal(err)
		}
	}
}
