package conformance

// The broker's admin codes (mqadmin, the exporter, the dashboard) on the raw wire against
// a broker fed by the unmodified Go client: runtime info, stats views, broker consume
// stats, producer info, subscription groups, offsets (clone, correction), consume time
// span, consume queue inspection, store cleaning, system topics, the broker
// configuration (get, update, persisted, brokerPermission applied to the route), ACL as
// Java answers it without ACL, and the codes answered REQUEST_CODE_NOT_SUPPORTED, checked
// against conformance/UNSUPPORTED.md.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/broker/stats"
)

// sendN sends n messages with keys key-<i> and returns the results.
func sendN(t *testing.T, ns, topic string, n int) []*primitive.SendResult {
	t.Helper()
	p := newProducer(t, ns)
	var out []*primitive.SendResult
	for i := 0; i < n; i++ {
		m := primitive.NewMessage(topic, []byte(fmt.Sprintf("body-%d", i)))
		m.WithTag("TagA")
		m.WithKeys([]string{fmt.Sprintf("key-%d", i)})
		res, err := p.SendSync(context.Background(), m)
		if err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		out = append(out, res)
	}
	return out
}

// queueSizes waits until the broker has dispatched n messages of topic and returns each
// queue's max offset.
func queueSizes(t *testing.T, w *wire, topic string, n int64) map[int32]int64 {
	t.Helper()
	sizes := map[int32]int64{}
	eventually(t, 10*time.Second, "the messages in the consume queues", func() bool {
		r := w.call(protocol.CodeGetTopicStatsInfo, &protocol.GetTopicStatsInfoRequestHeader{Topic: topic}, nil)
		var ts struct {
			OffsetTable map[string]struct{ MaxOffset int64 } `json:"offsetTable"`
		}
		stdJSON(t, r.Body, &ts)
		var sum int64
		for k, v := range ts.OffsetTable {
			_, _, q, err := compat.ParseMessageQueueKey(k)
			if err != nil {
				t.Fatal(err)
			}
			sizes[q] = v.MaxOffset
			sum += v.MaxOffset
		}
		return sum == n
	})
	return sizes
}

func properties(t *testing.T, body []byte) map[string]string {
	t.Helper()
	kvs, err := compat.ParseProperties(body)
	if err != nil {
		t.Fatalf("properties %q: %v", body, err)
	}
	return compat.PropertiesMap(kvs)
}

func TestConformance_Broker_AdminRuntimeAndStats(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("AdmStats")
	sendN(t, c.nsAddr(), topic, 6)
	group := unique("AdmStatsG")
	got := newReceived()
	startPushConsumer(t, c.nsAddr(), group, topic, all, collect(got))
	eventually(t, 30*time.Second, "consumed", func() bool { d, _ := got.count(); return d == 6 })
	w := newWire(t, c.broker.Addr())

	// GET_BROKER_RUNTIME_INFO: Java's KVTable with the figures of this broker.
	r := w.call(protocol.CodeGetBrokerRuntimeInfo, nil, nil)
	var kv struct {
		Table map[string]string `json:"table"`
	}
	stdJSON(t, r.Body, &kv)
	if kv.Table["brokerVersionDesc"] != "V4_9_8" || kv.Table["msgPutTotalTodayNow"] == "0" || kv.Table["msgGetTotalTodayNow"] == "0" {
		t.Errorf("runtime info: version %q puts %q gets %q", kv.Table["brokerVersionDesc"], kv.Table["msgPutTotalTodayNow"], kv.Table["msgGetTotalTodayNow"])
	}
	for _, k := range []string{"putTps", "getTransferedTps", "commitLogDiskRatio", "earliestMessageTimeStamp", "pageCacheLockTimeMills",
		"sendThreadPoolQueueHeadWaitTimeMills", "pullThreadPoolQueueHeadWaitTimeMills", "dispatchBehindBytes", "commitLogMinOffset",
		"commitLogMaxOffset", "startAcceptSendRequestTimeStamp", "remainTransientStoreBufferNumbs", "commitLogDirCapacity"} {
		if _, ok := kv.Table[k]; !ok {
			t.Errorf("runtime info lacks %s", k)
		}
	}

	// VIEW_BROKER_STATS_DATA: BrokerStatsData for items the sends and pulls created.
	for _, c := range []protocol.ViewBrokerStatsDataRequestHeader{
		{StatsName: stats.TopicPutNums, StatsKey: topic},
		{StatsName: stats.TopicPutSize, StatsKey: topic},
		{StatsName: stats.GroupGetNums, StatsKey: topic + "@" + group},
		{StatsName: stats.BrokerPutNums, StatsKey: "DefaultCluster"},
	} {
		r := w.call(protocol.CodeViewBrokerStatsData, &c, nil)
		var bsd map[string]struct {
			Sum   *int64   `json:"sum"`
			TPS   *float64 `json:"tps"`
			AvgPT *float64 `json:"avgpt"`
		}
		stdJSON(t, r.Body, &bsd)
		for _, win := range []string{"statsMinute", "statsHour", "statsDay"} {
			if v, ok := bsd[win]; !ok || v.Sum == nil || v.TPS == nil || v.AvgPT == nil {
				t.Errorf("%s %s: %s lacks %s{sum,tps,avgpt}", c.StatsName, c.StatsKey, r.Body, win)
			}
		}
	}
	r = w.call(protocol.CodeViewBrokerStatsData, &protocol.ViewBrokerStatsDataRequestHeader{StatsName: stats.TopicPutNums, StatsKey: "NoSuchTopic"}, nil)
	if r.ResponseCode() != protocol.ResSystemError || r.Remark != "The stats <TOPIC_PUT_NUMS> <NoSuchTopic> not exist" {
		t.Errorf("missing stats item: %v %q", r.ResponseCode(), r.Remark)
	}

	// GET_BROKER_CONSUME_STATS: one entry per subscription group, the group's topic in it.
	var list struct {
		BrokerAddr       string `json:"brokerAddr"`
		ConsumeStatsList []map[string][]struct {
			OffsetTable map[string]json.RawMessage `json:"offsetTable"`
		} `json:"consumeStatsList"`
		TotalDiff *int64 `json:"totalDiff"`
	}
	eventually(t, 20*time.Second, "the group's offsets in the broker consume stats", func() bool {
		r := w.call(protocol.CodeGetBrokerConsumeStats, &protocol.GetConsumeStatsInBrokerHeader{}, nil)
		stdJSON(t, r.Body, &list)
		// The group's entries: the topic's and, once the client commits it, its retry topic's.
		for _, m := range list.ConsumeStatsList {
			for _, cs := range m[group] {
				var consumed int64
				for k, v := range cs.OffsetTable {
					tp, _, _, err := compat.ParseMessageQueueKey(k)
					if err != nil {
						t.Fatal(err)
					}
					var o struct {
						ConsumerOffset int64 `json:"consumerOffset"`
					}
					stdJSON(t, v, &o)
					if tp == topic {
						consumed += o.ConsumerOffset
					}
				}
				if len(cs.OffsetTable) == 4 && consumed == 6 {
					return true
				}
			}
		}
		return false
	})
	if list.BrokerAddr != c.broker.Addr() || list.TotalDiff == nil {
		t.Errorf("broker consume stats: addr %q totalDiff %v", list.BrokerAddr, list.TotalDiff)
	}

	// GET_ALL_PRODUCER_INFO: the Go producer's group.
	r = w.call(protocol.CodeGetAllProducerInfo, nil, nil)
	var pt struct {
		Data map[string][]struct {
			ClientID string `json:"clientId"`
			RemoteIP string `json:"remoteIP"`
			Language string `json:"language"`
			Version  int    `json:"version"`
		} `json:"data"`
	}
	stdJSON(t, r.Body, &pt)
	goProducers := 0
	for _, infos := range pt.Data {
		for _, p := range infos {
			if p.Language == "GO" && strings.HasPrefix(p.RemoteIP, "/127.0.0.1:") && p.ClientID != "" {
				goProducers++
			}
		}
	}
	if goProducers == 0 {
		t.Errorf("producer info has no Go producer: %s", r.Body)
	}
}

func TestConformance_Broker_AdminGroupsAndOffsets(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("AdmGroups")
	sendN(t, c.nsAddr(), topic, 8)
	w := newWire(t, c.broker.Addr())
	sizes := queueSizes(t, w, topic, 8)

	// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP: fields the body lacks keep Java's defaults.
	g := unique("AdmG")
	r := w.call(protocol.CodeUpdateAndCreateSubscriptiongroup, nil, []byte(`{"groupName":"`+g+`","retryMaxTimes":3,"consumeBroadcastEnable":false}`))
	if r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("create group: %v %q", r.ResponseCode(), r.Remark)
	}
	var groups struct {
		SubscriptionGroupTable map[string]protocol.SubscriptionGroupConfig `json:"subscriptionGroupTable"`
	}
	stdJSON(t, w.call(protocol.CodeGetAllSubscriptiongroupConfig, nil, nil).Body, &groups)
	if sg := groups.SubscriptionGroupTable[g]; sg.RetryMaxTimes != 3 || !sg.ConsumeEnable || sg.ConsumeBroadcastEnable || sg.RetryQueueNums != 1 {
		t.Errorf("created group %+v", sg)
	}

	// Offsets for g on queues 0 and 1, then CLONE_GROUP_OFFSET to g2 for the topic.
	for q, off := range map[int32]int64{0: 2, 1: 1} {
		w.call(protocol.CodeUpdateConsumerOffset, &protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: g, Topic: topic, QueueID: q, CommitOffset: off}, nil)
	}
	g2 := unique("AdmG2")
	if r := w.call(protocol.CodeCloneGroupOffset, &protocol.CloneGroupOffsetRequestHeader{SrcGroup: g, DestGroup: g2, Topic: topic, Offline: true}, nil); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("clone: %v %q", r.ResponseCode(), r.Remark)
	}
	var offsets struct {
		OffsetTable map[string]map[string]int64 `json:"offsetTable"`
	}
	stdJSON(t, w.call(protocol.CodeGetAllConsumerOffset, nil, nil).Body, &offsets)
	if o := offsets.OffsetTable[topic+"@"+g2]; o["0"] != 2 || o["1"] != 1 {
		t.Errorf("cloned offsets %v", o)
	}

	// QUERY_CORRECTION_OFFSET: the smallest offset of the other groups per queue; a queue
	// where compareGroup went further becomes Long.MAX_VALUE.
	w.call(protocol.CodeUpdateConsumerOffset, &protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: g2, Topic: topic, QueueID: 0, CommitOffset: 1}, nil)
	r = w.call(protocol.CodeQueryCorrectionOffset, &protocol.QueryCorrectionOffsetHeader{Topic: topic, CompareGroup: g, FilterGroups: ""}, nil)
	var corr struct {
		CorrectionOffsets map[string]int64 `json:"correctionOffsets"`
	}
	stdJSON(t, r.Body, &corr)
	if corr.CorrectionOffsets["0"] != 1 || corr.CorrectionOffsets["1"] != 1 {
		t.Errorf("correction offsets %s, want {0:1,1:1}", r.Body)
	}
	r = w.call(protocol.CodeQueryCorrectionOffset, &protocol.QueryCorrectionOffsetHeader{Topic: topic, CompareGroup: g2, FilterGroups: g}, nil)
	corr.CorrectionOffsets = nil
	stdJSON(t, r.Body, &corr)
	if corr.CorrectionOffsets["0"] != 1 {
		t.Errorf("correction offsets with %s filtered: %s, want queue 0 at 1", g, r.Body)
	}

	// QUERY_CONSUME_TIME_SPAN: per write queue; consumed up to an offset gives its store time.
	r = w.call(protocol.CodeQueryConsumeTimeSpan, &protocol.QueryConsumeTimeSpanRequestHeader{Topic: topic, Group: g}, nil)
	var span struct {
		ConsumeTimeSpanSet []struct {
			MessageQueue     protocol.MessageQueue `json:"messageQueue"`
			MinTimeStamp     int64                 `json:"minTimeStamp"`
			MaxTimeStamp     int64                 `json:"maxTimeStamp"`
			ConsumeTimeStamp int64                 `json:"consumeTimeStamp"`
			DelayTime        int64                 `json:"delayTime"`
		} `json:"consumeTimeSpanSet"`
	}
	stdJSON(t, r.Body, &span)
	if len(span.ConsumeTimeSpanSet) != 4 {
		t.Fatalf("time span: %s", r.Body)
	}
	committed := map[int32]int64{0: 2, 1: 1}
	checked := 0
	for _, s := range span.ConsumeTimeSpanSet {
		size := sizes[s.MessageQueue.QueueID]
		if size == 0 {
			continue
		}
		checked++
		if s.MinTimeStamp <= 0 || s.MaxTimeStamp < s.MinTimeStamp {
			t.Errorf("time span of a queue with %d messages: %+v", size, s)
		}
		if o := committed[s.MessageQueue.QueueID]; o > 0 && o <= size && (s.ConsumeTimeStamp < s.MinTimeStamp || s.ConsumeTimeStamp > s.MaxTimeStamp) {
			t.Errorf("consume time of a queue consumed up to %d: %+v", o, s)
		}
		if o := committed[s.MessageQueue.QueueID]; o < size && s.DelayTime <= 0 {
			t.Errorf("delay of a queue with messages left to consume: %+v", s)
		}
	}
	if checked == 0 {
		t.Fatal("no queue had messages")
	}
	if r := w.call(protocol.CodeQueryConsumeTimeSpan, &protocol.QueryConsumeTimeSpanRequestHeader{Topic: "NoSuchTopic", Group: g}, nil); r.ResponseCode() != protocol.ResTopicNotExist {
		t.Errorf("time span of a missing topic: %v", r.ResponseCode())
	}

	// DELETE_SUBSCRIPTIONGROUP with removeOffset drops the group and its offsets.
	if r := w.call(protocol.CodeDeleteSubscriptiongroup, &protocol.DeleteSubscriptionGroupRequestHeader{GroupName: g, RemoveOffset: true}, nil); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("delete group: %v %q", r.ResponseCode(), r.Remark)
	}
	groups.SubscriptionGroupTable = nil
	stdJSON(t, w.call(protocol.CodeGetAllSubscriptiongroupConfig, nil, nil).Body, &groups)
	offsets.OffsetTable = nil
	stdJSON(t, w.call(protocol.CodeGetAllConsumerOffset, nil, nil).Body, &offsets)
	if _, ok := groups.SubscriptionGroupTable[g]; ok {
		t.Error("deleted group still listed")
	}
	if _, ok := offsets.OffsetTable[topic+"@"+g]; ok {
		t.Error("removeOffset kept the group's offsets")
	}
	if _, ok := offsets.OffsetTable[topic+"@"+g2]; !ok {
		t.Error("another group's offsets went with it")
	}
}

func TestConformance_Broker_AdminStoreAndConsumeQueue(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("AdmCQ")
	res := sendN(t, c.nsAddr(), topic, 5)
	w := newWire(t, c.broker.Addr())
	queueSizes(t, w, topic, 5)

	r := w.call(protocol.CodeGetSystemTopicListFromBroker, nil, nil)
	var tl struct {
		TopicList []string `json:"topicList"`
	}
	stdJSON(t, r.Body, &tl)
	for _, want := range []string{"DefaultCluster", "broker-a", "SCHEDULE_TOPIC_XXXX", "TBW102", "RMQ_SYS_TRANS_HALF_TOPIC"} {
		if !slices.Contains(tl.TopicList, want) {
			t.Errorf("system topics %v lack %s", tl.TopicList, want)
		}
	}
	for _, code := range []protocol.RequestCode{protocol.CodeCleanExpiredConsumequeue, protocol.CodeDeleteExpiredCommitlog, protocol.CodeCleanUnusedTopic} {
		if r := w.call(code, nil, nil); r.ResponseCode() != protocol.ResSuccess {
			t.Errorf("%v: %v %q", code, r.ResponseCode(), r.Remark)
		}
	}

	q := res[0].MessageQueue.QueueId
	r = w.call(protocol.CodeQueryConsumeQueue, &protocol.QueryConsumeQueueRequestHeader{Topic: topic, QueueID: int32(q), Index: 0, Count: 10, ConsumerGroup: "nobody"}, nil)
	var cq struct {
		FilterData    string `json:"filterData"`
		MaxQueueIndex int64  `json:"maxQueueIndex"`
		MinQueueIndex int64  `json:"minQueueIndex"`
		QueueData     []struct {
			PhysicOffset int64 `json:"physicOffset"`
			PhysicSize   int32 `json:"physicSize"`
			TagsCode     int64 `json:"tagsCode"`
		} `json:"queueData"`
	}
	stdJSON(t, r.Body, &cq)
	if r.ResponseCode() != protocol.ResSuccess || cq.MaxQueueIndex < 1 || cq.MinQueueIndex != 0 || len(cq.QueueData) != int(cq.MaxQueueIndex) {
		t.Fatalf("query consume queue: %v %s", r.ResponseCode(), r.Body)
	}
	if cq.FilterData != "nobody@"+topic+" is not online!" || cq.QueueData[0].PhysicSize <= 0 || cq.QueueData[0].TagsCode != int64(compat.JavaHashCode("TagA")) {
		t.Errorf("consume queue data: %s", r.Body)
	}
	r = w.call(protocol.CodeQueryConsumeQueue, &protocol.QueryConsumeQueueRequestHeader{Topic: topic, QueueID: int32(q), Index: 1000, Count: 1}, nil)
	if r.ResponseCode() != protocol.ResSuccess || len(r.Body) != 0 || r.Remark != fmt.Sprintf("Index 1000 of %d@%s is not exist!", q, topic) {
		t.Errorf("index out of range: %v %q body %q", r.ResponseCode(), r.Remark, r.Body)
	}
	r = w.call(protocol.CodeQueryConsumeQueue, &protocol.QueryConsumeQueueRequestHeader{Topic: "NoSuchTopic", QueueID: 0, Count: 1}, nil)
	if r.ResponseCode() != protocol.ResSystemError || r.Remark != "0@NoSuchTopic is not exist!" {
		t.Errorf("missing queue: %v %q", r.ResponseCode(), r.Remark)
	}
}

func TestConformance_Broker_AdminConfig(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("AdmCfg")
	sendN(t, c.nsAddr(), topic, 1)
	w := newWire(t, c.broker.Addr())
	ns := newWire(t, c.nsAddr())

	r := w.call(protocol.CodeGetBrokerConfig, nil, nil)
	if p := properties(t, r.Body); p["brokerName"] != "broker-a" || p["listenPort"] == "" || r.Ext.Value("version") == "" {
		t.Fatalf("broker config: version %q, %d properties", r.Ext.Value("version"), len(p))
	}
	if r := w.call(protocol.CodeUpdateBrokerConfig, nil, []byte("brokerConfigPath=/tmp/x\n")); r.ResponseCode() != protocol.ResNoPermission ||
		r.Remark != "Can not update config in black list." {
		t.Errorf("black-listed key: %v %q", r.ResponseCode(), r.Remark)
	}

	routePerm := func() int32 {
		r := ns.call(protocol.CodeGetRouteinfoByTopic, &protocol.GetRouteInfoRequestHeader{Topic: topic}, nil)
		var route struct {
			QueueDatas []struct {
				Perm int32 `json:"perm"`
			} `json:"queueDatas"`
		}
		stdJSON(t, r.Body, &route)
		if len(route.QueueDatas) != 1 {
			t.Fatalf("route: %s", r.Body)
		}
		return route.QueueDatas[0].Perm
	}
	if p := routePerm(); p != 6 {
		t.Fatalf("route perm %d before the update", p)
	}
	// brokerPermission is applied at once: the broker re-registers and the route loses write.
	if r := w.call(protocol.CodeUpdateBrokerConfig, nil, []byte("brokerPermission=4\n")); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("update: %v %q", r.ResponseCode(), r.Remark)
	}
	eventually(t, 15*time.Second, "the route with perm 4", func() bool { return routePerm() == 4 })
	if p := properties(t, w.call(protocol.CodeGetBrokerConfig, nil, nil).Body); p["brokerPermission"] != "4" {
		t.Errorf("brokerPermission reported %q", p["brokerPermission"])
	}
	file := filepath.Join(c.root, "store", "config", "broker.properties")
	if p := properties(t, readAll(t, file)); p["brokerPermission"] != "4" {
		t.Errorf("persisted brokerPermission %q", p["brokerPermission"])
	}
	w.call(protocol.CodeUpdateBrokerConfig, nil, []byte("brokerPermission=6\n"))
	eventually(t, 15*time.Second, "the route with perm 6 again", func() bool { return routePerm() == 6 })
}

func readAll(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestConformance_Broker_AdminACL_AsJavaWithoutACL(t *testing.T) {
	c := startCluster(t, nil)
	w := newWire(t, c.broker.Addr())
	r := w.call(protocol.CodeUpdateAndCreateAclConfig, &protocol.CreateAccessConfigRequestHeader{AccessKey: "ak", SecretKey: "sk12345678"}, nil)
	if r.ResponseCode() != protocol.ResUpdateAndCreateAclConfigFailed || r.Remark != broker.RemarkACLNotSupported {
		t.Errorf("update ACL: %v %q", r.ResponseCode(), r.Remark)
	}
	if r := w.call(protocol.CodeGetBrokerClusterAclInfo, nil, nil); r.ResponseCode() != protocol.ResSystemError {
		t.Errorf("ACL version: %v", r.ResponseCode())
	}
}

// TestConformance_Broker_UnsupportedCodes sends every request code the protocol package
// knows, with no header and no body, and checks that the codes answered
// REQUEST_CODE_NOT_SUPPORTED are exactly those conformance/UNSUPPORTED.md lists.
func TestConformance_Broker_UnsupportedCodes(t *testing.T) {
	c := startCluster(t, nil)
	w := newWire(t, c.broker.Addr())
	var notSupported []int
	for code := 1; code < 400; code++ {
		rc := protocol.RequestCode(code)
		if rc.String() == strconv.Itoa(code) {
			continue // not a RocketMQ request code
		}
		r := w.call(rc, nil, nil)
		if r.ResponseCode() == protocol.ResRequestCodeNotSupported {
			if want := fmt.Sprintf(" request type %d not supported", code); r.Remark != want {
				t.Errorf("%v: remark %q, want Java's %q", rc, r.Remark, want)
			}
			notSupported = append(notSupported, code)
		}
	}
	listed := unsupportedCodes(t)
	if !slices.Equal(notSupported, listed) {
		t.Errorf("codes answered REQUEST_CODE_NOT_SUPPORTED:\n %v\nconformance/UNSUPPORTED.md lists:\n %v", notSupported, listed)
	}
}

// unsupportedCodes reads the code column of UNSUPPORTED.md's broker table.
func unsupportedCodes(t *testing.T) []int {
	t.Helper()
	f, err := os.Open("UNSUPPORTED.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var codes []int
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = strings.Contains(line, "REQUEST_CODE_NOT_SUPPORTED")
			continue
		}
		if !in || !strings.HasPrefix(line, "| ") {
			continue
		}
		cell := strings.TrimSpace(strings.Split(line, "|")[1])
		if n, err := strconv.Atoi(cell); err == nil {
			codes = append(codes, n)
		}
	}
	slices.Sort(codes)
	return codes
}
