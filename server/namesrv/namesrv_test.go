package namesrv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// eventually: conformance/testkit.Eventually.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, d, what, cond)
}

func start(t *testing.T, opts Options) *Server {
	t.Helper()
	opts.ListenAddr = "127.0.0.1:0"
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s
}

type peer struct {
	t    *testing.T
	cl   *remoting.Client
	addr string
}

func newPeer(t *testing.T, s *Server) *peer {
	cl := remoting.NewClient(remoting.ClientOptions{})
	t.Cleanup(cl.Close)
	return &peer{t, cl, s.Addr()}
}

func (p *peer) call(req *protocol.Command) *protocol.Command {
	p.t.Helper()
	resp, err := p.cl.Invoke(context.Background(), p.addr, req, 3*time.Second)
	if err != nil {
		p.t.Fatal(err)
	}
	return resp
}

func topicsBody(dv protocol.DataVersion, topics ...protocol.TopicConfig) *protocol.RegisterBrokerBody {
	b := &protocol.RegisterBrokerBody{FilterServerList: []string{}}
	b.TopicConfigSerializeWrapper.DataVersion = dv
	b.TopicConfigSerializeWrapper.TopicConfigTable = map[string]protocol.TopicConfig{}
	for _, tc := range topics {
		b.TopicConfigSerializeWrapper.TopicConfigTable[tc.TopicName] = tc
	}
	return b
}

func (p *peer) register(cluster, name, addr string, id int64, body *protocol.RegisterBrokerBody, compressed bool) *protocol.Command {
	req := protocol.NewRequest(protocol.CodeRegisterBroker)
	h := protocol.RegisterBrokerRequestHeader{BrokerName: name, BrokerAddr: addr, ClusterName: cluster,
		HaServerAddr: strings.Replace(addr, ":10911", ":10912", 1), BrokerID: id, Compressed: compressed}
	if compressed {
		z, err := body.EncodeCompressed()
		if err != nil {
			p.t.Fatal(err)
		}
		req.Body = z
	} else {
		req.Body = body.AppendJSON(nil)
	}
	h.BodyCrc32 = compat.CRC32(req.Body)
	h.Encode(&req.Ext)
	return p.call(req)
}

func (p *peer) route(topic string, version int32) *protocol.Command {
	req := protocol.NewRequest(protocol.CodeGetRouteinfoByTopic)
	req.Version = version
	h := protocol.GetRouteInfoRequestHeader{Topic: topic}
	h.Encode(&req.Ext)
	return p.call(req)
}

var dv1 = protocol.DataVersion{Timestamp: 1700000000000, Counter: 1}

func TestNamesrv_RegisterAndRoute(t *testing.T) {
	s := start(t, Options{})
	p := newPeer(t, s)
	tc := protocol.NewTopicConfig("TopicA")
	tc.ReadQueueNums, tc.WriteQueueNums = 4, 4
	if r := p.register("c1", "broker-a", "10.0.0.1:10911", 0, topicsBody(dv1, tc), false); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("register master: %v %q", r.ResponseCode(), r.Remark)
	}
	slave := p.register("c1", "broker-a", "10.0.0.2:10911", 1, topicsBody(dv1, tc), false)
	if slave.Ext.Value("masterAddr") != "10.0.0.1:10911" || slave.Ext.Value("haServerAddr") != "10.0.0.1:10912" {
		t.Fatalf("slave response header: %v", slave.Ext)
	}
	p.register("c2", "broker-b", "10.0.0.3:10911", 0, topicsBody(dv1, tc), true)

	legacy := p.route("TopicA", protocol.VersionV4_5_2)
	want := `{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"},"brokerName":"broker-a","cluster":"c1"},` +
		`{"brokerAddrs":{0:"10.0.0.3:10911"},"brokerName":"broker-b","cluster":"c2"}],"filterServerTable":{},` +
		`"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4},` +
		`{"brokerName":"broker-b","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}`
	if string(legacy.Body) != want {
		t.Fatalf("legacy route:\n got %s\nwant %s", legacy.Body, want)
	}
	std := p.route("TopicA", protocol.VersionV4_9_8)
	if !strings.Contains(string(std.Body), `"brokerAddrs":{"0":"10.0.0.1:10911","1":"10.0.0.2:10911"}`) {
		t.Fatalf("standard route: %s", std.Body)
	}
	var decoded protocol.TopicRouteData
	if err := protocol.UnmarshalBody(std.Body, &decoded); err != nil || len(decoded.BrokerDatas) != 2 || decoded.BrokerDatas[0].BrokerAddrs[1] != "10.0.0.2:10911" {
		t.Fatalf("decode standard route: %v %+v", err, decoded)
	}
	missing := p.route("Nope", protocol.VersionV4_9_8)
	if missing.ResponseCode() != protocol.ResTopicNotExist ||
		missing.Remark != "No topic route info in name server for the topic: Nope\nSee http://rocketmq.apache.org/docs/faq/ for further details." {
		t.Fatalf("unknown topic: %v %q", missing.ResponseCode(), missing.Remark)
	}
}

func TestNamesrv_SlaveTopicsDoNotCreateQueues(t *testing.T) {
	s := start(t, Options{})
	p := newPeer(t, s)
	p.register("c1", "broker-a", "10.0.0.2:10911", 1, topicsBody(dv1, protocol.NewTopicConfig("OnlySlave")), false)
	if r := p.route("OnlySlave", protocol.VersionV4_9_8); r.ResponseCode() != protocol.ResTopicNotExist {
		t.Fatalf("a slave's topic must not be routable: %v", r.ResponseCode())
	}
}

func TestNamesrv_BadCRC(t *testing.T) {
	s := start(t, Options{})
	p := newPeer(t, s)
	req := protocol.NewRequest(protocol.CodeRegisterBroker)
	req.Body = topicsBody(dv1).AppendJSON(nil)
	h := protocol.RegisterBrokerRequestHeader{BrokerName: "b", BrokerAddr: "1.1.1.1:1", ClusterName: "c", HaServerAddr: "1.1.1.1:2", BodyCrc32: 12345}
	h.Encode(&req.Ext)
	if r := p.call(req); r.ResponseCode() != protocol.ResSystemError || r.Remark != "crc32 not match" {
		t.Fatalf("got %v %q", r.ResponseCode(), r.Remark)
	}
}

func TestNamesrv_Expiry_And_ChannelClose(t *testing.T) {
	s := start(t, Options{BrokerExpire: 300 * time.Millisecond, ScanInterval: 50 * time.Millisecond})
	keeper := newPeer(t, s)
	keeper.register("c1", "broker-keep", "10.0.0.9:10911", 0, topicsBody(dv1, protocol.NewTopicConfig("Keep")), false)
	p := newPeer(t, s)
	p.register("c1", "broker-a", "10.0.0.1:10911", 0, topicsBody(dv1, protocol.NewTopicConfig("T")), false)
	stop := make(chan struct{})
	defer close(stop)
	go func() { // keep broker-keep alive with re-registrations, as a broker does every 30 s
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				req := protocol.NewRequest(protocol.CodeRegisterBroker)
				req.Body = topicsBody(dv1, protocol.NewTopicConfig("Keep")).AppendJSON(nil)
				h := protocol.RegisterBrokerRequestHeader{BrokerName: "broker-keep", BrokerAddr: "10.0.0.9:10911", ClusterName: "c1", HaServerAddr: "x"}
				h.Encode(&req.Ext)
				_, _ = keeper.cl.Invoke(context.Background(), keeper.addr, req, time.Second)
			}
		}
	}()
	// Routes are asked on a connection of their own: the name server closes an expired
	// broker's channel (Java: RouteInfoManager#scanNotActiveBroker), which is p's.
	reader := newPeer(t, s)
	eventually(t, 5*time.Second, "expired broker removed", func() bool {
		return reader.route("T", protocol.VersionV4_9_8).ResponseCode() == protocol.ResTopicNotExist
	})
	if r := reader.route("Keep", protocol.VersionV4_9_8); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("re-registering broker expired too: %v", r.ResponseCode())
	}

	// A broker whose channel closes disappears at once.
	s2 := start(t, Options{})
	b := newPeer(t, s2)
	b.register("c1", "broker-x", "10.0.0.5:10911", 0, topicsBody(dv1, protocol.NewTopicConfig("X")), false)
	q := newPeer(t, s2)
	if r := q.route("X", protocol.VersionV4_9_8); r.ResponseCode() != protocol.ResSuccess {
		t.Fatal("route missing before close")
	}
	b.cl.Close()
	eventually(t, 5*time.Second, "closed broker removed", func() bool {
		return q.route("X", protocol.VersionV4_9_8).ResponseCode() == protocol.ResTopicNotExist
	})
}

func TestNamesrv_KVConfig_PersistedAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "namesrv", "kvConfig.json")
	s := start(t, Options{KVConfigPath: path, OrderMessageEnable: true})
	p := newPeer(t, s)
	put := func(ns, k, v string) {
		req := protocol.NewRequest(protocol.CodePutKvConfig)
		h := protocol.PutKVConfigRequestHeader{Namespace: ns, Key: k, Value: v}
		h.Encode(&req.Ext)
		if r := p.call(req); r.ResponseCode() != protocol.ResSuccess {
			t.Fatalf("put: %v", r.ResponseCode())
		}
	}
	put(NamespaceOrderTopicConfig, "OrderTopic", "broker-a:4")
	put("ns2", "k", "v")
	p.register("c1", "broker-a", "10.0.0.1:10911", 0, topicsBody(dv1, protocol.NewTopicConfig("OrderTopic")), false)
	if r := p.route("OrderTopic", protocol.VersionV4_5_2); !strings.Contains(string(r.Body), `"orderTopicConf":"broker-a:4"`) {
		t.Fatalf("orderTopicConf missing: %s", r.Body)
	}
	del := protocol.NewRequest(protocol.CodeDeleteKvConfig)
	dh := protocol.DeleteKVConfigRequestHeader{Namespace: "ns2", Key: "k"}
	dh.Encode(&del.Ext)
	p.call(del)

	data, err := os.ReadFile(path)
	if err != nil || string(data) != `{"configTable":{"ORDER_TOPIC_CONFIG":{"OrderTopic":"broker-a:4"},"ns2":{}}}` {
		t.Fatalf("kvConfig.json: %s %v", data, err)
	}
	s2 := start(t, Options{KVConfigPath: path})
	p2 := newPeer(t, s2)
	get := protocol.NewRequest(protocol.CodeGetKvConfig)
	gh := protocol.GetKVConfigRequestHeader{Namespace: NamespaceOrderTopicConfig, Key: "OrderTopic"}
	gh.Encode(&get.Ext)
	if r := p2.call(get); r.Ext.Value("value") != "broker-a:4" {
		t.Fatalf("after restart: %v %v", r.ResponseCode(), r.Ext)
	}
	gh.Key = "Missing"
	get = protocol.NewRequest(protocol.CodeGetKvConfig)
	gh.Encode(&get.Ext)
	if r := p2.call(get); r.ResponseCode() != protocol.ResQueryNotFound || r.Remark != "No config item, Namespace: ORDER_TOPIC_CONFIG Key: Missing" {
		t.Fatalf("missing key: %v %q", r.ResponseCode(), r.Remark)
	}
	list := protocol.NewRequest(protocol.CodeGetKvlistByNamespace)
	lh := protocol.GetKVListByNamespaceRequestHeader{Namespace: NamespaceOrderTopicConfig}
	lh.Encode(&list.Ext)
	if r := p2.call(list); string(r.Body) != `{"table":{"OrderTopic":"broker-a:4"}}` {
		t.Fatalf("kv list: %s", r.Body)
	}
}

func TestNamesrv_TopicListsAndPerms(t *testing.T) {
	s := start(t, Options{})
	p := newPeer(t, s)
	unit := protocol.NewTopicConfig("UnitTopic")
	unit.TopicSysFlag = topicFlagUnit
	p.register("c1", "broker-a", "10.0.0.1:10911", 0, topicsBody(dv1, protocol.NewTopicConfig("A"), unit), false)
	p.register("c2", "broker-b", "10.0.0.2:10911", 0, topicsBody(dv1, protocol.NewTopicConfig("B")), false)
	body := func(code protocol.RequestCode, h interface{ Encode(*protocol.Ext) }) string {
		req := protocol.NewRequest(code)
		if h != nil {
			h.Encode(&req.Ext)
		}
		return string(p.call(req).Body)
	}
	if got := body(protocol.CodeGetAllTopicListFromNameserver, nil); got != `{"topicList":["A","B","UnitTopic"]}` {
		t.Fatalf("all topics: %s", got)
	}
	if got := body(protocol.CodeGetTopicsByCluster, &protocol.GetTopicsByClusterRequestHeader{Cluster: "c2"}); got != `{"topicList":["B"]}` {
		t.Fatalf("by cluster: %s", got)
	}
	if got := body(protocol.CodeGetSystemTopicListFromNs, nil); got != `{"brokerAddr":"10.0.0.1:10911","topicList":["c1","broker-a","c2","broker-b"]}` {
		t.Fatalf("system topics: %s", got)
	}
	if got := body(protocol.CodeGetUnitTopicList, nil); got != `{"topicList":["UnitTopic"]}` {
		t.Fatalf("unit topics: %s", got)
	}
	wipe := protocol.NewRequest(protocol.CodeWipeWritePermOfBroker)
	wh := protocol.WipeWritePermOfBrokerRequestHeader{BrokerName: "broker-a"}
	wh.Encode(&wipe.Ext)
	if r := p.call(wipe); r.Ext.Value("wipeTopicCount") != "2" {
		t.Fatalf("wipe: %v", r.Ext)
	}
	if r := p.route("A", protocol.VersionV4_9_8); !strings.Contains(string(r.Body), `"perm":4`) {
		t.Fatalf("perm not wiped: %s", r.Body)
	}
	add := protocol.NewRequest(protocol.CodeAddWritePermOfBroker)
	ah := protocol.AddWritePermOfBrokerRequestHeader{BrokerName: "broker-a"}
	ah.Encode(&add.Ext)
	if r := p.call(add); r.Ext.Value("addTopicCount") != "2" {
		t.Fatalf("add: %v", r.Ext)
	}
	del := protocol.NewRequest(protocol.CodeDeleteTopicInNamesrv)
	dh := protocol.DeleteTopicFromNamesrvRequestHeader{Topic: "A"}
	dh.Encode(&del.Ext)
	p.call(del)
	if r := p.route("A", protocol.VersionV4_9_8); r.ResponseCode() != protocol.ResTopicNotExist {
		t.Fatal("deleted topic still routable")
	}
	ci := string(p.call(protocol.NewRequest(protocol.CodeGetBrokerClusterInfo)).Body)
	want := `{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"broker-a","cluster":"c1"},` +
		`"broker-b":{"brokerAddrs":{0:"10.0.0.2:10911"},"brokerName":"broker-b","cluster":"c2"}},"clusterAddrTable":{"c1":["broker-a"],"c2":["broker-b"]}}`
	if ci != want {
		t.Fatalf("cluster info:\n got %s\nwant %s", ci, want)
	}
}

func TestNamesrv_QueryDataVersion(t *testing.T) {
	s := start(t, Options{})
	p := newPeer(t, s)
	p.register("c1", "broker-a", "10.0.0.1:10911", 0, topicsBody(dv1), false)
	q := func(dv protocol.DataVersion) *protocol.Command {
		req := protocol.NewRequest(protocol.CodeQueryDataVersion)
		h := protocol.QueryDataVersionRequestHeader{BrokerName: "broker-a", BrokerAddr: "10.0.0.1:10911", ClusterName: "c1"}
		h.Encode(&req.Ext)
		req.Body = dv.AppendJSON(nil)
		return p.call(req)
	}
	if r := q(dv1); r.Ext.Value("changed") != "false" || string(r.Body) != `{"counter":1,"timestamp":1700000000000}` {
		t.Fatalf("same version: %v %s", r.Ext, r.Body)
	}
	if r := q(protocol.DataVersion{Timestamp: 1, Counter: 2}); r.Ext.Value("changed") != "true" {
		t.Fatalf("new version: %v", r.Ext)
	}
}

// fakeConfig is updated on a handler pool goroutine and read by the test: the reply on
// the socket orders them for us, not for the race detector, hence the lock.
type fakeConfig struct {
	mu    sync.Mutex
	props map[string]string
}

func (f *fakeConfig) Format() string { return "listenPort=9876\nkvConfigPath=/x\n" }
func (f *fakeConfig) Update(p map[string]string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.props = p
	return nil
}
func (f *fakeConfig) BlackList() []string { return nil }
func (f *fakeConfig) get(k string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.props[k]
}

func TestNamesrv_Config(t *testing.T) {
	fc := &fakeConfig{}
	s := start(t, Options{Config: fc})
	p := newPeer(t, s)
	if r := p.call(protocol.NewRequest(protocol.CodeGetNamesrvConfig)); string(r.Body) != "listenPort=9876\nkvConfigPath=/x\n" {
		t.Fatalf("get config: %q", r.Body)
	}
	up := protocol.NewRequest(protocol.CodeUpdateNamesrvConfig)
	up.Body = []byte("orderMessageEnable=true\n")
	if r := p.call(up); r.ResponseCode() != protocol.ResSuccess || fc.get("orderMessageEnable") != "true" {
		t.Fatalf("update: %v %q", r.ResponseCode(), fc.get("orderMessageEnable"))
	}
	up = protocol.NewRequest(protocol.CodeUpdateNamesrvConfig)
	up.Body = []byte("kvConfigPath=/etc/passwd\n")
	if r := p.call(up); r.ResponseCode() != protocol.ResNoPermission || r.Remark != "Can not update config in black list." {
		t.Fatalf("black list: %v %q", r.ResponseCode(), r.Remark)
	}
}

func TestNamesrv_UnknownCode(t *testing.T) {
	s := start(t, Options{})
	if r := newPeer(t, s).call(protocol.NewRequest(protocol.CodeSendMessage)); r.ResponseCode() != protocol.ResRequestCodeNotSupported {
		t.Fatalf("got %v", r.ResponseCode())
	}
}
