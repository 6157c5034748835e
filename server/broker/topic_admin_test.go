package broker

import (
	"runtime"
	"strings"
	"testing"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
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
	return protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: meta.TopicAutoCreate, ReadQueueNums: read, WriteQueueNums: write,
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
