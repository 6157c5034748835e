package conformance

// Zero loss under master/slave replication with real processes: mqnamesrv, a SYNC_MASTER
// (ASYNC_FLUSH) and its SLAVE run as children; Go producers record every SEND_OK; the
// master is killed with kill -9 mid-stream at a random number of acknowledged messages,
// and the slave — read over the wire, PULL_MESSAGE per queue from offset 0 — must hold
// every message acknowledged so far, at the queue offset the master announced. The
// master is then restarted on its store (kill -9 recovery), the slave reconnects, the
// pair answers SEND_OK again and the two CommitLogs are the same bytes. Three kill
// points, one pair; the seed is logged and SKYROCKET_SEED replays it (the same targets;
// a kill lands a few acknowledgements past its target, as the senders race it).
//
// The slave is read over the wire because the Go client asks brokerId 0 for consumer
// offsets (rocketmq-client-go#1055): a push consumer started while the master is down
// never starts.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// testSeed is SKYROCKET_SEED when set, else a fresh seed; it is logged either way.
func testSeed(t *testing.T) int64 {
	t.Helper()
	if v := os.Getenv("SKYROCKET_SEED"); v != "" {
		seed, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("SKYROCKET_SEED=%q: %v", v, err)
		}
		t.Logf("seed %d (from SKYROCKET_SEED)", seed)
		return seed
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d (replay with SKYROCKET_SEED=%d)", seed, seed)
	return seed
}

func TestHACrash_Kill9SyncMaster_SlaveHoldsEveryAcknowledgedMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries and kills child processes")
	}
	const (
		rounds   = 3
		senders  = 8
		queues   = 4
		minKill  = 1000 // acknowledged messages per round before the kill: minKill + rand(spread)
		spread   = 3000
		clusterN = "HACrashCluster"
		brokerN  = "broker-hacrash"
	)
	rng := rand.New(rand.NewSource(testSeed(t)))
	bin := buildBinaries(t, "mqnamesrv", "mqbroker")
	home, dir := t.TempDir(), t.TempDir()

	nsPort := freePort(t)
	nsAddr := fmt.Sprintf("127.0.0.1:%d", nsPort)
	nsConf := filepath.Join(dir, "namesrv.conf")
	writeFile(t, nsConf, fmt.Sprintf("listenPort=%d\nkvConfigPath=%s\n", nsPort, filepath.Join(dir, "namesrv", "kvConfig.json")))
	ns := startProc(t, home, filepath.Join(bin, "mqnamesrv"), "-c", nsConf, "-bind", "127.0.0.1")
	ns.waitStdout(30*time.Second, "The Name Server boot success")

	// Both brokers have the same small files (a slave appends whole files of the
	// master's size); the slave learns the master's HA address from the NameServer.
	brokerConf := func(name, role string, id, port int) (conf, store string) {
		store = filepath.Join(dir, name, "store")
		conf = filepath.Join(dir, name+".conf")
		writeFile(t, conf, strings.Join([]string{
			"brokerClusterName=" + clusterN,
			"brokerName=" + brokerN,
			fmt.Sprintf("brokerId=%d", id),
			"brokerRole=" + role,
			"flushDiskType=ASYNC_FLUSH",
			"brokerIP1=127.0.0.1",
			"brokerIP2=127.0.0.1",
			fmt.Sprintf("listenPort=%d", port),
			"namesrvAddr=" + nsAddr,
			"storePathRootDir=" + store,
			"mappedFileSizeCommitLog=65536",   // 64 KiB, ~400 records: kill points fall in many files
			"mappedFileSizeConsumeQueue=1200", // 60 units per ConsumeQueue file
			"maxHashSlotNum=100",
			"maxIndexNum=400",
			"maxMessageSize=16384",
		}, "\n")+"\n")
		return conf, store
	}
	mPort, sPort := freeBrokerPort(t), freeBrokerPort(t)
	mAddr, sAddr := fmt.Sprintf("127.0.0.1:%d", mPort), fmt.Sprintf("127.0.0.1:%d", sPort)
	mConf, mStore := brokerConf("master", "SYNC_MASTER", 0, mPort)
	sConf, sStore := brokerConf("slave", "SLAVE", 1, sPort)
	startBroker := func(conf string) *proc {
		b := startProc(t, home, filepath.Join(bin, "mqbroker"), "-c", conf, "-bind", "127.0.0.1")
		b.waitStdout(60*time.Second, "boot success")
		return b
	}
	master := startBroker(mConf)
	slave := startBroker(sConf)

	// The topic exists before the first kill on both brokers: a slave without its
	// master cannot learn it (topics come with the slave's metadata sync, every 10 s).
	topic := unique("THACrash")
	mw := newWire(t, mAddr)
	if r := mw.call(protocol.CodeUpdateAndCreateTopic, &protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102",
		ReadQueueNums: queues, WriteQueueNums: queues, Perm: 6, TopicFilterType: "SINGLE_TAG"}, nil); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("create topic: %v %q", r.ResponseCode(), r.Remark)
	}
	sw := newWire(t, sAddr)
	eventually(t, 30*time.Second, "the topic on the slave", func() bool {
		return strings.Contains(string(sw.call(protocol.CodeGetAllTopicConfig, nil, nil).Body), topic)
	})

	p := newProducer(t, nsAddr, producer.WithSendMsgTimeout(5*time.Second))
	sendOK := func(what string, d time.Duration) {
		t.Helper()
		eventually(t, d, what, func() bool {
			res, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(topic+"-probe")))
			return err == nil && res.Status == primitive.SendOK
		})
	}
	start := time.Now()
	sendOK("SEND_OK from the SYNC_MASTER (the slave connected)", 30*time.Second)

	var ok acks
	var attempts, failures, notOK atomic.Int64
	var killPoints []int
	for round := range rounds {
		before := len(ok.snapshot())
		target := before + minKill + rng.Intn(spread)
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
					body := fmt.Sprintf("%s-r%d-g%d-%06d", topic, round, g, i)
					attempts.Add(1)
					res, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte(body)))
					switch {
					case err == nil && res.Status == primitive.SendOK:
						ok.add(body, res)
						continue
					case err == nil:
						notOK.Add(1) // stored, not replicated in time: not acknowledged
						continue
					}
					failures.Add(1)
					select { // the master is down: back off instead of spinning
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
				}
			}()
		}
		eventually(t, 60*time.Second, fmt.Sprintf("round %d: %d acknowledged sends", round, target), func() bool {
			return len(ok.snapshot()) >= target
		})
		master.signal(syscall.SIGKILL)
		if code := master.wait(30 * time.Second); code != -1 {
			t.Fatalf("master exit code %d after kill -9, want death by signal", code)
		}
		atKill := len(ok.snapshot())
		close(stop)
		wg.Wait()
		acked := ok.snapshot()
		killPoints = append(killPoints, atKill)
		if len(acked) != atKill {
			t.Fatalf("%d sends acknowledged after the master was killed (%d at the kill)", len(acked)-atKill, atKill)
		}

		// Every acknowledged message, from the slave alone.
		var got map[string]queueOffset
		var missing []string
		deadline := time.Now().Add(30 * time.Second)
		for {
			got = readQueues(t, sw, topic, queues)
			missing = missing[:0]
			for _, b := range acked {
				if _, in := got[b]; !in {
					missing = append(missing, b)
				}
			}
			if len(missing) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond) // the slave's dispatch may still be indexing its CommitLog
		}
		if len(missing) > 0 {
			t.Fatalf("round %d: %d of %d acknowledged messages not on the slave after kill -9 of the master, e.g. %v",
				round, len(missing), len(acked), missing[:min(len(missing), 10)])
		}
		ok.mu.Lock()
		for b, want := range ok.where {
			if got[b] != want {
				t.Errorf("round %d: %s is at queue %d offset %d on the slave, the master acknowledged queue %d offset %d",
					round, b, got[b].queue, got[b].offset, want.queue, want.offset)
			}
		}
		ok.mu.Unlock()
		t.Logf("round %d: master killed at %d acknowledged messages (+%d this round); the slave serves %d messages of the topic, every acknowledged one among them",
			round, atKill, atKill-before, len(got))

		// kill -9 recovery of the master; the slave reconnects and the pair acknowledges again.
		restarted := time.Now()
		master = startBroker(mConf)
		if !strings.Contains(strings.ToLower(master.stderr.String()), "abnormal") {
			t.Errorf("round %d: the restarted master did not report an abnormal-shutdown recovery; log:\n%s", round, tail(master.stderr.String(), 4096))
		}
		sendOK(fmt.Sprintf("round %d: SEND_OK after the master's restart", round), 60*time.Second)
		var mMax, sMax int64
		eventually(t, 30*time.Second, "the slave's CommitLog to end where the master's does", func() bool {
			mMax, sMax = commitLogMaxOffset(mAddr), commitLogMaxOffset(sAddr)
			return mMax > 0 && mMax == sMax
		})
		t.Logf("round %d: master back, slave reconnected, SEND_OK again %v after the restart; commitLogMaxOffset %d on both",
			round, time.Since(restarted).Round(time.Millisecond), mMax)
		sameCommitLogTo(t, filepath.Join(mStore, "commitlog"), filepath.Join(sStore, "commitlog"), mMax)
	}

	files, _ := os.ReadDir(filepath.Join(sStore, "commitlog"))
	t.Logf("SYNC_MASTER kill -9 x%d (kill points at %v acknowledged): %d sends attempted, %d SEND_OK, %d other statuses, %d failed; slave CommitLog in %d files; %v",
		rounds, killPoints, attempts.Load(), len(ok.snapshot()), notOK.Load(), failures.Load(), len(files), time.Since(start).Round(time.Millisecond))
	if len(files) < 3 {
		t.Errorf("the slave's CommitLog has %d file(s): the test no longer crosses file boundaries", len(files))
	}

	// The pair and the NameServer still stop cleanly.
	_ = p.Shutdown()
	for _, b := range []*proc{master, slave, ns} {
		b.signal(syscall.SIGTERM)
		if code := b.wait(60 * time.Second); code != 0 {
			t.Errorf("%s exit code %d after SIGTERM", b.name, code)
		}
	}
	for _, s := range []string{mStore, sStore} {
		if _, err := os.Stat(filepath.Join(s, "abort")); err == nil {
			t.Errorf("abort file in %s after a clean stop", s)
		}
	}
}

// readQueues pulls every message of topic's queues from the broker at w, from offset 0
// (FLAG_SUBSCRIPTION "*", so no heartbeat is needed), and returns where each body is.
func readQueues(t *testing.T, w *wire, topic string, queues int32) map[string]queueOffset {
	t.Helper()
	group := "CGHACrashReader"
	out := map[string]queueOffset{}
	for q := range queues {
		var off int64
		for {
			r := w.call(protocol.CodePullMessage, &protocol.PullMessageRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: q,
				QueueOffset: off, MaxMsgNums: 32, SysFlag: flagSubscription, Subscription: "*", ExpressionType: "TAG"}, nil)
			var h protocol.PullMessageResponseHeader
			_ = h.Decode(r.Ext)
			switch r.ResponseCode() {
			case protocol.ResSuccess:
				if err := message.WalkRecords(r.Body, func(rec *message.Record) bool {
					out[string(rec.Body)] = queueOffset{int(rec.QueueID), rec.QueueOffset}
					return true
				}); err != nil {
					t.Fatalf("queue %d offset %d: pull body: %v", q, off, err)
				}
				if h.NextBeginOffset <= off {
					t.Fatalf("queue %d: pull at %d answered nextBeginOffset %d", q, off, h.NextBeginOffset)
				}
				off = h.NextBeginOffset
				continue
			case protocol.ResPullNotFound, protocol.ResPullRetryImmediately:
				if off < h.MaxOffset {
					continue
				}
			default:
				t.Fatalf("queue %d offset %d: pull answered %v %q", q, off, r.ResponseCode(), r.Remark)
			}
			break
		}
	}
	return out
}

// commitLogMaxOffset asks the broker at addr for GET_BROKER_RUNTIME_INFO's
// commitLogMaxOffset (what mqadmin brokerStatus shows); -1 when it does not answer.
func commitLogMaxOffset(addr string) int64 {
	cl := remoting.NewClient(remoting.ClientOptions{DialTimeout: time.Second})
	defer cl.Close()
	r, err := cl.Invoke(context.Background(), addr, protocol.NewRequest(protocol.CodeGetBrokerRuntimeInfo), 3*time.Second)
	if err != nil || r.ResponseCode() != protocol.ResSuccess {
		return -1
	}
	var kv struct {
		Table map[string]string `json:"table"`
	}
	std, err := compat.NormalizeJSON(r.Body)
	if err != nil || json.Unmarshal(std, &kv) != nil {
		return -1
	}
	n, err := strconv.ParseInt(kv.Table["commitLogMaxOffset"], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// sameCommitLogTo compares two CommitLog directories byte for byte over [0, upTo): both
// must hold the files that range spans (files created ahead of need are not compared).
func sameCommitLogTo(t *testing.T, masterDir, slaveDir string, upTo int64) {
	t.Helper()
	files, err := os.ReadDir(masterDir)
	if err != nil {
		t.Fatal(err)
	}
	var compared int64
	for _, f := range files {
		start, err := strconv.ParseInt(f.Name(), 10, 64)
		if err != nil || start >= upTo {
			continue
		}
		m, err := os.ReadFile(filepath.Join(masterDir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		s, err := os.ReadFile(filepath.Join(slaveDir, f.Name()))
		if err != nil {
			t.Fatalf("master CommitLog file %s is not on the slave: %v", f.Name(), err)
		}
		n := min(int64(len(m)), upTo-start)
		if int64(len(s)) < n {
			t.Fatalf("CommitLog %s: %d bytes on the slave, %d to compare", f.Name(), len(s), n)
		}
		for i := range n {
			if m[i] != s[i] {
				t.Fatalf("CommitLog %s differs at byte %d (offset %d)", f.Name(), i, start+i)
			}
		}
		compared += n
	}
	if compared != upTo {
		t.Fatalf("compared %d CommitLog bytes of %d: the master's files do not cover [0, %d)", compared, upTo, upTo)
	}
}
