package namesrv

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"runtime"
	"strings"
	"testing"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// hostileRegisterBody is issue 13's body: ~8 KB of zlib announcing 8,000,000 topics,
// followed by 8 MB of zeros.
func hostileRegisterBody(t *testing.T) []byte {
	t.Helper()
	var raw bytes.Buffer
	dv := []byte(`{"counter":1,"timestamp":1700000000000}`)
	_ = binary.Write(&raw, binary.BigEndian, int32(len(dv)))
	raw.Write(dv)
	_ = binary.Write(&raw, binary.BigEndian, int32(8_000_000))
	raw.Write(make([]byte, 8<<20))
	var out bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&out, zlib.BestCompression)
	_, _ = zw.Write(raw.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestNamesrv_RegisterBroker_HostileCountIsRefusedWithoutAllocating(t *testing.T) {
	s := start(t, Options{})
	p := newPeer(t, s)
	req := protocol.NewRequest(protocol.CodeRegisterBroker)
	req.Body = hostileRegisterBody(t)
	h := protocol.RegisterBrokerRequestHeader{BrokerName: "broker-x", BrokerAddr: "10.0.0.9:10911", ClusterName: "c1",
		Compressed: true, BodyCrc32: compat.CRC32(req.Body)}
	h.Encode(&req.Ext)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp := p.call(req)
	runtime.ReadMemStats(&after)
	if resp.ResponseCode() != protocol.ResSystemError || !strings.Contains(resp.Remark, "Failed to decode RegisterBrokerBody") {
		t.Fatalf("answer %v %q, want SYSTEM_ERROR ... Failed to decode RegisterBrokerBody", resp.ResponseCode(), resp.Remark)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 16<<20 {
		t.Fatalf("a %d-byte REGISTER_BROKER allocated %d MiB, want < 16 MiB", len(req.Body), d>>20)
	}
	if got := s.routes.Topics(); len(got) != 0 {
		t.Fatalf("refused registration left topics %v", got)
	}
}

func TestNamesrv_RegisterBroker_QueueCountsAboveTheLimitAreLowered(t *testing.T) {
	s := start(t, Options{})
	p := newPeer(t, s)
	big := protocol.NewTopicConfig("Big")
	big.ReadQueueNums, big.WriteQueueNums = 5_000_000, 1<<31-1
	small := protocol.NewTopicConfig("Small")
	for i, compressed := range []bool{false, true} {
		dv := protocol.DataVersion{Timestamp: 1700000000000, Counter: int64(i + 1)}
		if r := p.register("c1", "broker-a", "10.0.0.1:10911", 0, topicsBody(dv, big, small), compressed); r.ResponseCode() != protocol.ResSuccess {
			t.Fatalf("register: %v %q", r.ResponseCode(), r.Remark)
		}
		var rd protocol.TopicRouteData
		if err := protocol.UnmarshalBody(p.route("Big", protocol.VersionV4_9_8).Body, &rd); err != nil || len(rd.QueueDatas) != 1 {
			t.Fatalf("route: %v %+v", err, rd)
		}
		if q := rd.QueueDatas[0]; q.ReadQueueNums != protocol.MaxQueueNums || q.WriteQueueNums != protocol.MaxQueueNums {
			t.Fatalf("compressed=%v: queues %d/%d, want both lowered to %d", compressed, q.ReadQueueNums, q.WriteQueueNums, protocol.MaxQueueNums)
		}
		if err := protocol.UnmarshalBody(p.route("Small", protocol.VersionV4_9_8).Body, &rd); err != nil || rd.QueueDatas[0].WriteQueueNums != 16 {
			t.Fatalf("small topic: %v %+v", err, rd)
		}
	}
}
