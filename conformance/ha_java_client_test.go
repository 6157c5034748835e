package conformance

// SYNC_MASTER answers seen by the Java client and compared with Java's broker (issue 9):
// the 4.9.8 Java producer against a Skyrocket SYNC_MASTER gets SEND_OK while its Skyrocket
// slave is up and SendStatus.SLAVE_NOT_AVAILABLE (returned, not thrown) once it is stopped;
// and a slave that is connected but never acknowledges (a fake slave on the HA port: one
// offset report, then silence) makes Skyrocket's SYNC_MASTER and Java 4.9.7's answer
// FLUSH_SLAVE_TIMEOUT with the same header, compared on the raw wire (ha-facts.md §5).
// Skipped unless SKYROCKET_JAVA_SERVERS=1 (conformance/java/run.sh diff).

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	javaservers "github.com/skyrocket-mq/skyrocket/conformance/java"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
)

// javaSyncSend sends n messages with the 4.9.8 Java producer (SyncSendMain, a new JVM)
// and returns its count of each SendStatus; a thrown send fails the test.
func javaSyncSend(t *testing.T, ns, topic string, n int, prefix string) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t0 := time.Now()
	out, err := javaservers.Tool(ctx, "org.skyrocket.fixture.SyncSendMain", ns, topic, fmt.Sprint(n), prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		rest, ok := strings.CutPrefix(line, "sync-send:")
		if !ok {
			continue
		}
		counts := map[string]int{}
		for _, f := range strings.Fields(rest) {
			var v int
			k, num, _ := strings.Cut(f, "=")
			fmt.Sscan(num, &v)
			counts[k] = v
		}
		t.Logf("Java 4.9.8 producer, %d sends in %v: %s", n, time.Since(t0).Round(time.Millisecond), strings.TrimSpace(rest))
		return counts
	}
	t.Fatalf("no sync-send line from the Java producer:\n%s", out)
	return nil
}

func TestHAJava_JavaClient_SyncMaster_SendOKThenSlaveNotAvailable(t *testing.T) {
	needJavaServers(t)
	p := startHAPair(t, broker.RoleSyncMaster, nil)
	mw := newWire(t, p.master.opts.ListenAddr)
	topic := unique("THAJavaClient")
	createRoutedTopic(t, mw, p.ns.Addr(), topic)
	probeSendOK(t, newProducer(t, p.ns.Addr()), unique("THAJavaClientProbe"), 20*time.Second)

	const n = 50
	if got := javaSyncSend(t, p.ns.Addr(), topic, n, "up"); got["SEND_OK"] != n || got["exceptions"] != 0 {
		t.Fatalf("slave up: the Java producer got %v, want SEND_OK=%d", got, n)
	}

	p.slave.stopBroker()
	// The master drops the HA connection once the slave's socket closes.
	goProd := newProducer(t, p.ns.Addr())
	eventually(t, 20*time.Second, "SLAVE_NOT_AVAILABLE with the slave stopped", func() bool {
		res, err := goProd.SendSync(context.Background(), primitive.NewMessage(unique("THAJavaClientProbe"), []byte("no slave")))
		return err == nil && res.Status == primitive.SendSlaveNotAvailable
	})
	if got := javaSyncSend(t, p.ns.Addr(), topic, n, "down"); got["SLAVE_NOT_AVAILABLE"] != n || got["exceptions"] != 0 {
		t.Fatalf("slave stopped: the Java producer got %v, want SLAVE_NOT_AVAILABLE=%d returned (not thrown)", got, n)
	}
	// Stored all the same: the queues hold both rounds.
	queueSizes(t, mw, topic, 2*n)
}

// fakeSlave connects to a master's HA port, reports offset once (8 bytes, big-endian, as a
// slave's HAClient does) and then only reads: the master sees a connected slave that never
// acknowledges anything past offset.
func fakeSlave(t *testing.T, haAddr string, offset int64) {
	t.Helper()
	c, err := net.DialTimeout("tcp", haAddr, 5*time.Second)
	if err != nil {
		t.Fatalf("fake slave: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(offset))
	if _, err := c.Write(b[:]); err != nil {
		t.Fatalf("fake slave: report: %v", err)
	}
	go io.Copy(io.Discard, c) // heartbeats and CommitLog data, never acknowledged
}

func TestHAJava_FlushSlaveTimeout_SameAsJava(t *testing.T) {
	needJavaServers(t)
	const slaveTimeout = time.Second // slaveTimeout (4.9.3+), 3 s by default
	jm := startJavaHA(t, javaservers.Options{Broker: []string{"brokerRole=SYNC_MASTER", "slaveTimeout=1000"}})
	sky := startCluster(t, func(o *broker.Options) {
		o.Role = broker.RoleSyncMaster
		o.SlaveTimeout = slaveTimeout
	})
	java, sk := newSide(t, "java", jm.NamesrvAddr, jm.BrokerAddr), newSide(t, "skyrocket", sky.nsAddr(), sky.opts.ListenAddr)
	const topic = "HAJavaFlushSlaveTimeoutT"
	d := newDiffer(t)
	p := props("TAGS", "TagS", "UNIQ_KEY", "0000000000000000000000000000B002", "WAIT", "true")
	var resp [2]*protocol.Command
	var took [2]time.Duration
	for i, s := range []*side{java, sk} {
		s.createTopic(t, topic, 4)
		s.createTopic(t, topic+"Probe", 1)
		// Report 0: the master's acknowledged offset stays 0, well within
		// haSlaveFallbehindMax, so the slave counts as available and the send waits.
		fakeSlave(t, haOf(s.broker), 0)
		// Java counts the connection once its accept loop has run: probe (on another
		// topic, so the compared send lands at the same queue offset on both) until a
		// send no longer answers SLAVE_NOT_AVAILABLE.
		eventually(t, 10*time.Second, s.name+" to see the fake slave", func() bool {
			r := s.call(t, s.broker, sendV2(topic+"Probe", 0, 0, 0, p, []byte("probe")))
			return r.ResponseCode() != protocol.ResSlaveNotAvailable
		})
		t0 := time.Now()
		resp[i] = s.call(t, s.broker, sendV2(topic, 1, 0, 0, p, []byte("flush slave timeout")))
		took[i] = time.Since(t0)
	}
	d.response("sync-master-silent-slave/send", java, resp[0], sk, resp[1])
	for i, s := range []*side{java, sk} {
		r := resp[i]
		var keys []string
		for _, kv := range r.Ext {
			keys = append(keys, kv.Key+"="+s.norm(kv.Value))
		}
		sort.Strings(keys)
		t.Logf("%s: code %d remark %q (present %v) after %v, ext %v", s.name, r.Code, r.Remark, r.HasRemark, took[i].Round(time.Millisecond), keys)
		if r.ResponseCode() != protocol.ResFlushSlaveTimeout {
			t.Errorf("%s: a SYNC_MASTER whose slave never acknowledges answered %d, want FLUSH_SLAVE_TIMEOUT (12)", s.name, r.Code)
		}
		if r.HasRemark || r.Remark != "" {
			t.Errorf("%s: remark %q, want none", s.name, r.Remark)
		}
		for _, k := range []string{"msgId", "queueId", "queueOffset"} {
			if _, ok := r.Ext.Get(k); !ok {
				t.Errorf("%s: no %s in the FLUSH_SLAVE_TIMEOUT answer", s.name, k)
			}
		}
		if took[i] < slaveTimeout-100*time.Millisecond || took[i] > slaveTimeout+2*time.Second {
			t.Errorf("%s: answered after %v, want about slaveTimeout (%v)", s.name, took[i], slaveTimeout)
		}
	}
}
