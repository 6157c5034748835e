package conformance

// Mixed clusters: Java's 4.9.7 broker registered with a Skyrocket NameServer, and a Skyrocket
// broker registered with Java's NameServer. In each pair an unmodified Go producer spreads
// messages over both brokers' queues and an unmodified Go push consumer reads them all back.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
)

// startMixedBroker starts Skyrocket broker "broker-s" (DefaultCluster) registered with nss.
func startMixedBroker(t *testing.T, nss ...string) string {
	t.Helper()
	opts := broker.DefaultOptions(filepath.Join(t.TempDir(), "store"))
	opts.ListenAddr = fmt.Sprintf("127.0.0.1:%d", freeBrokerPort(t))
	opts.BrokerIP1 = "127.0.0.1"
	opts.BrokerName = "broker-s"
	opts.NamesrvAddrs = nss
	opts.Store.MappedFileSizeCommitLog = 16 << 20
	opts.Store.MappedFileSizeConsumeQueue = 30000 * 20
	opts.Store.MaxHashSlotNum = 1000
	opts.Store.MaxIndexNum = 4000
	b, err := broker.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Shutdown(ctx); err != nil {
			t.Errorf("broker-s shutdown: %v", err)
		}
	})
	return opts.ListenAddr
}

func mixedClusters(t *testing.T, e *diffEnv) {
	skyBroker := startMixedBroker(t, e.mixedNS.Addr(), e.javaSrv.NamesrvAddr)
	javaBroker := e.javaSrv.BrokerAddr
	brokers := map[string]string{"broker-a": javaBroker, "broker-s": skyBroker}
	const topic = "MixedT"
	w := newSide(t, "mixed", e.mixedNS.Addr(), skyBroker)
	for name, addr := range brokers {
		r := w.call(t, addr, req(protocol.CodeUpdateAndCreateTopic, "topic", topic, "defaultTopic", "TBW102",
			"readQueueNums", "4", "writeQueueNums", "4", "perm", "6", "topicFilterType", "SINGLE_TAG", "topicSysFlag", "0", "order", "false"))
		if r.Code != 0 {
			t.Fatalf("create %s on %s: %d %s", topic, name, r.Code, r.Remark)
		}
	}
	for _, ns := range []struct{ name, addr string }{{"skyrocket-namesrv", e.mixedNS.Addr()}, {"java-namesrv", e.javaSrv.NamesrvAddr}} {
		t.Run(ns.name, func(t *testing.T) {
			eventually(t, 60*time.Second, ns.name+" routes "+topic+" to both brokers and lists both in DefaultCluster", func() bool {
				r := w.call(t, ns.addr, req(protocol.CodeGetRouteinfoByTopic, "topic", topic))
				c := w.call(t, ns.addr, req(protocol.CodeGetBrokerClusterInfo))
				body, info := string(r.Body), string(c.Body)
				return r.Code == 0 && strings.Contains(body, javaBroker) && strings.Contains(body, skyBroker) &&
					strings.Contains(info, javaBroker) && strings.Contains(info, skyBroker)
			})
			t0 := time.Now()
			p := newProducer(t, ns.addr)
			sentTo := map[string]string{}
			perBroker := map[string]int{}
			const n = 40
			for i := 0; i < n; i++ {
				body := fmt.Sprintf("%s-%d", ns.name, i)
				m := primitive.NewMessage(topic, []byte(body))
				m.WithTag("TagM")
				m.WithKeys([]string{"km-" + body})
				m.WithProperty("via", ns.name)
				res, err := p.SendSync(context.Background(), m)
				for try := 1; (err != nil || res.Status != primitive.SendOK) && try < 3; try++ {
					// a loaded CI machine: the client's own retry may not outlast a slow broker
					t.Logf("send %s (try %d): %v %v", body, try, res, err)
					time.Sleep(200 * time.Millisecond)
					res, err = p.SendSync(context.Background(), m)
				}
				if err != nil || res.Status != primitive.SendOK {
					t.Fatalf("send %s: %v %v", body, res, err)
				}
				sentTo[body] = res.MessageQueue.BrokerName
				perBroker[res.MessageQueue.BrokerName]++
			}
			if perBroker["broker-a"] == 0 || perBroker["broker-s"] == 0 {
				t.Fatalf("the producer did not use both brokers: %v", perBroker)
			}
			got := newReceived()
			// MixedT also holds the messages of the subtests before this one, which a new group may
			// read too (both brokers start a new group at offset 0 while the first file exists):
			// only this subtest's own messages count
			mine := func(ctx context.Context, ms ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
				for _, m := range ms {
					if m.GetProperty("via") == ns.name {
						got.add(m)
					}
				}
				return consumer.ConsumeSuccess, nil
			}
			startPushConsumer(t, ns.addr, unique("MixedG"), topic, all, mine)
			// up to 100 s: an unmodified Go consumer whose first heartbeat went out before it had
			// the route waits for its next heartbeat (30 s) and rebalance (20 s)
			deadline := time.Now().Add(100 * time.Second)
			for d, _ := got.count(); d < n; d, _ = got.count() {
				if time.Now().After(deadline) {
					got.mu.Lock()
					from := map[string]int{}
					for _, m := range got.msgs {
						from[m.Queue.BrokerName]++
					}
					got.mu.Unlock()
					t.Fatalf("through %s consumed %d of %d in 100 s: by broker %v, sent %v", ns.name, d, n, from, perBroker)
				}
				time.Sleep(50 * time.Millisecond)
			}
			got.mu.Lock()
			defer got.mu.Unlock()
			for body, name := range sentTo {
				m := got.msgs[body]
				if m == nil {
					t.Errorf("%s: sent to %s, not consumed", body, name)
					continue
				}
				if m.StoreHost != brokers[name] || m.Queue.BrokerName != name {
					t.Errorf("%s: sent to %s (%s), consumed from %s stored by %s", body, name, brokers[name], m.Queue.BrokerName, m.StoreHost)
				}
				if m.GetTags() != "TagM" || m.GetKeys() != "km-"+body || m.GetProperty("via") != ns.name || m.GetProperty("CLUSTER") != "DefaultCluster" {
					t.Errorf("%s: tags %q keys %q via %q CLUSTER %q", body, m.GetTags(), m.GetKeys(), m.GetProperty("via"), m.GetProperty("CLUSTER"))
				}
			}
			t.Logf("%s: %d messages over broker-a (Java) %d and broker-s (Skyrocket) %d, produced and consumed in %v",
				ns.name, n, perBroker["broker-a"], perBroker["broker-s"], time.Since(t0).Round(time.Millisecond))
		})
	}
}
