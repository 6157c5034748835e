package namesrv

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// BenchmarkRouteQuery_Topics: GET_ROUTEINFO_BY_TOPIC answered from a NameServer holding
// 10 or 100,000 topics, each on 4 brokers (issue 12's bar: the 100k rate keeps ≥ 90 % of
// the 10-topic rate). Queries cycle over 1,000 of the topics (all of them for 10); the 4
// brokers re-register (unchanged: their 30 s heartbeat) every 10,000 queries. It reports
// the route table's heap after building (MiB). A registration whose topics changed is
// BenchmarkRegister_ChangedTopics.
//
//	go test -run '^$' -bench RouteQuery_Topics -benchmem ./server/namesrv/
func BenchmarkRouteQuery_Topics(b *testing.B) {
	for _, n := range []int{10, 100_000} {
		b.Run(fmt.Sprintf("topics=%d", n), func(b *testing.B) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			s := &Server{log: zerolog.Nop(), routes: NewRouteTable(zerolog.Nop())}
			s.kv, _ = OpenKVStore("", zerolog.Nop())
			w := protocol.TopicConfigSerializeWrapper{TopicConfigTable: map[string]protocol.TopicConfig{}}
			for i := 0; i < n; i++ {
				name := fmt.Sprintf("ScaleTopic_orders_eu_west_%06d", i)
				w.TopicConfigTable[name] = protocol.TopicConfig{TopicName: name, ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: "SINGLE_TAG"}
			}
			register := func(version int64) {
				for br := 0; br < 4; br++ {
					w.DataVersion = protocol.DataVersion{Counter: version, Timestamp: version}
					s.routes.Register("DefaultCluster", fmt.Sprintf("127.0.0.%d:10911", br+1), fmt.Sprintf("broker-%d", br), 0, "", &w, nil, nil)
				}
			}
			register(1)
			runtime.GC()
			runtime.ReadMemStats(&after)
			topics := make([]string, min(n, 1000))
			for i := range topics {
				topics[i] = fmt.Sprintf("ScaleTopic_orders_eu_west_%06d", i*(n/len(topics)))
			}
			req := protocol.NewRequest(protocol.CodeGetRouteinfoByTopic)
			req.Version = int32(protocol.VersionV4_9_4)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%10_000 == 9_999 {
					register(1) // a heartbeat of the 4 brokers, nothing changed
				}
				req.Ext = req.Ext[:0]
				req.Ext.Set("topic", topics[i%len(topics)])
				resp, err := s.getRouteInfoByTopic(nil, req)
				if err != nil || resp.Code != 0 {
					b.Fatalf("%v %v", resp, err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "tableMiB")
		})
	}
}

// BenchmarkRegister_ChangedTopics: one broker's registration whose dataVersion changed
// (a topic was created or updated on it), so the NameServer takes every topic of it again
// (Java: RouteInfoManager#registerBroker), with 10 or 100,000 topics.
func BenchmarkRegister_ChangedTopics(b *testing.B) {
	for _, n := range []int{10, 100_000} {
		b.Run(fmt.Sprintf("topics=%d", n), func(b *testing.B) {
			t := NewRouteTable(zerolog.Nop())
			w := protocol.TopicConfigSerializeWrapper{TopicConfigTable: map[string]protocol.TopicConfig{}}
			for i := 0; i < n; i++ {
				name := fmt.Sprintf("ScaleTopic_orders_eu_west_%06d", i)
				w.TopicConfigTable[name] = protocol.TopicConfig{TopicName: name, ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: "SINGLE_TAG"}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w.DataVersion = protocol.DataVersion{Counter: int64(i + 1), Timestamp: int64(i + 1)}
				t.Register("DefaultCluster", "127.0.0.1:10911", "broker-a", 0, "", &w, nil, nil)
			}
		})
	}
}
