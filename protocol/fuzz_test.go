package protocol

import (
	"testing"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// FuzzDecodeRegisterBrokerBody feeds both REGISTER_BROKER body forms to the decoder: it
// must never panic, and what decodes must survive an encode/decode round trip.
// Seeds: Java's JSON body and Java's zlib body (testdata/golden); issue 13's hostile zlib
// body scaled down (64 Ki topics announced, then 256 KiB of zeros: refused at the first,
// empty, entry; the 8 MB original is TestDecodeRegisterBrokerBody_AnnouncedCountAllocatesNothing's,
// too big for the fuzzer's minimizer); two well-formed entries and a filter server list.
func FuzzDecodeRegisterBrokerBody(f *testing.F) {
	for _, name := range []string{"register_broker_body.json", "register_broker_body.zlib.bin"} {
		f.Add(mustGolden(f, name), name == "register_broker_body.zlib.bin")
	}
	f.Add(rawRegisterBody(f, 64<<10, make([]byte, 256<<10)), true)
	f.Add(rawRegisterBody(f, 2, entries("a 1 2 6 SINGLE_TAG", "b 8 8 7 MULTI_TAG", `["1.2.3.4:1"]`)), true)
	f.Fuzz(func(t *testing.T, data []byte, compressed bool) {
		b, err := DecodeRegisterBrokerBody(data, compressed)
		if err != nil {
			return
		}
		back, err := DecodeRegisterBrokerBody(b.AppendJSON(nil), false)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if len(back.TopicConfigSerializeWrapper.TopicConfigTable) != len(b.TopicConfigSerializeWrapper.TopicConfigTable) {
			t.Fatal("topic count changed")
		}
	})
}

// FuzzDecodeBodies decodes arbitrary bytes as the JSON bodies the servers read (route,
// cluster info, topic list, KV table, heartbeat) through the fastjson normalizer; nothing
// may panic and a decoded route re-encodes to something that decodes again.
// Seeds: Java's route (fastjson form), cluster info, heartbeat and KV table.
func FuzzDecodeBodies(f *testing.F) {
	for _, name := range []string{"topic_route_data.json", "cluster_info.json", "heartbeat_data.json", "kv_table.json", "topic_list.json"} {
		f.Add(mustGolden(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		std, err := compat.NormalizeJSON(data)
		if err != nil {
			return
		}
		var r TopicRouteData
		if UnmarshalBody(std, &r) == nil {
			var back TopicRouteData
			std2, err := compat.NormalizeJSON(r.AppendJSON(nil, false))
			if err != nil || UnmarshalBody(std2, &back) != nil || len(back.BrokerDatas) != len(r.BrokerDatas) {
				t.Fatalf("route round trip: %v", err)
			}
		}
		var ci ClusterInfo
		_ = UnmarshalBody(std, &ci)
		var tl TopicList
		_ = UnmarshalBody(std, &tl)
		var kv KVTable
		_ = UnmarshalBody(std, &kv)
		var hb HeartbeatData
		_ = UnmarshalBody(std, &hb)
	})
}

func mustGolden(f *testing.F, name string) []byte {
	b, err := readGolden(name)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
