package protocol

// The admin bodies against Java's goldens (testdata/golden, written by BodyGoldens.java
// and ConfigGoldenMain.java; never edited by hand). MessageQueue-keyed tables are slices
// written in the order given, so the tests give Java's hash order and compare bytes;
// String-keyed tables Java writes in hash order are compared as JSON values.

import (
	"strings"
	"testing"
	"time"
)

func mqA(q int32) MessageQueue {
	return MessageQueue{Topic: "TopicTest", BrokerName: "broker-a", QueueID: q}
}
func mqB(q int32) MessageQueue {
	return MessageQueue{Topic: "TopicTest", BrokerName: "broker-b", QueueID: q}
}

func TestGolden_ConsumeStats(t *testing.T) {
	w := func(q int64) OffsetWrapper {
		return OffsetWrapper{BrokerOffset: 100 + q, ConsumerOffset: 90 + q, LastTimestamp: 1700000000000 + q}
	}
	cs := ConsumeStats{ConsumeTps: 1.5, OffsetTable: []MessageQueueEntry[OffsetWrapper]{
		{mqB(0), w(0)}, {mqA(1), w(1)}, {mqA(0), w(0)}, {mqB(1), w(1)},
	}}
	sameBytes(t, "consume_stats.json", cs.AppendJSON(nil))
	if cs.TotalDiff() != 40 {
		t.Fatalf("TotalDiff = %d", cs.TotalDiff())
	}
	// consumeTps is a Java double: always a fraction.
	if got := string((&ConsumeStats{}).AppendJSON(nil)); got != `{"consumeTps":0.0,"offsetTable":{}}` {
		t.Fatalf("empty ConsumeStats: %s", got)
	}
}

func TestGolden_TopicStatsTable(t *testing.T) {
	ts := TopicStatsTable{OffsetTable: []MessageQueueEntry[TopicOffset]{
		{mqA(1), TopicOffset{MinOffset: 1, MaxOffset: 101, LastUpdateTimestamp: 1700000000001}},
		{mqA(0), TopicOffset{MinOffset: 0, MaxOffset: 100, LastUpdateTimestamp: 1700000000000}},
	}}
	sameBytes(t, "topic_stats_table.json", ts.AppendJSON(nil))
}

func TestGolden_ConsumerConnection(t *testing.T) {
	cc := ConsumerConnection{
		ConnectionSet:    []Connection{{ClientID: "127.0.0.1@12345", ClientAddr: "127.0.0.1:54321", Language: LanguageJava, Version: 409}},
		ConsumeType:      "CONSUME_PASSIVELY",
		MessageModel:     "CLUSTERING",
		ConsumeFromWhere: "CONSUME_FROM_FIRST_OFFSET",
		SubscriptionTable: map[string]SubscriptionData{"TopicTest": {Topic: "TopicTest", SubString: "TagA || TagB",
			TagsSet: []string{"TagA", "TagB"}, CodeSet: []FlexInt32{2598919, 2598920}, SubVersion: 1700000000001, ExpressionType: "TAG"}},
	}
	sameBytes(t, "consumer_connection.json", cc.AppendJSON(nil))
	// A producer's connection set is the same Connection list without the group fields.
	pc := ProducerConnection{ConnectionSet: cc.ConnectionSet}
	want := string(golden(t, "consumer_connection.json"))
	want = want[:strings.Index(want, `,"consumeFromWhere"`)] + "}"
	if got := string(pc.AppendJSON(nil)); got != want {
		t.Fatalf("ProducerConnection:\n got %s\nwant %s", got, want)
	}
}

func TestGolden_ConsumerListByGroup(t *testing.T) {
	body := GetConsumerListByGroupResponseBody{ConsumerIDList: []string{"127.0.0.1@12345", "127.0.0.1@12346"}}
	sameBytes(t, "consumer_list_by_group.json", body.AppendJSON(nil))
}

func TestGolden_ResetOffsetBody(t *testing.T) {
	r := ResetOffsetBody{OffsetTable: []MessageQueueEntry[int64]{{mqA(1), 11}, {mqA(0), 10}}}
	sameBytes(t, "reset_offset_body.json", r.AppendJSON(nil))
	// ResetOffsetBodyForC: no Java golden (the C++ client's own class); its shape.
	want := `{"offsetTable":[{"brokerName":"broker-a","offset":11,"queueId":1,"topic":"TopicTest"},` +
		`{"brokerName":"broker-a","offset":10,"queueId":0,"topic":"TopicTest"}]}`
	if got := string(r.AppendJSONForC(nil)); got != want {
		t.Fatalf("ResetOffsetBodyForC:\n got %s\nwant %s", got, want)
	}
}

func TestGolden_ConsumerOffsetWrapper(t *testing.T) {
	w := ConsumerOffsetSerializeWrapper{OffsetTable: map[string]map[int32]int64{
		"TopicTest@ConsumerGroupA":             {0: 120, 1: 98, 2: 0, 3: 1},
		"%RETRY%ConsumerGroupA@ConsumerGroupA": {0: 0},
	}}
	sameJSON(t, "consumer_offset_wrapper.json", w.AppendJSON(nil))
	// The 4.9.7 broker's own GET_ALL_CONSUMER_OFFSET body.
	w = ConsumerOffsetSerializeWrapper{OffsetTable: map[string]map[int32]int64{
		"TopicTest@ConsumerGroupA":             {0: 100, 1: 101, 2: 102, 3: 103},
		"TopicTest@ConsumerGroupB":             {0: 7},
		"%RETRY%ConsumerGroupA@ConsumerGroupA": {0: 0},
	}}
	sameJSON(t, "config/get_all_consumer_offset.body.json", w.AppendJSON(nil))
}

func TestGolden_BrokerConfigBodies(t *testing.T) {
	d := DelayOffsetSerializeWrapper{OffsetTable: map[int]int64{18: 1, 3: 7, 1: 0, 2: 15}}
	sameBytes(t, "config/get_all_delay_offset.body.json", d.AppendJSON(nil))

	var sg SubscriptionGroupWrapper
	if err := UnmarshalBody(golden(t, "config/get_all_subscriptiongroup_config.body.json"), &sg); err != nil {
		t.Fatal(err)
	}
	if c := sg.SubscriptionGroupTable["ConsumerGroupA"]; c.GroupName != "ConsumerGroupA" || sg.DataVersion.Counter != 1 {
		t.Fatalf("decoded wrapper: %+v", sg)
	}
	sameJSON(t, "config/get_all_subscriptiongroup_config.body.json", sg.AppendJSON(nil))
}

// The admin bodies against the goldens BodyGoldens.java writes from the same values.
func TestBody_AdminGoldens(t *testing.T) {
	// QueueTimeSpan's *TimeStampStr fields are in the broker's zone; the golden was written in UTC
	local := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = local })
	sub := SubscriptionData{Topic: "T", SubString: "*", SubVersion: 1}
	cases := []struct {
		golden string
		got    []byte
	}{
		{"group_list.json", (&GroupList{GroupList: []string{"a", "b"}}).AppendJSON(nil)},
		{"group_list_empty.json", (&GroupList{}).AppendJSON(nil)},
		{"lock_batch_response_body_empty.json", (&LockBatchResponseBody{}).AppendJSON(nil)},
		{"broker_stats_data.json", (&BrokerStatsData{StatsMinute: BrokerStatsItem{Sum: 3, Tps: 0.05, Avgpt: 2}, StatsDay: BrokerStatsItem{Sum: 1}}).AppendJSON(nil)},
		{"consume_stats_list.json", (&ConsumeStatsList{BrokerAddr: "1.2.3.4:10911", TotalDiff: 5, ConsumeStatsList: []GroupConsumeStats{
			{Group: "G", Stats: []ConsumeStats{{OffsetTable: []MessageQueueEntry[OffsetWrapper]{{mqA(0), OffsetWrapper{BrokerOffset: 5}}}}}}, {Group: "H"}}}).AppendJSON(nil)},
		{"query_consume_time_span_body.json", (&QueryConsumeTimeSpanBody{ConsumeTimeSpanSet: []QueueTimeSpan{{MessageQueue: mqA(0), MinTimeStamp: 1, MaxTimeStamp: 2, ConsumeTimeStamp: 3, DelayTime: 4}}}).AppendJSON(nil)},
		{"query_correction_offset_body.json", (&QueryCorrectionOffsetBody{CorrectionOffsets: map[int32]int64{1: 9223372036854775807, 0: 4}}).AppendJSON(nil)},
		{"query_consume_queue_response_body.json", (&QueryConsumeQueueResponseBody{MaxQueueIndex: 2, MinQueueIndex: 0,
			QueueData: []ConsumeQueueData{{PhysicOffset: 0, PhysicSize: 100, TagsCode: 7}}}).AppendJSON(nil)},
		{"query_consume_queue_response_body_group.json", (&QueryConsumeQueueResponseBody{FilterData: "null", SubscriptionData: &sub, MaxQueueIndex: 1}).AppendJSON(nil)},
		{"producer_table_info.json", (&ProducerTableInfo{Data: map[string][]ProducerInfo{"PG": {{ClientID: "c", RemoteIP: "/1.2.3.4:5", Language: LanguageGo, Version: 409, LastUpdateTimestamp: 7}}, "A": {}}}).AppendJSON(nil)},
		{"offset_moved_event.json", (&OffsetMovedEvent{ConsumerGroup: "G", MessageQueue: mqA(2), OffsetRequest: 10, OffsetNew: 3}).AppendJSON(nil)},
		{"get_consumer_status_body.json", (&GetConsumerStatusBody{ConsumerTable: []ClientQueueOffsets{{ClientID: "c1", Table: []MessageQueueEntry[int64]{{mqA(0), 5}}}, {ClientID: "c2"}}}).AppendJSON(nil)},
	}
	for _, c := range cases {
		if want := string(golden(t, c.golden)); string(c.got) != want {
			t.Errorf("%s:\n got %s\nwant %s", c.golden, c.got, want)
		}
	}
}

func TestDecodeGetConsumerStatusBody_SortsFastjsonKeys(t *testing.T) {
	body := `{"messageQueueTable":{{"brokerName":"broker-b","queueId":0,"topic":"TopicTest"}:7,` +
		`{"brokerName":"broker-a","queueId":1,"topic":"TopicTest"}:11,{"brokerName":"broker-a","queueId":0,"topic":"TopicTest"}:10}}`
	got, err := DecodeGetConsumerStatusBody([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []MessageQueueEntry[int64]{{mqA(0), 10}, {mqA(1), 11}, {mqB(0), 7}}
	if len(got.MessageQueueTable) != len(want) {
		t.Fatalf("table: %+v", got.MessageQueueTable)
	}
	for i := range want {
		if got.MessageQueueTable[i] != want[i] {
			t.Fatalf("entry %d: %+v want %+v", i, got.MessageQueueTable[i], want[i])
		}
	}
	if _, err := DecodeGetConsumerStatusBody([]byte(`{"messageQueueTable":{"x":1}}`)); err == nil {
		t.Fatal("bad key accepted")
	}
}

func TestDecodeLockBatchRequestBody(t *testing.T) {
	b, err := DecodeLockBatchRequestBody([]byte(`{"clientId":"c","consumerGroup":"G","mqSet":[{"brokerName":"broker-a","queueId":1,"topic":"TopicTest"}],"onlyThisBroker":false}`))
	if err != nil || b.ClientID != "c" || b.ConsumerGroup != "G" || len(b.MqSet) != 1 || b.MqSet[0] != mqA(1) {
		t.Fatalf("%+v %v", b, err)
	}
	if _, err := DecodeLockBatchRequestBody([]byte(`{"mqSet":`)); err == nil {
		t.Fatal("truncated body accepted")
	}
}
