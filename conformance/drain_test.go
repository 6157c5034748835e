package conformance

// Issue 10, graceful drain: a rolling restart of one broker of a two-broker cluster, the
// binaries as users run them, while a Go producer sends without pause and without client
// retries (WithRetry(0): one attempt per message, so any send the stopping broker fails
// is a failed send). Broker A is stopped with cmd/mqshutdown (SIGTERM by its pid file):
// it re-registers without write permission, keeps serving for its drain window, which
// covers the Go client's 30 s route refresh (internal/client.go _PullNameServerInterval,
// not configurable, hence a 33 s window here), then unregisters, flushes and exits 0.
// Java closes its ports first and unregisters last: its clients see errors until their
// refresh. A is then started again and takes sends again.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

func TestConformance_Drain_RollingRestartNoFailedSend(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries; takes about 80 s")
	}
	const drain = 33 * time.Second
	bin := buildBinaries(t, "mqnamesrv", "mqbroker")
	home, dir := t.TempDir(), t.TempDir()

	nsPort := freePort(t)
	nsAddr := fmt.Sprintf("127.0.0.1:%d", nsPort)
	nsConf := filepath.Join(dir, "namesrv.conf")
	writeFile(t, nsConf, fmt.Sprintf("listenPort=%d\nkvConfigPath=%s\n", nsPort, filepath.Join(dir, "namesrv", "kvConfig.json")))
	ns := startProc(t, home, filepath.Join(bin, "mqnamesrv"), "-c", nsConf, "-bind", "127.0.0.1")
	ns.waitStdout(30*time.Second, "The Name Server boot success")

	type brokerSide struct {
		name, conf, store, addr string
		p                       *proc
	}
	sides := map[string]*brokerSide{}
	for _, name := range []string{"broker-a", "broker-b"} {
		port := freeBrokerPort(t)
		b := &brokerSide{name: name, store: filepath.Join(dir, name), addr: fmt.Sprintf("127.0.0.1:%d", port),
			conf: filepath.Join(dir, name+".conf")}
		writeFile(t, b.conf, strings.Join([]string{
			"brokerClusterName=DrainCluster", "brokerName=" + name, "brokerIP1=127.0.0.1",
			fmt.Sprintf("listenPort=%d", port), "namesrvAddr=" + nsAddr, "storePathRootDir=" + b.store,
			"mappedFileSizeCommitLog=16777216", "mappedFileSizeConsumeQueue=60000", "maxHashSlotNum=1000", "maxIndexNum=4000",
		}, "\n")+"\n")
		sides[name] = b
	}
	start := func(b *brokerSide) {
		b.p = startProc(t, home, filepath.Join(bin, "mqbroker"), "-c", b.conf, "-bind", "127.0.0.1", "-drain", drain.String())
		b.p.waitStdout(60*time.Second, "boot success")
	}
	a, bb := sides["broker-a"], sides["broker-b"]
	start(a)
	start(bb)

	topic := unique("TDrain")
	for _, b := range []*brokerSide{a, bb} {
		w := newWire(t, b.addr)
		if r := w.call(protocol.CodeUpdateAndCreateTopic, &protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102",
			ReadQueueNums: 4, WriteQueueNums: 4, Perm: protocol.PermRead | protocol.PermWrite, TopicFilterType: "SINGLE_TAG"}, nil); r.ResponseCode() != protocol.ResSuccess {
			t.Fatalf("create topic on %s: %v %q", b.name, r.ResponseCode(), r.Remark)
		}
	}

	p := newProducer(t, nsAddr, producer.WithRetry(0), producer.WithSendMsgTimeout(5*time.Second))
	var (
		mu       sync.Mutex
		perSide  = map[string]int{}
		phase    atomic.Int32 // 0 before the stop, 1 draining, 2 A stopped, 3 A restarted
		byPhase  [4]map[string]int
		failures []string
		sent     atomic.Int64
	)
	for i := range byPhase {
		byPhase[i] = map[string]int{}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			tick := time.NewTicker(5 * time.Millisecond) // ~400 sends/s in all: a steady stream
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				ph := phase.Load()
				res, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(fmt.Sprintf("drain-%d-%d", g, i))))
				sent.Add(1)
				mu.Lock()
				if err != nil || res.Status != primitive.SendOK {
					failures = append(failures, fmt.Sprintf("phase %d: %v %v", ph, res, err))
				} else {
					perSide[res.MessageQueue.BrokerName]++
					byPhase[ph][res.MessageQueue.BrokerName]++
				}
				mu.Unlock()
			}
		}(g)
	}
	count := func(name string) int { mu.Lock(); defer mu.Unlock(); return perSide[name] }
	eventually(t, 60*time.Second, "sends reaching both brokers", func() bool { return count("broker-a") >= 50 && count("broker-b") >= 50 })

	pidFile := filepath.Join(a.store, "broker.pid")
	if b, err := os.ReadFile(pidFile); err != nil || strings.TrimSpace(string(b)) != fmt.Sprint(a.p.cmd.Process.Pid) {
		t.Fatalf("pid file %s: %q %v, want %d", pidFile, b, err, a.p.cmd.Process.Pid)
	}
	phase.Store(1)
	stopAt := time.Now()
	out, err := exec.Command("sh", "../cmd/mqshutdown/mqshutdown", "broker", "-p", pidFile).CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("Send shutdown request to mqbroker(%d) OK", a.p.cmd.Process.Pid)) {
		t.Fatalf("mqshutdown: %v %s", err, out)
	}
	eventually(t, 10*time.Second, "the drain announced", func() bool { return strings.Contains(a.p.stderr.String(), "draining") })
	if code := a.p.wait(drain + 40*time.Second); code != 0 {
		t.Fatalf("broker-a exited %d after SIGTERM", code)
	}
	stopped := time.Since(stopAt)
	phase.Store(2)
	if stopped < drain {
		t.Fatalf("broker-a stopped %v after SIGTERM, before its %v drain", stopped, drain)
	}
	for _, f := range []string{"abort", "broker.pid"} {
		if _, err := os.Stat(filepath.Join(a.store, f)); !os.IsNotExist(err) {
			t.Errorf("%s after the clean stop: %v", f, err)
		}
	}
	if !strings.Contains(a.p.stderr.String(), "The broker shutdown OK") {
		t.Errorf("no shutdown line on stderr")
	}
	start(a)
	phase.Store(3)
	eventually(t, 60*time.Second, "sends reaching the restarted broker-a", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return byPhase[3]["broker-a"] >= 20
	})
	close(stop)
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d sends, %d failed; before the stop a=%d b=%d; during the %v drain (stopped after %v) a=%d b=%d; A down a=%d b=%d; after the restart a=%d b=%d",
		sent.Load(), len(failures), byPhase[0]["broker-a"], byPhase[0]["broker-b"], drain, stopped.Round(time.Millisecond),
		byPhase[1]["broker-a"], byPhase[1]["broker-b"], byPhase[2]["broker-a"], byPhase[2]["broker-b"], byPhase[3]["broker-a"], byPhase[3]["broker-b"])
	if len(failures) > 0 {
		t.Fatalf("%d failed sends, first: %s", len(failures), failures[0])
	}
	if byPhase[1]["broker-a"] == 0 {
		t.Errorf("broker-a served no send while draining: the window saw nothing routed to it")
	}
}

// TestConformance_Drain_AllInOne_NamesrvServesDuringWindow: the all-in-one binary, with a
// second broker (mqbroker) registered with its NameServer, drains on SIGTERM: its broker
// is announced read-only by its own NameServer, which keeps serving routes for the whole
// window, and the process exits 0 after it, store closed cleanly, NameServer stopped.
func TestConformance_Drain_AllInOne_NamesrvServesDuringWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	const drain = 4 * time.Second
	bin := buildBinaries(t, "skyrocket", "mqbroker")
	home, data, dir := t.TempDir(), t.TempDir(), t.TempDir()
	nsPort, aPort, bPort := freePort(t), freeBrokerPort(t), freeBrokerPort(t)
	nsAddr := fmt.Sprintf("127.0.0.1:%d", nsPort)

	sky := startProc(t, home, filepath.Join(bin, "skyrocket"), "-data", data, "-bind", "127.0.0.1",
		"-namesrv-port", fmt.Sprint(nsPort), "-port", fmt.Sprint(aPort), "-drain", drain.String())
	sky.waitStdout(30*time.Second, "Skyrocket is running")
	conf := filepath.Join(dir, "broker-b.conf")
	writeFile(t, conf, strings.Join([]string{"brokerName=broker-b", "brokerIP1=127.0.0.1", fmt.Sprintf("listenPort=%d", bPort),
		"namesrvAddr=" + nsAddr, "storePathRootDir=" + filepath.Join(dir, "store-b"), "mappedFileSizeCommitLog=16777216",
		"mappedFileSizeConsumeQueue=60000", "maxHashSlotNum=1000", "maxIndexNum=4000"}, "\n")+"\n")
	b := startProc(t, home, filepath.Join(bin, "mqbroker"), "-c", conf, "-bind", "127.0.0.1")
	b.waitStdout(30*time.Second, "boot success")

	ns := newWire(t, nsAddr)
	perms := func() map[string]int32 {
		r := ns.call(protocol.CodeGetRouteinfoByTopic, &protocol.GetRouteInfoRequestHeader{Topic: "TBW102"}, nil)
		if r.ResponseCode() != protocol.ResSuccess {
			return nil
		}
		var rd protocol.TopicRouteData
		stdJSON(t, r.Body, &rd)
		m := map[string]int32{}
		for _, q := range rd.QueueDatas {
			m[q.BrokerName] = q.Perm
		}
		return m
	}
	eventually(t, 20*time.Second, "both brokers writable in the route", func() bool {
		p := perms()
		return protocol.IsWriteable(p["broker-a"]) && protocol.IsWriteable(p["broker-b"])
	})

	stopAt := time.Now()
	sky.signal(syscall.SIGTERM)
	eventually(t, drain, "broker-a read-only in its own NameServer's route", func() bool {
		p := perms()
		a, ok := p["broker-a"]
		return ok && !protocol.IsWriteable(a) && protocol.IsWriteable(p["broker-b"])
	})
	// The broker logs its drain after the read-only registration returns: the route can
	// show it first (a CI run looked at the log in between).
	eventually(t, drain, "the drain line in the log", func() bool { return strings.Contains(sky.stderr.String(), "draining") })
	if code := sky.wait(drain + 30*time.Second); code != 0 {
		t.Fatalf("skyrocket exited %d after SIGTERM", code)
	}
	if took := time.Since(stopAt); took < drain {
		t.Errorf("skyrocket stopped %v after SIGTERM, before its %v drain", took, drain)
	}
	if dialable(nsAddr) {
		t.Error("the NameServer still accepts connections after the process exited")
	}
	if _, err := os.Stat(filepath.Join(data, "store", "abort")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("abort file after the drained stop: %v", err)
	}
	b.signal(syscall.SIGTERM)
	b.wait(30 * time.Second)
}
