package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

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

func writeConf(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "namesrv.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRun_Print_FileAndDefaults(t *testing.T) {
	conf := writeConf(t, "listenPort=19876\norderMessageEnable=true\nnoSuchKey=1\n")
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-c", conf, "-p"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	home, _ := os.UserHomeDir()
	for _, want := range []string{"load config properties file OK, " + conf + "\n", "listenPort=19876\n", "orderMessageEnable=true\n",
		"configStorePath=" + conf + "\n", "kvConfigPath=" + filepath.Join(home, "namesrv", "kvConfig.json") + "\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-p output lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errOut.String(), "property=noSuchKey") {
		t.Errorf("no warning for the unknown key: %q", errOut.String())
	}
}

func TestRun_DefaultPort(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-p"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "listenPort=9876\n") {
		t.Fatalf("exit %d, output %q", code, out.String())
	}
}

func TestRun_BadConfig_Exit1(t *testing.T) {
	for _, args := range [][]string{
		{"-c", writeConf(t, "listenPort=x\n")},
		{"-c", filepath.Join(t.TempDir(), "none.conf")},
		{"-bind", "not-an-ip"},
		{"-y"},
	} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, &out, &errOut); code != 1 || errOut.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 1 and a message", args, code, errOut.String())
		}
	}
}

func TestRun_StartsAndStopsOnCancel(t *testing.T) {
	dir := t.TempDir()
	conf := writeConf(t, "listenPort=0\nkvConfigPath="+filepath.Join(dir, "kv.json")+"\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"-c", conf, "-bind", "127.0.0.1"}, &out, &errOut) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "The Name Server boot success. serializeType=JSON") {
		select {
		case code := <-done:
			t.Fatalf("exited early with %d: %s", code, errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("never booted: %s", errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "listening on 127.0.0.1:") {
		t.Errorf("no listen address: %q", out.String())
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("did not stop within 20 s of the signal")
	}
	if !strings.Contains(errOut.String(), "name server stopped") {
		t.Errorf("no stop line in the log: %q", errOut.String())
	}
}

// -log-dir sends the log to <dir>/namesrv.log (Java's name) instead of stderr; the pid
// file is written beside kvConfigPath while it runs and removed at the stop.
func TestRun_LogDirAndPidFile(t *testing.T) {
	dir := t.TempDir()
	logDir := filepath.Join(dir, "logs", "rocketmqlogs")
	conf := writeConf(t, "listenPort=0\nkvConfigPath="+filepath.Join(dir, "ns", "kv.json")+"\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-c", conf, "-bind", "127.0.0.1", "-log-dir", logDir}, &out, &errOut)
	}()
	pid := filepath.Join(dir, "ns", "namesrv.pid")
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(pid)
		if err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(os.Getpid()) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid file %s: %v; stderr %s", pid, err, errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	b, err := os.ReadFile(filepath.Join(logDir, "namesrv.log"))
	if err != nil || !strings.Contains(string(b), "name server started") || !strings.Contains(string(b), "name server stopped") {
		t.Fatalf("namesrv.log: %v %q", err, b)
	}
	if errOut.String() != "" {
		t.Errorf("stderr while logging to a file: %q", errOut.String())
	}
	if _, err := os.Stat(pid); !os.IsNotExist(err) {
		t.Errorf("pid file after the stop: %v", err)
	}
}
