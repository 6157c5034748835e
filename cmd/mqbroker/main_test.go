package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
)

func runArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeConf(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRun_PrintConfig_SampleFile(t *testing.T) {
	code, out, errOut := runArgs(t, "-p", "-c", "../../configs/broker.conf", "-n", "127.0.0.1:9876")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"brokerName=broker-a\n", "enablePropertyFilter=true\n", "namesrvAddr=127.0.0.1:9876\n",
		"fileReservedTime=48\n", "listenPort=10911\n", "haListenPort=10912\n", "flushDiskType=ASYNC_FLUSH\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("-p output lacks %q", want)
		}
	}
}

func TestRun_PrintImportant_OnlyImportantItems(t *testing.T) {
	code, out, errOut := runArgs(t, "--printImportantConfig", "--configFile", writeConf(t, "brokerName=b9\nlistenPort=20911\n"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "brokerName=b9\n") || strings.Contains(out, "listenPort=") || strings.Contains(out, "brokerPermission=") {
		t.Errorf("-m output:\n%s", out)
	}
}

func TestRun_UnknownKeysWarn(t *testing.T) {
	code, _, errOut := runArgs(t, "-p", "-c", writeConf(t, "brokerName=b\nnoSuchKey=1\n"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "WRN unknown property ignored") || !strings.Contains(errOut, "property=noSuchKey") {
		t.Errorf("no warning for the unknown key: %q", errOut)
	}
}

func TestRun_BadConfig_Exit1WithMessage(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"invalid value", []string{"-c", writeConf(t, "listenPort=abc\n")}, `listenPort="abc"`},
		{"bad enum", []string{"-c", writeConf(t, "brokerRole=MASTER\n")}, "BrokerRole"},
		{"missing file", []string{"-c", filepath.Join(t.TempDir(), "none.conf")}, "no such file"},
		{"bad -n", []string{"-n", "nohost"}, "The Name Server Address[nohost] illegal"},
		{"slave id 0", []string{"-c", writeConf(t, "brokerRole=SLAVE\n")}, "Slave's brokerId must be > 0"},
		{"acl", []string{"-c", writeConf(t, "aclEnable=true\n")}, "aclEnable=true"},
		{"dledger", []string{"-c", writeConf(t, "enableDLegerCommitLog=true\n")}, "enableDLegerCommitLog"},
		{"unknown flag", []string{"-x"}, "flag provided but not defined: -x"},
		{"extra argument", []string{"extra"}, `unexpected argument "extra"`},
		{"bad log level", []string{"-log-level", "loud"}, "log level"},
	}
	for _, c := range cases {
		code, _, errOut := runArgs(t, c.args...)
		if code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", c.name, code, errOut, c.want)
		}
	}
}

func TestRun_Help_Stdout(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		code, out, _ := runArgs(t, arg)
		if code != 0 || !strings.Contains(out, "-c,--configFile <arg>") || !strings.Contains(out, "-m,--printImportantConfig") {
			t.Errorf("%s: exit %d, stdout %q", arg, code, out)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// freeBrokerPort: conformance/testkit.BrokerPort (p-2 VIP and p+1 HA free too).
func freeBrokerPort(t testing.TB) int { return testkit.BrokerPort(t) }

func TestRun_BindAdvertisesAddress_StartsAndStops(t *testing.T) {
	port := freeBrokerPort(t)
	store := filepath.Join(t.TempDir(), "store")
	conf := writeConf(t, fmt.Sprintf("brokerName=b1\nlistenPort=%d\nstorePathRootDir=%s\nmappedFileSizeCommitLog=65536\n"+
		"mappedFileSizeConsumeQueue=600\nmaxHashSlotNum=10\nmaxIndexNum=40\n", port, store))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"-c", conf, "-bind", "127.0.0.1"}, &out, &errOut) }()
	want := fmt.Sprintf("The broker[b1, 127.0.0.1:%d] boot success. serializeType=JSON", port)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), want) {
		select {
		case code := <-done:
			t.Fatalf("exited early with %d: %s", code, errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q on stdout %q; stderr %s", want, out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(store, "abort")); err != nil {
		t.Errorf("no abort file while running: %v", err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("did not stop within 30 s")
	}
	if _, err := os.Stat(filepath.Join(store, "abort")); !os.IsNotExist(err) {
		t.Errorf("abort file after a clean stop: %v", err)
	}
}
