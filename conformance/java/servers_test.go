package java

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The Java servers take ~10 s to start and ~10 s to stop, so this test runs only when asked:
// conformance/java/run.sh (make conformance-java) sets SKYROCKET_JAVA_SERVERS=1.
func needJava(t *testing.T) {
	t.Helper()
	if os.Getenv("SKYROCKET_JAVA_SERVERS") == "" {
		t.Skip("set SKYROCKET_JAVA_SERVERS=1 to start the Java servers (conformance/java/run.sh does)")
	}
	if err := Available(); err != nil {
		t.Fatal(err)
	}
}

func alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

func TestServers_StartStop_CleanShutdown(t *testing.T) {
	needJava(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{Dir: dir, Broker: []string{"mappedFileSizeCommitLog=1048576"}, Heap: "-Xms256m -Xmx256m -XX:MaxDirectMemorySize=256m"})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = s.Kill()
		}
	}()
	for _, addr := range []string{s.NamesrvAddr, s.BrokerAddr} {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("dial %s: %v", addr, err)
		}
		c.Close()
	}
	if !alive(s.NamesrvPID) || !alive(s.BrokerPID) {
		t.Fatalf("pids %d/%d not alive", s.NamesrvPID, s.BrokerPID)
	}
	if s.StoreRoot != filepath.Join(dir, "store") {
		t.Fatalf("store root %q, want %q", s.StoreRoot, filepath.Join(dir, "store"))
	}
	if _, err := os.Stat(filepath.Join(s.StoreRoot, "abort")); err != nil {
		t.Fatalf("a running Java store has an abort file: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if alive(s.NamesrvPID) || alive(s.BrokerPID) {
		t.Fatalf("servers still alive after Stop")
	}
	if _, err := os.Stat(filepath.Join(s.StoreRoot, "abort")); !os.IsNotExist(err) {
		t.Fatalf("abort file after a clean stop: %v", err)
	}
}

func TestServers_Kill_LeavesAbortFile(t *testing.T) {
	needJava(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{Dir: dir, Heap: "-Xms256m -Xmx256m -XX:MaxDirectMemorySize=256m"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if alive(s.BrokerPID) {
		t.Fatal("broker alive after Kill")
	}
	if _, err := os.Stat(filepath.Join(s.StoreRoot, "abort")); err != nil {
		t.Fatalf("a killed broker leaves its abort file: %v", err)
	}
}

func TestParseEnv_MissingAddresses(t *testing.T) {
	if _, err := parseEnv("d", []byte("nothing useful\n")); err == nil {
		t.Fatal("parseEnv accepted output without addresses")
	}
	s, err := parseEnv("d", []byte("NAMESRV_ADDR=127.0.0.1:1\nBROKER_ADDR=127.0.0.1:2\nSTORE_ROOT=/s\nNAMESRV_PID=10\nBROKER_PID=11\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.NamesrvAddr != "127.0.0.1:1" || s.BrokerAddr != "127.0.0.1:2" || s.StoreRoot != "/s" || s.NamesrvPID != 10 || s.BrokerPID != 11 {
		t.Fatalf("parsed %+v", s)
	}
}
