package broker

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// allocDuring returns the bytes allocated while fn runs (runtime.MemStats.TotalAlloc).
func allocDuring(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// callFromConn is call with a connection in the context (the handler logs its address).
func callFromConn(t *testing.T, h remoting.Handler, code protocol.RequestCode, hdr interface{ Encode(*protocol.Ext) }) *protocol.Command {
	t.Helper()
	req := protocol.NewRequest(code)
	hdr.Encode(&req.Ext)
	resp, err := h(&remoting.Context{Conn: &remoting.Conn{}}, req)
	if pe, ok := err.(*protocol.Error); ok {
		return protocol.NewResponse(req, pe.Code, pe.Remark)
	} else if err != nil {
		t.Fatalf("%v: %v", code, err)
	}
	return resp
}

func createTopicHeader(topic string, read, write int32) protocol.CreateTopicRequestHeader {
	return protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: TopicAutoCreate, ReadQueueNums: read, WriteQueueNums: write,
		Perm: protocol.PermRead | protocol.PermWrite, TopicFilterType: "SINGLE_TAG"}
}

func TestBroker_UpdateAndCreateTopic_QueueCountAboveTheLimitIsRefused(t *testing.T) {
	b := newTestBroker(t, nil)
	for _, q := range [][2]int32{{5_000_000, 8}, {8, 5_000_000}, {1<<31 - 1, 1<<31 - 1}, {protocol.MaxQueueNums + 1, 1}} {
		h := createTopicHeader("Huge", q[0], q[1])
		resp := callFromConn(t, b.updateAndCreateTopic, protocol.CodeUpdateAndCreateTopic, &h)
		if resp.ResponseCode() != protocol.ResSystemError || !strings.Contains(resp.Remark, "at most 65536 queues per topic") {
			t.Fatalf("%v queues: %v %q, want SYSTEM_ERROR naming the limit", q, resp.ResponseCode(), resp.Remark)
		}
		if _, ok := b.topics.Get("Huge"); ok {
			t.Fatalf("%v queues: topic created", q)
		}
	}
	var resp *protocol.Command
	h := protocol.GetTopicStatsInfoRequestHeader{Topic: "Huge"}
	alloc := allocDuring(func() { resp = call(t, b.getTopicStatsInfo, protocol.CodeGetTopicStatsInfo, &h, nil) })
	if resp.ResponseCode() != protocol.ResTopicNotExist || alloc > 1<<20 {
		t.Fatalf("stats of the refused topic: %v %q, %d bytes allocated", resp.ResponseCode(), resp.Remark, alloc)
	}

	// The limit itself is accepted, and the per-queue answer stays proportional to it.
	max := createTopicHeader("Widest", protocol.MaxQueueNums, protocol.MaxQueueNums)
	if resp := callFromConn(t, b.updateAndCreateTopic, protocol.CodeUpdateAndCreateTopic, &max); resp.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("%d queues: %v %q", protocol.MaxQueueNums, resp.ResponseCode(), resp.Remark)
	}
	h = protocol.GetTopicStatsInfoRequestHeader{Topic: "Widest"}
	alloc = allocDuring(func() { resp = call(t, b.getTopicStatsInfo, protocol.CodeGetTopicStatsInfo, &h, nil) })
	if resp.ResponseCode() != protocol.ResSuccess || strings.Count(string(resp.Body), `"maxOffset"`) != protocol.MaxQueueNums {
		t.Fatalf("stats of %d queues: %v %q", protocol.MaxQueueNums, resp.ResponseCode(), resp.Remark)
	}
	if alloc > 64<<20 {
		t.Fatalf("stats of %d queues allocated %d MiB", protocol.MaxQueueNums, alloc>>20)
	}
}

func TestTopicManager_QueueCountsAreBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "topics.json")
	// topics.json as a Java broker that accepted 5,000,000 queues writes it.
	stored := `{"dataVersion":{"counter":3,"timestamp":1700000000000},"topicConfigTable":{` +
		`"Huge":{"order":false,"perm":6,"readQueueNums":5000000,"topicFilterType":"SINGLE_TAG","topicName":"Huge","topicSysFlag":0,"writeQueueNums":2147483647},` +
		`"Fine":{"order":false,"perm":6,"readQueueNums":8,"topicFilterType":"SINGLE_TAG","topicName":"Fine","topicSysFlag":0,"writeQueueNums":8}}}`
	if err := os.WriteFile(path, []byte(stored), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := NewTopicManager(TopicOptions{Path: path, ClusterName: "c", BrokerName: "b", AutoCreateTopicEnable: true,
		DefaultTopicQueueNums: 1<<31 - 1}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for name, want := range map[string]int32{"Huge": protocol.MaxQueueNums, "Fine": 8, TopicAutoCreate: protocol.MaxQueueNums} {
		if tc, _ := m.Get(name); tc.ReadQueueNums != want || tc.WriteQueueNums != want {
			t.Errorf("%s: %d/%d queues, want %d", name, tc.ReadQueueNums, tc.WriteQueueNums, want)
		}
	}
	// A send's defaultTopicQueueNums (Java: min with the default topic's write queues).
	if tc, _ := m.CreateInSend("Sent", TopicAutoCreate, "1.2.3.4:5", 1<<31-1, 0); tc == nil || tc.WriteQueueNums != protocol.MaxQueueNums {
		t.Fatalf("auto-created %+v", tc)
	}
	if tc, _ := m.CreateInSend("SentFew", TopicAutoCreate, "1.2.3.4:5", 4, 0); tc == nil || tc.WriteQueueNums != 4 {
		t.Fatalf("auto-created %+v", tc)
	}
	// A retry group's retryQueueNums.
	if tc, _ := m.CreateIfAbsent("%RETRY%G", 5_000_000, protocol.PermRead|protocol.PermWrite, 0); tc.ReadQueueNums != protocol.MaxQueueNums {
		t.Fatalf("retry topic %+v", tc)
	}
}
