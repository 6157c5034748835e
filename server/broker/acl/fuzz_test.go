package acl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// FuzzACL_CompileStrategy: any whitelist pattern compiles or fails, never panics, and a
// compiled one matches any client address without panicking.
func FuzzACL_CompileStrategy(f *testing.F) {
	for _, s := range []string{"", "*", "192.168.1.{1,2}", "10.0.0.1,10.0.0.2", "192.168.*.1", "1.2.3.4-5", "1.2-3.*.*",
		"2001:db8::*", "2001:db8::1-ff", "::1", "1:2:3:4:5:6:7:{a,b}", "a.b.c.d", "192.168.1.-", "...", "::{", "1.1.1.1-0"} {
		f.Add(s, "192.168.1.2:5")
	}
	f.Fuzz(func(t *testing.T, pattern, remote string) {
		s, err := compileStrategy(pattern)
		if err != nil {
			return
		}
		s.match(clientIP(remote))
	})
}

// FuzzACL_LoadFile: any plain_acl.yml loads or fails with an error, never panics.
func FuzzACL_LoadFile(f *testing.F) {
	f.Add(sampleACL)
	f.Add("accounts: [ {accessKey: 1234567, secretKey: 7654321, topicPerms: [a=PUB]} ]")
	f.Add("globalWhiteRemoteAddresses: 5\naccounts: x\n")
	f.Add("dataVersion: [{counter: x}]")
	f.Fuzz(func(t *testing.T, content string) {
		home := t.TempDir()
		if err := os.MkdirAll(filepath.Join(home, "conf"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "conf", "plain_acl.yml"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := New(Options{Home: home})
		if err != nil {
			return
		}
		v.Check(310, nil, nil, "1.2.3.4:5")
	})
}

// FuzzACL_Check: any request (fields, body, address) is allowed or refused with code 1,
// never panics.
func FuzzACL_Check(f *testing.F) {
	home := f.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "conf"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "conf", "plain_acl.yml"), []byte(sampleACL), 0o644); err != nil {
		f.Fatal(err)
	}
	v, err := New(Options{Home: home})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(int32(34), "RocketMQ", "sig", "topicA", "groupA", []byte(`{"consumerDataSet":[{"groupName":"g","subscriptionDataSet":[{"topic":"t"}]}]}`), "127.0.0.1:1")
	f.Add(int32(310), "RocketMQ", "", "%RETRY%x", "", []byte("x"), "[::1]:2")
	f.Add(int32(11), "", "", "", "", []byte(nil), "garbage")
	f.Fuzz(func(t *testing.T, code int32, ak, sig, topic, group string, body []byte, remote string) {
		e := protocol.Ext{{Key: "topic", Value: topic}, {Key: "b", Value: topic}, {Key: "consumerGroup", Value: group},
			{Key: "a", Value: group}, {Key: "group", Value: group}}
		if ak != "" {
			e = append(e, protocol.KV{Key: KeyAccessKey, Value: ak})
		}
		if sig != "" {
			e = append(e, protocol.KV{Key: KeySignature, Value: sig})
		}
		if err := v.Check(code, e, body, remote); err != nil && err.Code != protocol.ResSystemError {
			t.Fatalf("refusal with code %d", err.Code)
		}
	})
}
