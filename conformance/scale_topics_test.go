package conformance

// A broker with 100,000 topics (issue 12, "metadata at scale"). Its register body is
// ~20 MB of JSON, past the 16 MiB frame every NameServer accepts: Java's broker sends it
// all the same and its topics never get routes (apache/rocketmq #5296). Skyrocket's
// broker switches to the compressed form (Java's compressedRegister, read by Java's
// NameServer since 4.2.0): a Skyrocket NameServer here, and Java 4.9.7's in the
// differential run (diffHundredThousandTopics), route a topic of the broker's.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

const scaleTopics = 100_000

// scaleTopic names are long enough (as real ones often are) that the register body of
// 100,000 passes the 16 MiB frame.
func scaleTopic(i int) string { return fmt.Sprintf("ScaleTopic_orders_eu_west_%06d", i) }

// writeTopicsJSON writes config/topics.json under storeRoot with n 4-queue topics (as
// Java writes it: topicConfigTable and dataVersion), so a broker starts with them.
func writeTopicsJSON(t *testing.T, storeRoot string, n int) {
	t.Helper()
	dir := filepath.Join(storeRoot, "config")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "topics.json"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprint(w, `{"dataVersion":{"counter":1,"timestamp":1700000000000},"topicConfigTable":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			w.WriteByte(',')
		}
		name := scaleTopic(i)
		fmt.Fprintf(w, `"%s":{"order":false,"perm":6,"readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"%s","topicSysFlag":0,"writeQueueNums":4}`, name, name)
	}
	fmt.Fprint(w, "}}")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// waitRouted waits until the NameServer at ns routes topic to brokerAddr.
func waitRouted(t *testing.T, s *side, ns, topic, brokerAddr string, d time.Duration) {
	t.Helper()
	eventually(t, d, ns+" to route "+topic+" to "+brokerAddr, func() bool {
		r := s.call(t, ns, req(protocol.CodeGetRouteinfoByTopic, "topic", topic))
		return r.ResponseCode() == protocol.ResSuccess && strings.Contains(string(r.Body), brokerAddr)
	})
}

func TestScale_100kTopics_RegisteredWithTheNameServer(t *testing.T) {
	t0 := time.Now()
	c := startCluster(t, func(o *broker.Options) { writeTopicsJSON(t, o.Store.RootDir, scaleTopics) })
	started := time.Since(t0)
	s := newSide(t, "skyrocket", c.nsAddr(), c.opts.ListenAddr)
	for _, i := range []int{0, scaleTopics / 2, scaleTopics - 1} {
		waitRouted(t, s, c.nsAddr(), scaleTopic(i), c.opts.ListenAddr, 60*time.Second)
	}
	t.Logf("%d topics: broker started in %v, every probed topic routed after %v", scaleTopics, started.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))

	// GET_ALL_TOPIC_CONFIG holds them all, in a frame past 16 MiB (as Java's broker sends
	// it; Java's slave cannot read it, Skyrocket's can, see server/broker outboundMaxFrame)
	t1 := time.Now()
	big := remoting.NewClient(remoting.ClientOptions{MaxFrameSize: 256 << 20})
	defer big.Close()
	r, err := big.Invoke(context.Background(), c.opts.ListenAddr, req(protocol.CodeGetAllTopicConfig), 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.ResponseCode() != protocol.ResSuccess || !strings.Contains(string(r.Body), scaleTopic(scaleTopics-1)) {
		t.Fatalf("GET_ALL_TOPIC_CONFIG: %d %q, %d bytes", r.Code, r.Remark, len(r.Body))
	}
	t.Logf("GET_ALL_TOPIC_CONFIG: %d bytes in %v", len(r.Body), time.Since(t1).Round(time.Millisecond))

	// a Skyrocket slave syncs them from its master
	so := haBrokerOptions(t, c.nsAddr(), broker.RoleSlave, 1)
	so.BrokerName = c.opts.BrokerName
	sl := &cluster{t: t, opts: so, root: filepath.Dir(so.Store.RootDir)}
	sl.startBroker()
	t2 := time.Now()
	eventually(t, 90*time.Second, "the slave to sync the master's 100,000 topics", func() bool {
		data, err := os.ReadFile(filepath.Join(so.Store.RootDir, "config", "topics.json"))
		return err == nil && strings.Contains(string(data), scaleTopic(scaleTopics-1))
	})
	t.Logf("the slave synced %d topics in %v", scaleTopics, time.Since(t2).Round(time.Millisecond))
}

// diffHundredThousandTopics (differential run): the same broker registers with Java
// 4.9.7's NameServer, which routes its topics.
func diffHundredThousandTopics(t *testing.T, e *diffEnv) {
	t0 := time.Now()
	c := startCluster(t, func(o *broker.Options) {
		o.BrokerName = "broker-big"
		o.NamesrvAddrs = []string{e.javaSrv.NamesrvAddr}
		writeTopicsJSON(t, o.Store.RootDir, scaleTopics)
	})
	for _, i := range []int{0, scaleTopics - 1} {
		waitRouted(t, e.java, e.javaSrv.NamesrvAddr, scaleTopic(i), c.opts.ListenAddr, 90*time.Second)
	}
	t.Logf("%d topics routed by Java's NameServer after %v (compressed register body)", scaleTopics, time.Since(t0).Round(time.Millisecond))
}
