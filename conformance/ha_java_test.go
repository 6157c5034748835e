package conformance

// Master/slave replication across implementations (issue 9's interop): a Java 4.9.7 slave
// following a Skyrocket master (SYNC_MASTER, then ASYNC_MASTER after a restart on the same
// store), and a Skyrocket slave following a Java 4.9.7 SYNC_MASTER and ASYNC_MASTER. Each run drives the
// unmodified Go client through the master's NameServer: every send SEND_OK while the slave
// keeps up, the slave's CommitLog byte-identical to the master's over several 1 MiB files,
// the slave's metadata sync (GET_ALL_TOPIC_CONFIG on the VIP port, consumer offsets, delay
// offsets, subscription groups) against the other implementation, and a consumer that goes
// on consuming from the slave once the master is stopped. Each slave joins empty a master
// whose history fills more than one file, and gets the newest file only, from its first
// byte (the transfer rule both implementations share). A SYNC_MASTER without a slave is
// also compared on the raw wire: both answer SLAVE_NOT_AVAILABLE with the same header.
// Skipped unless SKYROCKET_JAVA_SERVERS=1 (conformance/java/run.sh diff).

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/rs/zerolog"

	javaservers "github.com/skyrocket-mq/skyrocket/conformance/java"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
)

const (
	haJavaHeap     = "-Xms512m -Xmx512m -XX:MaxDirectMemorySize=512m"
	haJavaFileSize = 1 << 20 // mappedFileSizeCommitLog on both sides: a run crosses files
	haJavaLoad     = 3000    // sends under SYNC_MASTER
	haJavaBody     = 400     // bytes per body: ~600-byte records, ~1.8 MB in all
)

// haLog keeps the ha component's lines of a broker's log (zerolog writes one event per
// Write).
type haLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *haLog) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"component":"ha"`)) {
		l.mu.Lock()
		l.lines = append(l.lines, string(p))
		l.mu.Unlock()
	}
	return len(p), nil
}

// count is the number of lines with message msg.
func (l *haLog) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, `"message":"`+msg+`"`) {
			n++
		}
	}
	return n
}

func (l *haLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "")
}

// idleKeepsConnection leaves the HA connection idle for longer than Java's 20 s
// housekeeping (only reports and heartbeats, every 5 s, cross it), then checks it is the
// same connection (log has `connects` lines with msg) and that a SYNC_MASTER send goes
// through at once.
func idleKeepsConnection(t *testing.T, log *haLog, msg string, connects int, prod interface {
	SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
}, topic string) {
	t.Helper()
	const idle = 25 * time.Second
	time.Sleep(idle) // nothing to wait for: the point is that nothing happens
	t0 := time.Now()
	res, err := prod.SendSync(context.Background(), primitive.NewMessage(topic, []byte("after idle")))
	if err != nil || res.Status != primitive.SendOK {
		t.Fatalf("SYNC_MASTER send after %v idle: %v %v", idle, res, err)
	}
	if n := log.count(msg); n != connects {
		t.Fatalf("%d %q after %v idle, want %d:\n%s", n, msg, idle, connects, log)
	}
	t.Logf("the HA connection stayed up over %v idle (heartbeats only); the next SYNC_MASTER send took %v", idle, time.Since(t0).Round(time.Millisecond))
}

// startJavaHA starts Java servers for an HA pair and stops them at cleanup.
func startJavaHA(t *testing.T, o javaservers.Options) *javaservers.Servers {
	t.Helper()
	o.Dir = t.TempDir()
	o.Heap = haJavaHeap
	// waitTimeMillsInSendQueue: Java's fast failure refuses a send that waited over 200 ms in
	// its send queue (SYSTEM_BUSY "[TIMEOUT_CLEAN_QUEUE]broker busy"), which three JVMs on a
	// loaded 2-core CI machine cause now and then; these tests are about replication.
	o.Broker = append([]string{"mappedFileSizeCommitLog=" + strconv.Itoa(haJavaFileSize), "waitTimeMillsInSendQueue=10000"}, o.Broker...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t0 := time.Now()
	srv, err := javaservers.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Java 4.9.7 servers up in %v: namesrv %q broker %s", time.Since(t0).Round(time.Millisecond), srv.NamesrvAddr, srv.BrokerAddr)
	t.Cleanup(func() {
		t1 := time.Now()
		if err := srv.Stop(); err != nil {
			t.Errorf("stop the Java servers: %v", err)
		}
		t.Logf("Java servers stopped in %v", time.Since(t1).Round(time.Millisecond))
	})
	return srv
}

// runtimeInfo is GET_BROKER_RUNTIME_INFO's table. A Java broker answers SYSTEM_ERROR
// "java.util.NoSuchElementException, ...LinkedList.getLast" while its StoreStatsService has
// taken no sample yet (StoreStatsService.getPutTps reads putTimesList.getLast() unguarded; the
// first sample is taken a second after the service thread starts, later on a loaded CI
// machine): that answer is asked again, for up to 20 s; any other refusal fails at once.
func runtimeInfo(t *testing.T, w *wire) map[string]string {
	t.Helper()
	var r *protocol.Command
	deadline := time.Now().Add(20 * time.Second)
	for {
		r = w.call(protocol.CodeGetBrokerRuntimeInfo, nil, nil)
		if r.ResponseCode() != protocol.ResSystemError || !strings.Contains(r.Remark, "NoSuchElementException") || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond) // a poll step of the deadline loop above
	}
	var kv protocol.KVTable
	if r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("runtime info of %s: %v %q", w.addr, r.ResponseCode(), r.Remark)
	}
	if err := protocol.UnmarshalBody(r.Body, &kv); err != nil {
		t.Fatalf("runtime info of %s: %v", w.addr, err)
	}
	return kv.Table
}

// maxPhyOffset is a broker's commitLogMaxOffset, asked over the wire.
func maxPhyOffset(t *testing.T, w *wire) int64 {
	t.Helper()
	v, err := strconv.ParseInt(runtimeInfo(t, w)["commitLogMaxOffset"], 10, 64)
	if err != nil {
		t.Fatalf("commitLogMaxOffset of %s: %v", w.addr, err)
	}
	return v
}

// sameCommitLogs compares two CommitLog directories byte for byte over [from, upTo): every
// file starting below upTo must be on both sides (either side may have pre-created the next
// one). It returns the bytes compared.
func sameCommitLogs(t *testing.T, masterDir, slaveDir string, from, upTo int64) int64 {
	t.Helper()
	var compared int64
	files := 0
	for start := from - from%haJavaFileSize; start < upTo; start += haJavaFileSize {
		name := fmt.Sprintf("%020d", start)
		m, err := os.ReadFile(filepath.Join(masterDir, name))
		if err != nil {
			t.Fatalf("master CommitLog: %v", err)
		}
		s, err := os.ReadFile(filepath.Join(slaveDir, name))
		if err != nil {
			t.Fatalf("slave CommitLog: %v", err)
		}
		lo := max(from-start, 0)
		hi := min(upTo-start, haJavaFileSize)
		if int64(len(m)) < hi || int64(len(s)) < hi {
			t.Fatalf("CommitLog %s: master %d bytes, slave %d, want at least %d", name, len(m), len(s), hi)
		}
		if !bytes.Equal(m[lo:hi], s[lo:hi]) {
			i := lo
			for m[i] == s[i] {
				i++
			}
			t.Fatalf("CommitLog %s differs at byte %d (offset %d): master %x, slave %x", name, i, start+i,
				m[i:min(i+16, hi)], s[i:min(i+16, hi)])
		}
		compared += hi - lo
		files++
	}
	if compared == 0 {
		t.Fatal("no CommitLog bytes compared")
	}
	t.Logf("slave CommitLog identical to the master's over [%d, %d): %d bytes in %d files", from, upTo, compared, files)
	return compared
}

// sendLoad sends n messages from 8 goroutines and fails on any status but want. It
// returns the bodies.
func sendLoad(t *testing.T, prod interface {
	SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
}, topic, tag string, n int, want primitive.SendStatus) []string {
	t.Helper()
	const workers = 8
	pad := strings.Repeat("r", haJavaBody)
	bodies := make([]string, n)
	var failed atomic.Value
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if failed.Load() != nil {
					return
				}
				b := fmt.Sprintf("%s-%s-%d-%s", topic, tag, i, pad)[:haJavaBody]
				res, err := prod.SendSync(context.Background(), primitive.NewMessage(topic, []byte(b)))
				if err != nil || res.Status != want {
					failed.Store(fmt.Sprintf("send %d: %v %v", i, res, err))
					return
				}
				bodies[i] = b
			}
		}(w)
	}
	wg.Wait()
	if f := failed.Load(); f != nil {
		t.Fatalf("%s (want status %d)", f, want)
	}
	d := time.Since(t0)
	t.Logf("%d sends (%s), all status %d, in %v (%.0f/s)", n, tag, want, d.Round(time.Millisecond), float64(n)/d.Seconds())
	return bodies
}

// probeSendOK sends probes until one is SEND_OK (the slave connected and reported).
func probeSendOK(t *testing.T, prod interface {
	SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
}, topic string, d time.Duration) {
	t.Helper()
	t0 := time.Now()
	statuses := map[string]int{} // SLAVE_NOT_AVAILABLE before the slave connects; FLUSH_SLAVE_TIMEOUT or a client timeout until it reports
	eventually(t, d, "SEND_OK from the SYNC_MASTER (the slave connected and reported)", func() bool {
		res, err := prod.SendSync(context.Background(), primitive.NewMessage(topic, []byte("probe")))
		if err != nil {
			statuses["error"]++
			return false
		}
		statuses[strconv.Itoa(int(res.Status))]++
		return res.Status == primitive.SendOK
	})
	t.Logf("first SEND_OK after %v (probe statuses until then: %v)", time.Since(t0).Round(time.Millisecond), statuses)
}

// preloadHistory fills more than one CommitLog file on a SYNC_MASTER that has no slave
// yet (every send SLAVE_NOT_AVAILABLE, stored all the same) and returns where an empty
// slave joining now starts: the first byte of the master's newest file (Java:
// HAConnection.WriteSocketService for a slave reporting 0).
func preloadHistory(t *testing.T, prod interface {
	SendSync(context.Context, ...*primitive.Message) (*primitive.SendResult, error)
}, topic string, masterEnd func() int64) int64 {
	t.Helper()
	sendLoad(t, prod, topic, "history", 2000, primitive.SendSlaveNotAvailable)
	end := masterEnd()
	if end < haJavaFileSize {
		t.Fatalf("the history is %d bytes, less than one %d-byte CommitLog file", end, haJavaFileSize)
	}
	return end - end%haJavaFileSize
}

// createRoutedTopic creates a 4-queue topic on a master and waits until the NameServer ns
// routes it.
func createRoutedTopic(t *testing.T, w *wire, ns, topic string) {
	t.Helper()
	if r := w.call(protocol.CodeUpdateAndCreateTopic, &protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102",
		ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: "SINGLE_TAG"}, nil); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("create topic: %v %q", r.ResponseCode(), r.Remark)
	}
	nw := newWire(t, ns)
	eventually(t, 30*time.Second, "the NameServer to route "+topic, func() bool {
		r := nw.call(protocol.CodeGetRouteinfoByTopic, &protocol.GetRouteInfoRequestHeader{Topic: topic}, nil)
		return r.ResponseCode() == protocol.ResSuccess
	})
}

// createTopicAndGroup creates a 4-queue topic and a subscription group on a master and
// commits offset 7 for queue 1.
func createTopicAndGroup(t *testing.T, w *wire, ns, topic, group string) {
	t.Helper()
	createRoutedTopic(t, w, ns, topic)
	if r := w.call(protocol.CodeUpdateAndCreateSubscriptiongroup, nil, []byte(`{"groupName":"`+group+`","retryQueueNums":1}`)); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("create group: %v %q", r.ResponseCode(), r.Remark)
	}
	if r := w.call(protocol.CodeUpdateConsumerOffset, &protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: 1, CommitOffset: 7}, nil); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("commit offset: %v %q", r.ResponseCode(), r.Remark)
	}
}

// waitMetadataOnSlave waits until the slave (asked over the wire) has the topic, the
// group and the committed offset, and holds delayOffset.json as the master answers it.
func waitMetadataOnSlave(t *testing.T, master, slave *wire, slaveStoreRoot, topic, group string) {
	t.Helper()
	t0 := time.Now()
	eventually(t, 20*time.Second, "topic, group and offset on the slave", func() bool {
		r := slave.call(protocol.CodeGetAllTopicConfig, nil, nil)
		if !strings.Contains(string(r.Body), `"topicName":"`+topic+`"`) {
			return false
		}
		r = slave.call(protocol.CodeGetAllSubscriptiongroupConfig, nil, nil)
		if !strings.Contains(string(r.Body), `"groupName":"`+group+`"`) {
			return false
		}
		r = slave.call(protocol.CodeQueryConsumerOffset, &protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: 1}, nil)
		var h protocol.QueryConsumerOffsetResponseHeader
		_ = h.Decode(r.Ext)
		return r.ResponseCode() == protocol.ResSuccess && h.Offset == 7
	})
	t.Logf("topic, group and offset reached the slave in %v", time.Since(t0).Round(time.Millisecond))
	r := master.call(protocol.CodeGetAllDelayOffset, nil, nil)
	if r.ResponseCode() != protocol.ResSuccess {
		t.Logf("master answers GET_ALL_DELAY_OFFSET %v %q: nothing to sync", r.ResponseCode(), r.Remark)
		return
	}
	path := filepath.Join(slaveStoreRoot, "config", "delayOffset.json")
	var last []byte
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil && bytes.Equal(b, r.Body) {
			break
		}
		last = b
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s the slave's delayOffset.json is %q (%v), the master answers %q", last, err, r.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("delayOffset.json on the slave: %s", r.Body)
}

// msgGetTotal is a broker's count of messages served to pulls (msgGetTotalTodayNow).
func msgGetTotal(t *testing.T, w *wire) int64 {
	t.Helper()
	v, err := strconv.ParseInt(runtimeInfo(t, w)["msgGetTotalTodayNow"], 10, 64)
	if err != nil {
		t.Fatalf("msgGetTotalTodayNow of %s: %v", w.addr, err)
	}
	return v
}

// consumeAcrossMasterStop starts a Go push consumer while the master is up (the Go client
// queries offsets from brokerId 0 only), holds its first deliveries at a gate (flow
// control then stops its pulls), stops the master, opens the gate and waits until every
// body in want was consumed. The brokers' msgGetTotalTodayNow say how many messages the
// master served before it stopped and how many the slave served after.
func consumeAcrossMasterStop(t *testing.T, ns, topic string, want []string, master, slave *wire, stopMaster func()) {
	t.Helper()
	gate := make(chan struct{})
	var openOnce sync.Once
	open := func() { openOnce.Do(func() { close(gate) }) }
	t.Cleanup(open)
	var atGate atomic.Int64
	got := newReceived()
	slaveBefore := msgGetTotal(t, slave)
	stop := startPushConsumer(t, ns, unique("CGHAJ"), topic, all,
		func(_ context.Context, ms ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			select {
			case <-gate:
			default:
				atGate.Add(int64(len(ms)))
				<-gate
			}
			got.add(ms...)
			return consumer.ConsumeSuccess, nil
		},
		// The client recomputes the per-queue threshold from the per-topic one.
		consumer.WithPullThresholdForTopic(1), consumer.WithPullThresholdForQueue(1))
	defer stop()
	eventually(t, 30*time.Second, "the consumer's first deliveries from the master", func() bool { return atGate.Load() > 0 })
	var fromMaster int64
	eventually(t, 10*time.Second, "the consumer's pulls to stop (flow control)", func() bool {
		n := msgGetTotal(t, master)
		steady := n == fromMaster
		fromMaster = n
		if !steady {
			time.Sleep(300 * time.Millisecond)
		}
		return steady
	})
	t0 := time.Now()
	stopMaster()
	t.Logf("master stopped in %v after serving %d messages to the consumer (%d held at the gate)",
		time.Since(t0).Round(time.Millisecond), fromMaster, atGate.Load())
	open()
	t1 := time.Now()
	eventually(t, 90*time.Second, "every message consumed, the rest from the slave", func() bool {
		got.mu.Lock()
		defer got.mu.Unlock()
		for _, b := range want {
			if _, ok := got.msgs[b]; !ok {
				return false
			}
		}
		return true
	})
	fromSlave := msgGetTotal(t, slave) - slaveBefore
	t.Logf("%d messages consumed in %v after the master stopped; the slave served %d", len(want), time.Since(t1).Round(time.Millisecond), fromSlave)
	if fromMaster >= int64(len(want)) || fromSlave < int64(len(want))-fromMaster {
		t.Fatalf("the master served %d and the slave %d of %d messages: want the slave to serve the rest", fromMaster, fromSlave, len(want))
	}
}

// javaClientReadsSlave reads the whole topic with the 4.9.8 Java pull consumer (a new JVM,
// conformance/java's SlavePullMain) through ns once the master is gone: every body in want
// must come back, from the slave (the route has no master; the slave's msgGetTotalTodayNow
// grows by at least as many messages).
func javaClientReadsSlave(t *testing.T, ns, topic string, want []string, slave *wire) {
	t.Helper()
	before := msgGetTotal(t, slave)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t0 := time.Now()
	out, err := javaservers.Tool(ctx, "org.skyrocket.fixture.SlavePullMain", ns, topic, topic+"-")
	if err != nil {
		t.Fatal(err)
	}
	var messages, distinct int
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "route: ") {
			t.Logf("Java client: %s", line)
			if strings.Contains(line, "0=") {
				t.Fatalf("the route still names a master: %s", line)
			}
		}
		if _, err := fmt.Sscanf(line, "slave-pull: messages=%d distinct=%d", &messages, &distinct); err == nil {
			break
		}
	}
	served := msgGetTotal(t, slave) - before
	t.Logf("Java 4.9.8 pull consumer read %d messages (%d distinct load bodies) from the slave in %v; the slave served %d",
		messages, distinct, time.Since(t0).Round(time.Millisecond), served)
	if distinct != len(want) || served < int64(messages) || messages < len(want) {
		t.Fatalf("Java client: %d messages, %d distinct of %d sent, slave served %d\n%s", messages, distinct, len(want), served, out)
	}
}

// TestHAJava_SkyrocketMasterJavaSlave: a Java 4.9.7 slave follows a Skyrocket master.
func TestHAJava_SkyrocketMasterJavaSlave(t *testing.T) {
	needJavaServers(t)
	t.Parallel() // with TestHAJava_JavaMasterSkyrocketSlave: each waits ~30 s for the Go client's route refresh
	ns := startNamesrv(t, namesrv.Options{})
	mo := haBrokerOptions(t, ns.Addr(), broker.RoleSyncMaster, 0)
	mo.BrokerName = "broker-hj"
	hl := &haLog{}
	mo.Logger = zerolog.New(hl).Level(zerolog.InfoLevel)
	m := &cluster{t: t, ns: ns, opts: mo, root: filepath.Dir(mo.Store.RootDir)}
	m.startBroker()
	mw := newWire(t, mo.ListenAddr)
	prod := newProducer(t, ns.Addr())
	topic, group, pre := unique("THAJ"), unique("CGHAJMeta"), unique("THAJPre")
	createTopicAndGroup(t, mw, ns.Addr(), topic, group)
	createRoutedTopic(t, mw, ns.Addr(), pre)
	joinAt := preloadHistory(t, prod, pre, m.broker.Store().MaxPhyOffset)

	js := startJavaHA(t, javaservers.Options{NoNamesrv: true, Broker: []string{
		"brokerClusterName=" + mo.ClusterName, "brokerName=" + mo.BrokerName, "brokerId=1", "brokerRole=SLAVE",
		"namesrvAddr=" + ns.Addr(),
	}})
	sw := newWire(t, js.BrokerAddr)
	masterLog := filepath.Join(mo.Store.RootDir, "commitlog")
	slaveLog := filepath.Join(js.StoreRoot, "commitlog")

	// SYNC_MASTER: every send waits for the Java slave's ack.
	probeSendOK(t, prod, topic, 60*time.Second)
	sent := sendLoad(t, prod, topic, "sync", haJavaLoad, primitive.SendOK)
	end := m.broker.Store().MaxPhyOffset()
	eventually(t, 15*time.Second, "the Java slave's commitLogMaxOffset to reach the master's", func() bool { return maxPhyOffset(t, sw) == end })
	// The empty Java slave got the newest file only, from its first byte.
	if minOff := runtimeInfo(t, sw)["commitLogMinOffset"]; minOff != strconv.FormatInt(joinAt, 10) {
		t.Fatalf("the Java slave's CommitLog starts at %s, want the master's newest file at join, %d", minOff, joinAt)
	}
	total := sameCommitLogs(t, masterLog, slaveLog, joinAt, end)
	waitMetadataOnSlave(t, mw, sw, js.StoreRoot, topic, group)
	idleKeepsConnection(t, hl, "ha: slave connected", 1, prod, topic)

	// ASYNC_MASTER on the same store: the Java slave reconnects and goes on from its end.
	t0 := time.Now()
	m.stopBroker()
	m.opts.Role = broker.RoleAsyncMaster
	m.startBroker()
	sent = append(sent, sendLoad(t, prod, topic, "async", haJavaLoad/3, primitive.SendOK)...)
	end2 := m.broker.Store().MaxPhyOffset()
	eventually(t, 30*time.Second, "the Java slave to catch up with the restarted ASYNC_MASTER", func() bool { return maxPhyOffset(t, sw) == end2 })
	t.Logf("the Java slave caught up with the ASYNC_MASTER %v after its restart", time.Since(t0).Round(time.Millisecond))
	total += sameCommitLogs(t, masterLog, slaveLog, end, end2)
	t.Logf("%d messages, %d CommitLog bytes compared, master end %d", len(sent), total, end2)

	consumeAcrossMasterStop(t, ns.Addr(), topic, sent, mw, sw, m.stopBroker)
	javaClientReadsSlave(t, ns.Addr(), topic, sent, sw)
}

// TestHAJava_JavaMasterSkyrocketSlave: a Skyrocket slave follows a Java 4.9.7
// SYNC_MASTER; first both implementations' SYNC_MASTER answer a send without a slave.
func TestHAJava_JavaMasterSkyrocketSlave(t *testing.T) {
	needJavaServers(t)
	t.Parallel()
	jm := startJavaHA(t, javaservers.Options{Broker: []string{"brokerRole=SYNC_MASTER"}})
	mw := newWire(t, jm.BrokerAddr)

	t.Run("SyncMasterWithoutSlave", func(t *testing.T) { diffSlaveNotAvailable(t, jm) })

	so := haBrokerOptions(t, jm.NamesrvAddr, broker.RoleSlave, 1)
	so.BrokerName = "broker-a" // javaservers.sh's
	so.Store.MappedFileSizeCommitLog = haJavaFileSize
	so.SlaveSyncPeriod = 10 * time.Second // Java's (first run after 3 s)
	hl := &haLog{}
	so.Logger = zerolog.New(hl).Level(zerolog.InfoLevel)
	s := &cluster{t: t, opts: so, root: filepath.Dir(so.Store.RootDir)}

	prod := newProducer(t, jm.NamesrvAddr)
	topic, group, pre := unique("THAJJ"), unique("CGHAJJMeta"), unique("THAJJPre")
	createTopicAndGroup(t, mw, jm.NamesrvAddr, topic, group)
	createRoutedTopic(t, mw, jm.NamesrvAddr, pre)
	joinAt := preloadHistory(t, prod, pre, func() int64 { return maxPhyOffset(t, mw) })

	s.startBroker()
	sw := newWire(t, so.ListenAddr)
	probeSendOK(t, prod, topic, 30*time.Second)
	sent := sendLoad(t, prod, topic, "sync", haJavaLoad, primitive.SendOK)
	end := maxPhyOffset(t, mw)
	eventually(t, 15*time.Second, "the Skyrocket slave to reach the Java master's commitLogMaxOffset", func() bool {
		return s.broker.Store().MaxPhyOffset() == end
	})
	// The Java master sent the empty Skyrocket slave its newest file only, from its first byte.
	if minOff := s.broker.Store().MinPhyOffset(); minOff != joinAt {
		t.Fatalf("the Skyrocket slave's CommitLog starts at %d, want the Java master's newest file at join, %d", minOff, joinAt)
	}
	total := sameCommitLogs(t, filepath.Join(jm.StoreRoot, "commitlog"), filepath.Join(so.Store.RootDir, "commitlog"), joinAt, end)
	t.Logf("%d messages, %d CommitLog bytes compared", len(sent), total)
	if addr := s.broker.MasterAddr(); addr != jm.BrokerAddr {
		t.Fatalf("the slave's master address from the Java NameServer is %q, want %s", addr, jm.BrokerAddr)
	}
	waitMetadataOnSlave(t, mw, sw, so.Store.RootDir, topic, group)
	idleKeepsConnection(t, hl, "ha: connected to master", 1, prod, topic)

	consumeAcrossMasterStop(t, jm.NamesrvAddr, topic, sent, mw, sw, func() {
		if err := jm.StopBroker(); err != nil {
			t.Fatal(err)
		}
	})
	javaClientReadsSlave(t, jm.NamesrvAddr, topic, sent, sw)
}

// diffSlaveNotAvailable sends the same SEND_MESSAGE_V2 to Java's SYNC_MASTER and to
// Skyrocket's, neither with a slave, and compares the raw answers: SLAVE_NOT_AVAILABLE,
// no remark, the send header (the message is stored).
func diffSlaveNotAvailable(t *testing.T, jm *javaservers.Servers) {
	sky := startCluster(t, func(o *broker.Options) { o.Role = broker.RoleSyncMaster })
	java, sk := newSide(t, "java", jm.NamesrvAddr, jm.BrokerAddr), newSide(t, "skyrocket", sky.nsAddr(), sky.opts.ListenAddr)
	const topic = "HAJavaNoSlaveT"
	d := newDiffer(t)
	p := props("TAGS", "TagS", "UNIQ_KEY", "0000000000000000000000000000B001", "WAIT", "true")
	var resp [2]*protocol.Command
	for i, s := range []*side{java, sk} {
		s.createTopic(t, topic, 4)
		resp[i] = s.call(t, s.broker, sendV2(topic, 1, 0, 0, p, []byte("no slave")))
	}
	d.response("sync-master-no-slave/send", java, resp[0], sk, resp[1])
	for i, s := range []*side{java, sk} {
		r := resp[i]
		var keys []string
		for _, kv := range r.Ext {
			keys = append(keys, kv.Key+"="+s.norm(kv.Value))
		}
		sort.Strings(keys)
		t.Logf("%s: code %d remark %q (present %v) ext %v", s.name, r.Code, r.Remark, r.HasRemark, keys)
		if r.ResponseCode() != protocol.ResSlaveNotAvailable {
			t.Errorf("%s: SYNC_MASTER without a slave answered %d, want SLAVE_NOT_AVAILABLE (11)", s.name, r.Code)
		}
		for _, k := range []string{"msgId", "queueId", "queueOffset"} {
			if _, ok := r.Ext.Get(k); !ok {
				t.Errorf("%s: no %s in the SLAVE_NOT_AVAILABLE answer", s.name, k)
			}
		}
	}
	// Stored all the same: queue 1 holds it (once dispatched).
	var stored [2]string
	for i, s := range []*side{java, sk} {
		eventually(t, 5*time.Second, s.name+" to dispatch the message", func() bool {
			stored[i] = s.call(t, s.broker, req(protocol.CodeGetMaxOffset, "topic", topic, "queueId", "1")).Ext.Value("offset")
			return stored[i] != "0"
		})
	}
	d.add("sync-master-no-slave/max-offset-q1", stored[0], stored[1])
	if stored[1] != "1" {
		t.Errorf("skyrocket: queue 1's max offset %q after the SLAVE_NOT_AVAILABLE send, want 1", stored[1])
	}
}

// TestHAJava_JavaAsyncMasterSkyrocketSlave: a Skyrocket slave follows a Java 4.9.7
// ASYNC_MASTER that already holds more than one file: every send is SEND_OK at once (an
// ASYNC_MASTER never waits for its slave), the slave starts at the master's newest file,
// catches up byte for byte while the load runs, and syncs the metadata.
func TestHAJava_JavaAsyncMasterSkyrocketSlave(t *testing.T) {
	needJavaServers(t)
	t.Parallel()
	jm := startJavaHA(t, javaservers.Options{Broker: []string{"brokerRole=ASYNC_MASTER"}})
	mw := newWire(t, jm.BrokerAddr)

	prod := newProducer(t, jm.NamesrvAddr)
	topic, group, pre := unique("THAJA"), unique("CGHAJAMeta"), unique("THAJAPre")
	createTopicAndGroup(t, mw, jm.NamesrvAddr, topic, group)
	createRoutedTopic(t, mw, jm.NamesrvAddr, pre)
	sendLoad(t, prod, pre, "history", 2000, primitive.SendOK)
	history := maxPhyOffset(t, mw)
	if history < haJavaFileSize {
		t.Fatalf("the history is %d bytes, less than one %d-byte CommitLog file", history, haJavaFileSize)
	}
	joinAt := history - history%haJavaFileSize

	so := haBrokerOptions(t, jm.NamesrvAddr, broker.RoleSlave, 1)
	so.BrokerName = "broker-a" // javaservers.sh's
	so.Store.MappedFileSizeCommitLog = haJavaFileSize
	so.SlaveSyncPeriod = 10 * time.Second // Java's (first run after 3 s)
	s := &cluster{t: t, opts: so, root: filepath.Dir(so.Store.RootDir)}
	s.startBroker()
	sw := newWire(t, so.ListenAddr)
	eventually(t, 30*time.Second, "the Skyrocket slave to connect and reach the Java master's end", func() bool {
		return s.broker.Store().MaxPhyOffset() >= history
	})
	sendLoad(t, prod, topic, "async", haJavaLoad, primitive.SendOK)
	end := maxPhyOffset(t, mw)
	eventually(t, 30*time.Second, "the Skyrocket slave to reach the Java ASYNC_MASTER's commitLogMaxOffset", func() bool {
		return s.broker.Store().MaxPhyOffset() == end
	})
	if minOff := s.broker.Store().MinPhyOffset(); minOff != joinAt {
		t.Fatalf("the Skyrocket slave's CommitLog starts at %d, want the Java master's newest file at join, %d", minOff, joinAt)
	}
	total := sameCommitLogs(t, filepath.Join(jm.StoreRoot, "commitlog"), filepath.Join(so.Store.RootDir, "commitlog"), joinAt, end)
	t.Logf("ASYNC_MASTER: %d CommitLog bytes compared", total)
	waitMetadataOnSlave(t, mw, sw, so.Store.RootDir, topic, group)
}
