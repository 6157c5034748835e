package conformance

// The binaries as users run them: built with `go build`, started as child processes on
// loopback ports with temp data, driven by the unmodified Go client, stopped by signals.
// The helpers here (buildBinaries, startProc) are shared with crash_test.go.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
)

// buildBinaries builds the named commands (cmd/<name>) into a temp dir of t.
func buildBinaries(t *testing.T, names ...string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build the binaries: %v", err)
	}
	dir := t.TempDir()
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, n := range names {
		args = append(args, "github.com/skyrocket-mq/skyrocket/cmd/"+n)
	}
	cmd := exec.Command(goBin, args...)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", names, err, out)
	}
	return dir
}

// lockedBuffer collects a child's output for the test to read while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// proc is a child process started by a test.
type proc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	stdout lockedBuffer
	stderr lockedBuffer
	done   chan struct{} // closed when the process has exited
	err    error         // cmd.Wait's result, valid after done
}

// childEnv keeps children away from the user's home ($HOME/store, $HOME/namesrv) and
// from a NameServer named in the environment, and makes a SIGTERM'd mqbroker stop without
// its drain window (SKYROCKET_DRAIN=0; drain_test.go passes -drain itself).
func childEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "NAMESRV_ADDR=") && !strings.HasPrefix(kv, "SKYROCKET_DRAIN=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "SKYROCKET_DRAIN=0")
}

// startProc starts bin with args; at the end of the test it is killed if still running,
// and its output is logged when the test failed.
func startProc(t *testing.T, home, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, name: filepath.Base(bin), done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = childEnv(home)
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("%s (pid %d) stdout:\n%s\nstderr (last 4 KiB):\n%s", p.name, p.cmd.Process.Pid, p.stdout.String(), tail(p.stderr.String(), 4096))
		}
	})
	return p
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitStdout waits until the child printed want on stdout; it fails if the child exits.
func (p *proc) waitStdout(d time.Duration, want string) {
	p.t.Helper()
	eventually(p.t, d, p.name+" printing "+want, func() bool {
		if p.exited() {
			p.t.Fatalf("%s exited (%v) before printing %q; stderr:\n%s", p.name, p.err, want, tail(p.stderr.String(), 4096))
		}
		return strings.Contains(p.stdout.String(), want)
	})
}

// signal sends sig to the child.
func (p *proc) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := syscall.Kill(p.cmd.Process.Pid, sig); err != nil {
		p.t.Fatalf("kill -%d %s: %v", sig, p.name, err)
	}
}

// wait waits for the child to exit and returns its exit code (-1 when killed by a signal).
func (p *proc) wait(d time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		p.t.Fatalf("%s still running %v after it was told to stop", p.name, d)
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &ee):
		return ee.ExitCode()
	default:
		p.t.Fatalf("%s: %v", p.name, p.err)
		return -1
	}
}

// runProc runs bin to completion and returns its exit code and output.
func runProc(t *testing.T, home, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	p := startProc(t, home, bin, args...)
	code = p.wait(30 * time.Second)
	return code, p.stdout.String(), p.stderr.String()
}

// freePort: testkit.FreePort.
func freePort(t testing.TB) int { return testkit.FreePort(t) }

// dialable reports whether something accepts connections on addr.
func dialable(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func TestBinaries_Skyrocket_SendConsumeAndCleanExit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	bin := buildBinaries(t, "skyrocket")
	home, data := t.TempDir(), t.TempDir()
	nsPort, brPort := freePort(t), freeBrokerPort(t)
	nsAddr := fmt.Sprintf("127.0.0.1:%d", nsPort)
	brAddr := fmt.Sprintf("127.0.0.1:%d", brPort)

	sky := startProc(t, home, filepath.Join(bin, "skyrocket"), "-data", data, "-bind", "127.0.0.1",
		"-namesrv-port", fmt.Sprint(nsPort), "-port", fmt.Sprint(brPort))
	sky.waitStdout(30*time.Second, "Ctrl-C stops.")
	for _, want := range []string{"NameServer  " + nsAddr, "Broker      " + brAddr, "Data        " + data} {
		if !strings.Contains(sky.stdout.String(), want) {
			t.Errorf("banner lacks %q:\n%s", want, sky.stdout.String())
		}
	}
	for _, addr := range []string{nsAddr, brAddr, fmt.Sprintf("127.0.0.1:%d", brPort-2)} {
		if !dialable(addr) {
			t.Fatalf("nothing listens on %s", addr)
		}
	}

	topic := unique("TBin")
	p := newProducer(t, nsAddr)
	const n = 10
	for i := range n {
		res, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("bin-%d", i))))
		if err != nil || res.Status != primitive.SendOK {
			t.Fatalf("send %d: %v %v", i, res, err)
		}
	}
	got := newReceived()
	stopConsumer := startPushConsumer(t, nsAddr, unique("CGBin"), topic, all, collect(got))
	eventually(t, 30*time.Second, "all messages consumed", func() bool { d, _ := got.count(); return d == n })
	stopConsumer()
	_ = p.Shutdown()

	sky.signal(syscall.SIGTERM)
	if code := sky.wait(40 * time.Second); code != 0 {
		t.Fatalf("skyrocket exited %d after SIGTERM", code)
	}
	if !strings.Contains(sky.stdout.String(), "Skyrocket stopped.") {
		t.Errorf("no stop line on stdout")
	}
	if _, err := os.Stat(filepath.Join(data, "store", "abort")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("abort file after a clean exit: %v", err)
	}
	for _, f := range []string{"store/checkpoint", "store/config/consumerOffset.json", "store/config/topics.json"} {
		if _, err := os.Stat(filepath.Join(data, f)); err != nil {
			t.Errorf("%s missing after a clean exit: %v", f, err)
		}
	}
	for _, addr := range []string{nsAddr, brAddr} {
		if dialable(addr) {
			t.Errorf("%s still accepts connections after exit", addr)
		}
	}
}

func TestBinaries_PrintConfig_JavaNames(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	bin := buildBinaries(t, "mqnamesrv", "mqbroker")
	home := t.TempDir()

	code, out, errOut := runProc(t, home, filepath.Join(bin, "mqnamesrv"), "-p")
	if code != 0 {
		t.Fatalf("mqnamesrv -p: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"listenPort=9876\n", "kvConfigPath=" + filepath.Join(home, "namesrv", "kvConfig.json") + "\n",
		"orderMessageEnable=false\n", "serverChannelMaxIdleTimeSeconds=120\n", "configStorePath="} {
		if !strings.Contains(out, want) {
			t.Errorf("mqnamesrv -p lacks %q:\n%s", want, out)
		}
	}

	code, out, errOut = runProc(t, home, filepath.Join(bin, "mqbroker"), "-p", "-c", "../configs/broker.conf")
	if code != 0 {
		t.Fatalf("mqbroker -p: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"brokerClusterName=DefaultCluster\n", "brokerName=broker-a\n", "brokerId=0\n",
		"deleteWhen=04\n", "fileReservedTime=48\n", "brokerRole=ASYNC_MASTER\n", "flushDiskType=ASYNC_FLUSH\n",
		"enablePropertyFilter=true\n", "listenPort=10911\n", "haListenPort=10912\n", "autoCreateTopicEnable=true\n",
		"storePathRootDir=" + filepath.Join(home, "store") + "\n", "mappedFileSizeCommitLog=1073741824\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("mqbroker -p lacks %q", want)
		}
	}

	code, out, _ = runProc(t, home, filepath.Join(bin, "mqbroker"), "-m", "-c", "../configs/broker.conf", "-n", "127.0.0.1:9876")
	if code != 0 || !strings.Contains(out, "namesrvAddr=127.0.0.1:9876\n") || strings.Contains(out, "brokerPermission=") {
		t.Errorf("mqbroker -m: exit %d:\n%s", code, out)
	}

	code, _, errOut = runProc(t, home, filepath.Join(bin, "mqbroker"), "-c", filepath.Join(home, "missing.conf"))
	if code != 1 || !strings.Contains(errOut, "missing.conf") {
		t.Errorf("mqbroker with a missing config: exit %d, stderr %q; want 1 and the path", code, errOut)
	}
}
