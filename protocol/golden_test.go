package protocol

// Bodies printed by Java (RocketMQ 4.9.8 classes with fastjson 1.2.69), checked in under
// testdata/golden and never edited by hand. Where Java's output order is deterministic our
// encoders must give the same bytes; where Java writes a HashMap in hash order, the
// documents must be equal as JSON values (every reader, fastjson included, ignores order).

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/skyrocket-mq/skyrocket/compat"
)

func readGolden(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", "golden", name))
}

func golden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := readGolden(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	std, err := compat.NormalizeJSON(b)
	if err != nil {
		t.Fatalf("normalize %s: %v", b, err)
	}
	var v any
	if err := json.Unmarshal(std, &v); err != nil {
		t.Fatalf("decode %s: %v", std, err)
	}
	return v
}

func sameJSON(t *testing.T, name string, got []byte) {
	t.Helper()
	if want := golden(t, name); !reflect.DeepEqual(jsonValue(t, got), jsonValue(t, want)) {
		t.Fatalf("%s:\n got %s\nwant %s", name, got, want)
	}
}

func sameBytes(t *testing.T, name string, got []byte) {
	t.Helper()
	if want := golden(t, name); string(got) != string(want) {
		t.Fatalf("%s:\n got %s\nwant %s", name, got, want)
	}
}

func goldenRoute() *TopicRouteData {
	return &TopicRouteData{
		BrokerDatas: []BrokerData{
			{Cluster: "DefaultCluster", BrokerName: "broker-a", BrokerAddrs: map[int64]string{0: "127.0.0.1:10911", 1: "127.0.0.2:10911"}},
			{Cluster: "DefaultCluster", BrokerName: "broker-b", BrokerAddrs: map[int64]string{0: "127.0.0.3:10911", 1: "127.0.0.4:10911"}},
		},
		QueueDatas: []QueueData{
			{BrokerName: "broker-a", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6},
			{BrokerName: "broker-b", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6},
		},
		FilterServerTable: map[string][]string{},
	}
}

func TestGolden_TopicRouteData(t *testing.T) {
	sameBytes(t, "topic_route_data.json", goldenRoute().AppendJSON(nil, false))
	sameBytes(t, "topic_route_data.standard.json", goldenRoute().AppendJSON(nil, true))
	var r TopicRouteData
	std, _ := compat.NormalizeJSON(golden(t, "topic_route_data_order.json"))
	if err := UnmarshalBody(std, &r); err != nil || r.OrderTopicConf == "" {
		t.Fatalf("order route: %v %+v", err, r)
	}
	sameBytes(t, "topic_route_data_order.json", r.AppendJSON(nil, false))
}

func TestGolden_ClusterInfoAndLists(t *testing.T) {
	ci := &ClusterInfo{
		BrokerAddrTable: map[string]BrokerData{
			"broker-a": {Cluster: "DefaultCluster", BrokerName: "broker-a", BrokerAddrs: map[int64]string{0: "127.0.0.1:10911", 1: "127.0.0.2:10911"}},
			"broker-b": {Cluster: "DefaultCluster", BrokerName: "broker-b", BrokerAddrs: map[int64]string{0: "127.0.0.3:10911"}},
		},
		ClusterAddrTable: map[string][]string{"DefaultCluster": {"broker-b", "broker-a"}},
	}
	sameJSON(t, "cluster_info.json", ci.AppendJSON(nil))
	kv := &KVTable{Table: map[string]string{"msgPutTotalTodayNow": "12", "brokerVersionDesc": "V4_9_8", "commitLogMaxOffset": "1048576", "brokerVersion": "409"}}
	sameJSON(t, "kv_table.json", kv.AppendJSON(nil))
	tl := &TopicList{TopicList: []string{"TopicTest", "%RETRY%ConsumerGroupA", "TopicOrder", "TBW102", "DefaultCluster"}}
	sameBytes(t, "topic_list.json", tl.AppendJSON(nil))
	tl = &TopicList{TopicList: []string{"TopicTest", "TopicOrder"}, BrokerAddr: "127.0.0.1:10911"}
	sameBytes(t, "topic_list_with_broker.json", tl.AppendJSON(nil))
	sameBytes(t, "data_version.json", DataVersion{Timestamp: 1700000000000, Counter: 7}.AppendJSON(nil))
	lock := LockBatchResponseBody{LockOKMQSet: []MessageQueue{mqA(1), mqA(0)}}
	sameBytes(t, "lock_batch_response_body.json", lock.AppendJSON(nil))
}

func TestGolden_TopicConfigsAndRegisterBody(t *testing.T) {
	var w TopicConfigSerializeWrapper
	if err := UnmarshalBody(golden(t, "topic_config_wrapper.json"), &w); err != nil {
		t.Fatal(err)
	}
	if len(w.TopicConfigTable) != 4 || !w.TopicConfigTable["TopicOrder"].Order || w.TopicConfigTable["TBW102"].Perm != 7 || w.DataVersion.Counter != 3 {
		t.Fatalf("decoded wrapper: %+v", w)
	}
	sameJSON(t, "topic_config_wrapper.json", w.AppendJSON(nil))
	body := RegisterBrokerBody{TopicConfigSerializeWrapper: w, FilterServerList: []string{}}
	sameJSON(t, "register_broker_body.json", body.AppendJSON(nil))

	// Java's compressed form decodes to the same table, minus what the form drops (order, sysFlag).
	z, err := DecodeRegisterBrokerBody(golden(t, "register_broker_body.zlib.bin"), true)
	if err != nil {
		t.Fatal(err)
	}
	if z.TopicConfigSerializeWrapper.DataVersion != w.DataVersion || len(z.TopicConfigSerializeWrapper.TopicConfigTable) != len(w.TopicConfigTable) {
		t.Fatalf("compressed body: %+v", z)
	}
	for name, tc := range w.TopicConfigTable {
		got := z.TopicConfigSerializeWrapper.TopicConfigTable[name]
		tc.Order, tc.TopicSysFlag = false, 0
		if got != tc {
			t.Fatalf("compressed %s: %+v want %+v", name, got, tc)
		}
	}
	// And ours inflates to Java's layout: re-decode it.
	ours, err := body.EncodeCompressed()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRegisterBrokerBody(ours, true)
	if err != nil || len(back.TopicConfigSerializeWrapper.TopicConfigTable) != 4 {
		t.Fatalf("our compressed body: %v %+v", err, back)
	}
	tc := w.TopicConfigTable["TopicTest"]
	if got := tc.TopicName + " 4 4 6 SINGLE_TAG"; got+"\n" != string(golden(t, "topic_config_encode.txt")) && got != string(golden(t, "topic_config_encode.txt")) {
		t.Fatalf("TopicConfig#encode: %q", golden(t, "topic_config_encode.txt"))
	}
}

func TestGolden_SubscriptionGroupsAndHeartbeat(t *testing.T) {
	var sg SubscriptionGroupWrapper
	if err := UnmarshalBody(golden(t, "subscription_group_wrapper.json"), &sg); err != nil {
		t.Fatal(err)
	}
	if len(sg.SubscriptionGroupTable) != 2 || sg.SubscriptionGroupTable["ConsumerGroupB"].GroupName != "ConsumerGroupB" {
		t.Fatalf("decoded wrapper: %+v", sg)
	}
	sameBytes(t, "subscription_group_wrapper.json", sg.AppendJSON(nil))

	var hb HeartbeatData
	if err := UnmarshalBody(golden(t, "heartbeat_data.json"), &hb); err != nil {
		t.Fatal(err)
	}
	if hb.ClientID != "127.0.0.1@12345" || len(hb.ConsumerDataSet) != 1 || len(hb.ProducerDataSet) != 2 {
		t.Fatalf("heartbeat: %+v", hb)
	}
	sub := hb.ConsumerDataSet[0].SubscriptionDataSet[1]
	if len(sub.CodeSet) != 2 || sub.CodeSet[0] != 2598919 || sub.SubVersion != 1700000000001 {
		t.Fatalf("subscription: %+v", sub)
	}
}
