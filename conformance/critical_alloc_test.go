package conformance

// Issue 13, requests that made a server allocate without bound, sent over the raw wire to
// servers in this process (so runtime.MemStats sees their allocations):
//
//   - REGISTER_BROKER (103) with an 8 KB zlib body announcing 8,000,000 topics followed by
//     zeros: the NameServer pre-sized a map by the count (+1.3 GiB). Java stops at the
//     first (empty) topic entry: RegisterBrokerBody#decode → TopicConfig#decode leaves a
//     null name → ConcurrentHashMap#put throws → "Failed to decode RegisterBrokerBody".
//   - UPDATE_AND_CREATE_TOPIC (17) with 5,000,000 queues, then GET_TOPIC_STATS_INFO (202):
//     a 639 MB answer built in memory. Java 4.9.8 accepts the topic and answers the stats
//     with SYSTEM_ERROR "java.lang.OutOfMemoryError: Java heap space" (a 158-byte frame, at
//     -Xmx1g: findConsumeQueue creates a ConsumeQueue per queue). Skyrocket refuses the
//     topic (protocol.MaxQueueNums, conformance/UNSUPPORTED.md), so the stats answer
//     TOPIC_NOT_EXIST.

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
)

// allocatedBy returns what the process allocated while fn ran (MemStats.TotalAlloc).
func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// hostileRegisterBody is the compressed form of RegisterBrokerBody announcing 8,000,000
// topic entries, each of them an empty block (8 MB of zeros).
func hostileRegisterBody(t *testing.T) []byte {
	t.Helper()
	var raw bytes.Buffer
	dv := []byte(`{"counter":1,"timestamp":1700000000000}`)
	_ = binary.Write(&raw, binary.BigEndian, int32(len(dv)))
	raw.Write(dv)
	_ = binary.Write(&raw, binary.BigEndian, int32(8_000_000))
	raw.Write(make([]byte, 8<<20))
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	_, _ = zw.Write(raw.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

func TestCritical_RegisterBroker_AnnouncedTopicCountAllocatesNothing(t *testing.T) {
	ns := startNamesrv(t, namesrv.Options{})
	w := newWire(t, ns.Addr())
	body := hostileRegisterBody(t)
	h := protocol.RegisterBrokerRequestHeader{ClusterName: "DefaultCluster", BrokerName: "broker-x", BrokerAddr: "127.0.0.1:10911",
		HaServerAddr: "127.0.0.1:10912", Compressed: true, BodyCrc32: compat.CRC32(body)}

	var resp *protocol.Command
	alloc := allocatedBy(func() { resp = w.call(protocol.CodeRegisterBroker, &h, body) })
	if resp.ResponseCode() != protocol.ResSystemError ||
		resp.Remark != "org.apache.rocketmq.remoting.exception.RemotingCommandException: Failed to decode RegisterBrokerBody" {
		t.Fatalf("answer %v %q, want Java's SYSTEM_ERROR Failed to decode RegisterBrokerBody", resp.ResponseCode(), resp.Remark)
	}
	if alloc > 24<<20 {
		t.Fatalf("a %d-byte REGISTER_BROKER made the NameServer process allocate %d MiB, want < 24 MiB", len(body), alloc>>20)
	}

	// Still serving: a real registration goes through and routes.
	good := &protocol.RegisterBrokerBody{FilterServerList: []string{}}
	tc := protocol.NewTopicConfig("AfterHostile")
	good.TopicConfigSerializeWrapper.TopicConfigTable = map[string]protocol.TopicConfig{tc.TopicName: tc}
	good.TopicConfigSerializeWrapper.DataVersion = protocol.DataVersion{Timestamp: 1700000000000, Counter: 1}
	z, err := good.EncodeCompressed()
	if err != nil {
		t.Fatal(err)
	}
	h.BodyCrc32 = compat.CRC32(z)
	if resp := w.call(protocol.CodeRegisterBroker, &h, z); resp.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("registration after the hostile one: %v %q", resp.ResponseCode(), resp.Remark)
	}
	route := w.call(protocol.CodeGetRouteinfoByTopic, &protocol.GetRouteInfoRequestHeader{Topic: "AfterHostile"}, nil)
	if route.ResponseCode() != protocol.ResSuccess || !strings.Contains(string(route.Body), `"brokerName":"broker-x"`) {
		t.Fatalf("route after the hostile registration: %v %q %s", route.ResponseCode(), route.Remark, route.Body)
	}
}

func TestCritical_TopicOfMillionsOfQueues_IsRefusedAndStatsStayBounded(t *testing.T) {
	c := startCluster(t, nil)
	w := newWire(t, c.opts.ListenAddr)
	create := func(topic string, queues int32) *protocol.Command {
		return w.call(protocol.CodeUpdateAndCreateTopic, &protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102",
			ReadQueueNums: queues, WriteQueueNums: queues, Perm: protocol.PermRead | protocol.PermWrite, TopicFilterType: "SINGLE_TAG"}, nil)
	}

	var created, stats *protocol.Command
	alloc := allocatedBy(func() {
		created = create("HugeTopic", 5_000_000)
		stats = w.call(protocol.CodeGetTopicStatsInfo, &protocol.GetTopicStatsInfoRequestHeader{Topic: "HugeTopic"}, nil)
	})
	if created.ResponseCode() != protocol.ResSystemError ||
		created.Remark != "The topic[HugeTopic] asks for 5000000 read and 5000000 write queues; this broker allows at most 65536 queues per topic." {
		t.Fatalf("create with 5,000,000 queues: %v %q, want SYSTEM_ERROR naming the limit", created.ResponseCode(), created.Remark)
	}
	if stats.ResponseCode() != protocol.ResTopicNotExist || stats.Remark != "topic[HugeTopic] not exist" || len(stats.Body) != 0 {
		t.Fatalf("stats of the refused topic: %v %q (%d body bytes)", stats.ResponseCode(), stats.Remark, len(stats.Body))
	}
	if alloc > 24<<20 {
		t.Fatalf("create + stats of a 5,000,000-queue topic allocated %d MiB in process, want < 24 MiB", alloc>>20)
	}

	// Still serving: an ordinary topic is created and its stats list its queues.
	if resp := create("SmallTopic", 8); resp.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("create SmallTopic: %v %q", resp.ResponseCode(), resp.Remark)
	}
	small := w.call(protocol.CodeGetTopicStatsInfo, &protocol.GetTopicStatsInfoRequestHeader{Topic: "SmallTopic"}, nil)
	if small.ResponseCode() != protocol.ResSuccess || strings.Count(string(small.Body), `"minOffset"`) != 8 {
		t.Fatalf("stats of SmallTopic: %v %q %s", small.ResponseCode(), small.Remark, small.Body)
	}
}
