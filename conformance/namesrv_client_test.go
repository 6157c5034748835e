package conformance

// NameServer conformance with the unmodified rocketmq-client-go: brokers register over
// the wire (masters and slaves, two clusters); the Go client's admin, pull-consumer and
// producer route lookups see exactly the registered routes; an expired broker
// disappears; unknown topics are TOPIC_NOT_EXIST.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	rmqerrors "github.com/apache/rocketmq-client-go/v2/errors"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// fakeBroker answers HEART_BEAT and SEND_MESSAGE(_V2) and records where sends landed,
// so a test can see which queues the Go producer chose from the route.
type fakeBroker struct {
	name string
	srv  *remoting.Server
	mu   sync.Mutex
	sent map[string][]int32 // topic → queue ids
}

func startFakeBroker(t *testing.T, name string) *fakeBroker {
	fb := &fakeBroker{name: name, sent: map[string][]int32{}}
	send := func(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
		var h protocol.SendMessageRequestHeader
		if err := h.Decode(req.Ext); err != nil {
			return nil, err
		}
		fb.mu.Lock()
		fb.sent[h.Topic] = append(fb.sent[h.Topic], h.QueueID)
		n := len(fb.sent[h.Topic])
		fb.mu.Unlock()
		resp := protocol.NewResponse(req, protocol.ResSuccess, "")
		rh := protocol.SendMessageResponseHeader{MsgID: "7F00000100002A9F0000000000000000", QueueID: h.QueueID, QueueOffset: int64(n)}
		rh.Encode(&resp.Ext)
		return resp, nil
	}
	ok := func(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
		return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
	}
	fb.srv = remoting.NewServer(remoting.Options{Listeners: []remoting.Listener{{Addr: "127.0.0.1:0"}}}, []remoting.Route{
		{Code: protocol.CodeSendMessage, Handler: send},
		{Code: protocol.CodeHeartBeat, Handler: ok},
		{Code: protocol.CodeSendMessageV2, Handler: send},
	})
	if err := fb.srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = fb.srv.Shutdown(ctx)
	})
	return fb
}

func (fb *fakeBroker) addr() string { return fb.srv.Addrs()[0] }

func (fb *fakeBroker) queues(topic string) []int32 {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	return append([]int32(nil), fb.sent[topic]...)
}

// registrar registers brokers with a namesrv over the wire, as a broker does.
type registrar struct {
	t  *testing.T
	cl *remoting.Client
	ns string
}

func (r *registrar) register(cluster, name, addr string, id int64, topics ...protocol.TopicConfig) {
	r.t.Helper()
	if err := r.tryRegister(cluster, name, addr, id, topics...); err != nil {
		r.t.Fatal(err)
	}
}

// tryRegister is register for goroutines other than the test's.
func (r *registrar) tryRegister(cluster, name, addr string, id int64, topics ...protocol.TopicConfig) error {
	body := protocol.RegisterBrokerBody{FilterServerList: []string{}}
	body.TopicConfigSerializeWrapper.DataVersion = protocol.DataVersion{Timestamp: time.Now().UnixMilli(), Counter: 1}
	body.TopicConfigSerializeWrapper.TopicConfigTable = map[string]protocol.TopicConfig{}
	for _, tc := range topics {
		body.TopicConfigSerializeWrapper.TopicConfigTable[tc.TopicName] = tc
	}
	req := protocol.NewRequest(protocol.CodeRegisterBroker)
	req.Body = body.AppendJSON(nil)
	h := protocol.RegisterBrokerRequestHeader{BrokerName: name, BrokerAddr: addr, ClusterName: cluster, HaServerAddr: addr, BrokerID: id,
		BodyCrc32: compat.CRC32(req.Body)}
	h.Encode(&req.Ext)
	resp, err := r.cl.Invoke(context.Background(), r.ns, req, 3*time.Second)
	if err != nil {
		return fmt.Errorf("register %s/%d: %w", name, id, err)
	}
	if resp.ResponseCode() != protocol.ResSuccess {
		return fmt.Errorf("register %s/%d: %v %s", name, id, resp.ResponseCode(), resp.Remark)
	}
	return nil
}

// newRegistrar returns a registrar with its own connection, as each broker has.
func newRegistrar(t *testing.T, ns string) *registrar {
	cl := remoting.NewClient(remoting.ClientOptions{})
	t.Cleanup(cl.Close)
	return &registrar{t: t, cl: cl, ns: ns}
}

func topicConfig(name string, queues int32) protocol.TopicConfig {
	tc := protocol.NewTopicConfig(name)
	tc.ReadQueueNums, tc.WriteQueueNums = queues, queues
	return tc
}

func mqStrings(mqs []*primitive.MessageQueue) []string {
	var out []string
	for _, mq := range mqs {
		out = append(out, mq.BrokerName+"/"+itoa(int64(mq.QueueId)))
	}
	sort.Strings(out)
	return out
}

func TestConformance_Namesrv_GoClientRoutes(t *testing.T) {
	ns := startNamesrv(t, namesrv.Options{BrokerExpire: 2 * time.Second, ScanInterval: 100 * time.Millisecond})
	a, b := startFakeBroker(t, "broker-a"), startFakeBroker(t, "broker-b")
	slave := startFakeBroker(t, "broker-a-slave")
	regA, regSlave, regB := newRegistrar(t, ns.Addr()), newRegistrar(t, ns.Addr()), newRegistrar(t, ns.Addr())
	topic := unique("RouteTopic")
	regA.register("ClusterOne", "broker-a", a.addr(), 0, topicConfig(topic, 4))
	regSlave.register("ClusterOne", "broker-a", slave.addr(), 1, topicConfig(topic, 4))
	regB.register("ClusterTwo", "broker-b", b.addr(), 0, topicConfig(topic, 2))

	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{ns.Addr()})))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()

	// Admin route lookup: publish queues are exactly the masters' write queues.
	mqs, err := adm.FetchPublishMessageQueues(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"broker-a/0", "broker-a/1", "broker-a/2", "broker-a/3", "broker-b/0", "broker-b/1"}
	if got := mqStrings(mqs); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("publish queues: got %v want %v", got, want)
	}
	clusters, err := adm.FetchClusterList(topic)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(clusters)
	if strings.Join(clusters, ",") != "ClusterOne,ClusterTwo" {
		t.Fatalf("clusters: %v", clusters)
	}
	list, err := adm.FetchAllTopicList(context.Background())
	if err != nil || !contains(list.TopicList, topic) {
		t.Fatalf("topic list %v: %v", list, err)
	}

	// Pull-consumer route lookup: subscribe queues are the read queues.
	pc, err := consumer.NewPullConsumer(consumer.WithGroupName(unique("CG")), consumer.WithInstance(unique("inst")),
		consumer.WithNsResolver(primitive.NewPassthroughResolver([]string{ns.Addr()})))
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.Subscribe(topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "*"}); err != nil {
		t.Fatal(err)
	}
	if err := pc.Start(); err != nil {
		t.Fatal(err)
	}
	defer pc.Shutdown()
	sub, err := pc.GetTopicRouteInfo(topic)
	if err != nil {
		t.Fatal(err)
	}
	if got := mqStrings(sub); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("subscribe queues: got %v want %v", got, want)
	}

	// Producer route lookup: sends reach the masters' queues round-robin, never the slave.
	p, err := producer.NewDefaultProducer(producer.WithGroupName(unique("PG")), producer.WithInstanceName(unique("inst")),
		producer.WithNsResolver(primitive.NewPassthroughResolver([]string{ns.Addr()})), producer.WithRetry(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown()
	for i := 0; i < 12; i++ {
		if _, err := p.SendSync(context.Background(), primitive.NewMessage(topic, []byte("x"))); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	aq, bq := a.queues(topic), b.queues(topic)
	if len(aq)+len(bq) != 12 || len(slave.queues(topic)) != 0 || distinct(aq) != 4 || distinct(bq) != 2 {
		t.Fatalf("sends: broker-a %v broker-b %v slave %v", aq, bq, slave.queues(topic))
	}

	// Unknown topic: the admin lookup surfaces TOPIC_NOT_EXIST.
	if _, err := adm.FetchPublishMessageQueues(context.Background(), unique("NoSuchTopic")); !errors.Is(err, rmqerrors.ErrTopicNotExist) {
		t.Fatalf("unknown topic: err = %v, want the client's ErrTopicNotExist (code 17)", err)
	}

	// broker-b stops registering: after the expiry it is gone from the route.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
				_ = regA.tryRegister("ClusterOne", "broker-a", a.addr(), 0, topicConfig(topic, 4))
				_ = regSlave.tryRegister("ClusterOne", "broker-a", slave.addr(), 1, topicConfig(topic, 4))
			}
		}
	}()
	eventually(t, 10*time.Second, "broker-b expired from the route", func() bool {
		r := ns.Routes().Route(topic)
		return r != nil && len(r.BrokerDatas) == 1 && r.BrokerDatas[0].BrokerName == "broker-a"
	})
	// A fresh client (the Go client caches routes for 30 s) sees only broker-a.
	adm2, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{ns.Addr()})))
	if err != nil {
		t.Fatal(err)
	}
	defer adm2.Close()
	mqs, err = adm2.FetchPublishMessageQueues(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	if got := mqStrings(mqs); strings.Join(got, ",") != "broker-a/0,broker-a/1,broker-a/2,broker-a/3" {
		t.Fatalf("after expiry: %v", got)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func distinct(qs []int32) int {
	m := map[int32]bool{}
	for _, q := range qs {
		m[q] = true
	}
	return len(m)
}
