package conformance

// Crash safety with real processes: mqnamesrv and mqbroker run as children, the Go
// client sends from several goroutines and records every SEND_OK, the broker is stopped
// mid-stream — kill -9 under SYNC_FLUSH, SIGTERM under ASYNC_FLUSH — and restarted on
// the same store; a new consumer group must then receive every acknowledged message (at
// least once). Small mapped files make the stream cross CommitLog, ConsumeQueue and
// IndexFile boundaries before the stop.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

func TestCrash_BrokerStoppedMidStream(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries and kills child processes")
	}
	bin := buildBinaries(t, "mqnamesrv", "mqbroker")
	t.Run("Kill9DuringSyncFlush_LosesNoAcknowledgedMessage", func(t *testing.T) {
		crashScenario(t, bin, "SYNC_FLUSH", syscall.SIGKILL)
	})
	t.Run("SigtermDuringAsyncFlush_RestartLosesNothing", func(t *testing.T) {
		crashScenario(t, bin, "ASYNC_FLUSH", syscall.SIGTERM)
	})
	t.Run("Kill9DuringRollover_LosesNoAcknowledgedMessage", func(t *testing.T) {
		crashScenario(t, bin, "SYNC_FLUSH", syscall.SIGKILL, atRollover)
	})
}

// atRollover waits, after the acknowledged minimum, for the moment a CommitLog file
// fills and the next one takes over: the broker is killed while the next spare file is
// being created (its .tmp exists: the roll happened a few milliseconds ago, the old
// file's blank and the new file's first records are being written and flushed) or, if
// that window is missed, right after the file count grows. It reports what it saw.
func atRollover(t *testing.T, store string) string {
	dir := filepath.Join(store, "commitlog")
	count := func() (files int, tmp bool) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".tmp") {
				tmp = true
			} else if len(e.Name()) == 20 {
				files++
			}
		}
		return files, tmp
	}
	start, _ := count()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		n, tmp := count()
		if tmp {
			return fmt.Sprintf("a spare file being created (%d files)", n)
		}
		if n > start+1 { // the first growth may be the spare of the current file
			return fmt.Sprintf("the file count grew from %d to %d", start, n)
		}
		time.Sleep(200 * time.Microsecond) // polling the directory: the window is milliseconds wide
	}
	t.Fatalf("no CommitLog roll-over within 30 s (%d files)", start)
	return ""
}

// acks records the bodies the broker acknowledged with SEND_OK, and where it said it
// put them.
type acks struct {
	mu     sync.Mutex
	bodies []string
	where  map[string]queueOffset
}

type queueOffset struct {
	queue  int
	offset int64
}

func (a *acks) add(body string, res *primitive.SendResult) {
	a.mu.Lock()
	a.bodies = append(a.bodies, body)
	if a.where == nil {
		a.where = map[string]queueOffset{}
	}
	a.where[body] = queueOffset{res.MessageQueue.QueueId, res.QueueOffset}
	a.mu.Unlock()
}

func (a *acks) snapshot() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.bodies)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// crashScenario runs the scenario; when (optional) says when to stop the broker once the
// minimum is acknowledged (default: at once).
func crashScenario(t *testing.T, bin, flushDiskType string, sig syscall.Signal, when ...func(t *testing.T, store string) string) {
	const (
		senders  = 8
		minAcked = 1000 // acknowledged messages before the stop
	)
	home, dir := t.TempDir(), t.TempDir()
	store := filepath.Join(dir, "store")

	nsPort := freePort(t)
	nsAddr := fmt.Sprintf("127.0.0.1:%d", nsPort)
	nsConf := filepath.Join(dir, "namesrv.conf")
	writeFile(t, nsConf, fmt.Sprintf("listenPort=%d\nkvConfigPath=%s\n", nsPort, filepath.Join(dir, "namesrv", "kvConfig.json")))
	ns := startProc(t, home, filepath.Join(bin, "mqnamesrv"), "-c", nsConf, "-bind", "127.0.0.1")
	ns.waitStdout(30*time.Second, "The Name Server boot success")

	brPort := freeBrokerPort(t)
	brConf := filepath.Join(dir, "broker.conf")
	writeFile(t, brConf, strings.Join([]string{
		"brokerClusterName=CrashCluster",
		"brokerName=broker-crash",
		"brokerIP1=127.0.0.1",
		fmt.Sprintf("listenPort=%d", brPort),
		"namesrvAddr=" + nsAddr,
		"storePathRootDir=" + store,
		"flushDiskType=" + flushDiskType,
		"mappedFileSizeCommitLog=65536",   // 64 KiB, ~400 records: the stream crosses several CommitLog files
		"mappedFileSizeConsumeQueue=1200", // 60 units per ConsumeQueue file
		"maxHashSlotNum=100",
		"maxIndexNum=400",
		"maxMessageSize=16384",
	}, "\n")+"\n")
	startBroker := func() *proc {
		b := startProc(t, home, filepath.Join(bin, "mqbroker"), "-c", brConf, "-bind", "127.0.0.1")
		b.waitStdout(60*time.Second, "boot success")
		return b
	}
	br := startBroker()

	topic := unique("TCrash")
	p := newProducer(t, nsAddr, producer.WithSendMsgTimeout(3*time.Second))
	eventually(t, 30*time.Second, "a first send to succeed", func() bool {
		res, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(topic+"-warmup")))
		return err == nil && res.Status == primitive.SendOK
	})

	// Senders: every SEND_OK is recorded; errors (the broker is gone) are counted.
	var ok acks
	var attempts, failures atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body := fmt.Sprintf("%s-%d-%06d", topic, g, i)
				attempts.Add(1)
				res, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(body)))
				if err == nil && res.Status == primitive.SendOK {
					ok.add(body, res)
					continue
				}
				failures.Add(1)
				select { // the broker is down: back off instead of spinning
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}()
	}
	// A hostile client interleaves CONSUMER_SEND_MSG_BACK requests whose groups would
	// name %DLQ%/%RETRY% topics with '/' or ".." with the stream (the critical issue: each
	// such record used to cut the CommitLog on restart); every one must be refused.
	var hostile, hostileAccepted atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := newWire(t, fmt.Sprintf("127.0.0.1:%d", brPort))
		groups := []string{"adv/boot", "../../x", "a/../../y"}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			req := protocol.NewRequest(protocol.CodeConsumerSendMsgBack)
			(&protocol.ConsumerSendMsgBackRequestHeader{Offset: 0, Group: groups[i%len(groups)], DelayLevel: int32(i%3 - 1), OriginTopic: topic}).Encode(&req.Ext)
			r, err := w.cl.Invoke(context.Background(), w.addr, req, 3*time.Second)
			if err != nil {
				continue // the broker is being stopped
			}
			hostile.Add(1)
			if r.ResponseCode() == protocol.ResSuccess {
				hostileAccepted.Add(1)
			}
		}
	}()
	eventually(t, 60*time.Second, fmt.Sprintf("%d acknowledged sends", minAcked), func() bool {
		return len(ok.snapshot()) >= minAcked && hostile.Load() >= 20
	})

	// Stop the broker while the senders are still sending.
	for _, w := range when {
		t.Logf("stopping the broker at %s", w(t, store))
	}
	br.signal(sig)
	code := br.wait(60 * time.Second)
	ackedAtStop := len(ok.snapshot())
	close(stop)
	wg.Wait()
	_, abortErr := os.Stat(filepath.Join(store, "abort"))
	switch sig {
	case syscall.SIGKILL:
		if code != -1 {
			t.Fatalf("broker exit code %d after kill -9, want death by signal", code)
		}
		if abortErr != nil {
			t.Fatalf("no abort file after kill -9 (%v): the restart would not take the recovery path", abortErr)
		}
	default:
		if code != 0 {
			t.Fatalf("broker exit code %d after %v, want 0", code, sig)
		}
		if !errors.Is(abortErr, os.ErrNotExist) {
			t.Fatalf("abort file after a clean stop: %v", abortErr)
		}
	}

	// Restart on the same store and consume everything with a new group.
	br = startBroker()
	if sig == syscall.SIGKILL && !strings.Contains(strings.ToLower(br.stderr.String()), "abnormal") {
		t.Errorf("the restarted broker did not report an abnormal-shutdown recovery; log:\n%s", tail(br.stderr.String(), 4096))
	}
	acked := ok.snapshot()
	got := newReceived()
	stopConsumer := startPushConsumer(t, nsAddr, unique("CGCrash"), topic, all, collect(got))
	missing := func() []string {
		got.mu.Lock()
		defer got.mu.Unlock()
		var out []string
		for _, b := range acked {
			if _, ok := got.msgs[b]; !ok {
				out = append(out, b)
			}
		}
		return out
	}
	deadline := time.Now().Add(90 * time.Second)
	for len(missing()) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	stopConsumer()
	distinct, total := got.count()
	files, _ := os.ReadDir(filepath.Join(store, "commitlog"))
	t.Logf("%s, stop by %v: %d sends attempted, %d acknowledged (%d before the stop), %d failed; %d hostile send-backs answered, %d accepted; consumed %d distinct, %d deliveries; %d CommitLog files",
		flushDiskType, sig, attempts.Load(), len(acked), ackedAtStop, failures.Load(), hostile.Load(), hostileAccepted.Load(), distinct, total, len(files))
	if hostileAccepted.Load() > 0 {
		t.Errorf("%d send-backs with a hostile group were accepted", hostileAccepted.Load())
	}
	if len(files) < 2 {
		t.Errorf("the stream stayed in %d CommitLog file(s): the test no longer crosses file boundaries", len(files))
	}
	if m := missing(); len(m) > 0 {
		logLoss(t, &ok, got, m, store)
		t.Fatalf("%d of %d acknowledged messages lost after the restart, e.g. %v", len(m), len(acked), m[:min(len(m), 10)])
	}

	// The recovered store shuts down cleanly too.
	_ = p.Shutdown()
	br.signal(syscall.SIGTERM)
	if code := br.wait(60 * time.Second); code != 0 {
		t.Errorf("restarted broker exit code %d after SIGTERM", code)
	}
	if _, err := os.Stat(filepath.Join(store, "abort")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("abort file after the final clean stop: %v", err)
	}
	ns.signal(syscall.SIGTERM)
	if code := ns.wait(30 * time.Second); code != 0 {
		t.Errorf("mqnamesrv exit code %d after SIGTERM", code)
	}
}

// logLoss describes a loss so that it can be reduced to a store-level reproduction: per
// queue, the offsets acknowledged, consumed and missing, and the store's files.
func logLoss(t *testing.T, ok *acks, got *received, missing []string, store string) {
	type span struct{ n, lo, hi int64 }
	widen := func(m map[int]*span, q int, off int64) {
		s := m[q]
		if s == nil {
			s = &span{lo: off, hi: off}
			m[q] = s
		}
		s.n++
		s.lo, s.hi = min(s.lo, off), max(s.hi, off)
	}
	acked, consumed, lost := map[int]*span{}, map[int]*span{}, map[int]*span{}
	ok.mu.Lock()
	for _, qo := range ok.where {
		widen(acked, qo.queue, qo.offset)
	}
	for _, b := range missing {
		widen(lost, ok.where[b].queue, ok.where[b].offset)
	}
	ok.mu.Unlock()
	got.mu.Lock()
	for _, m := range got.msgs {
		widen(consumed, m.Queue.QueueId, m.QueueOffset)
	}
	got.mu.Unlock()
	for q := range acked {
		a, c, l := acked[q], consumed[q], lost[q]
		if c == nil {
			c = &span{}
		}
		if l == nil {
			l = &span{}
		}
		t.Logf("queue %d: acknowledged %d [%d..%d], consumed %d [%d..%d], lost %d [%d..%d]", q, a.n, a.lo, a.hi, c.n, c.lo, c.hi, l.n, l.lo, l.hi)
	}
	_ = filepath.WalkDir(store, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				rel, _ := filepath.Rel(store, path)
				t.Logf("store file %s (%d bytes)", rel, fi.Size())
			}
		}
		return nil
	})
}
