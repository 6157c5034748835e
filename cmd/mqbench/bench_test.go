package main

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkNullBroker_Send1KiB measures 1 KiB SEND_MESSAGE_V2 round trips through the
// in-process null broker on loopback, one connection, at 1, 8 and 64 requests in flight.
// b.N is the number of messages; msgs/s and the latency percentiles come from the run.
// Client and server share the process (and this machine's cores): the mqbench binary
// against a separate nullbroker process is the figure for docs/benchmarks.md.
func BenchmarkNullBroker_Send1KiB(b *testing.B) {
	nb := startNull(b)
	for _, w := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("w=%d", w), func(b *testing.B) {
			o := produceOpts{broker: nb.Addr(), topic: "BenchmarkTest", group: "benchmark_producer", size: 1024,
				queues: 4, kind: "async", code: 310, tags: "TagA", heartbeat: true}
			o.conns, o.window, o.total, o.timeout, o.serialize, o.hbEvery = 1, w, int64(b.N), 10*time.Second, "json", heartbeatInterval
			if err := o.check(); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(1024)
			b.ReportAllocs()
			b.ResetTimer()
			res, err := o.load(context.Background(), o.spec(), 0)
			if err != nil {
				b.Fatal(err)
			}
			if res.ErrorCount != 0 || res.Messages != int64(b.N) {
				b.Fatalf("%d messages of %d, %d errors", res.Messages, b.N, res.ErrorCount)
			}
			b.ReportMetric(res.MsgsPerSec, "msgs/s")
			if res.Latency != nil {
				b.ReportMetric(res.Latency.P50*1000, "p50-µs")
				b.ReportMetric(res.Latency.P99*1000, "p99-µs")
			}
		})
	}
}

// BenchmarkBroker_Send1KiB is BenchmarkNullBroker_Send1KiB against a Skyrocket broker
// (server.Start, ASYNC_FLUSH, 64 MiB CommitLog files) in this process, 4 queues, 64 in
// flight on one connection. allocs/op counts every allocation in the process per message:
// the client's (the null broker benchmark at w=64 shows them) and the broker's whole send
// path (remoting, send handler, store append, dispatch), so the difference between the two
// is the broker's allocations per 1 KiB send.
func BenchmarkBroker_Send1KiB(b *testing.B) {
	addr := startBroker(b)
	o := produceOpts{broker: addr, topic: "BenchTopic", group: "benchmark_producer", size: 1024,
		queues: 4, kind: "async", code: 310, tags: "TagA", heartbeat: true}
	o.conns, o.window, o.total, o.timeout, o.serialize, o.hbEvery = 1, 64, 1000, 10*time.Second, "json", heartbeatInterval
	if err := o.check(); err != nil {
		b.Fatal(err)
	}
	if _, err := o.load(context.Background(), o.spec(), 0); err != nil { // warm: topic, queues, files
		b.Fatal(err)
	}
	o.total = int64(b.N)
	b.SetBytes(1024)
	b.ReportAllocs()
	b.ResetTimer()
	res, err := o.load(context.Background(), o.spec(), 0)
	if err != nil {
		b.Fatal(err)
	}
	if res.ErrorCount != 0 || res.Messages != int64(b.N) {
		b.Fatalf("%d messages of %d, %d errors", res.Messages, b.N, res.ErrorCount)
	}
	b.ReportMetric(res.MsgsPerSec, "msgs/s")
}

// BenchmarkBrokerPair_Send1KiB is BenchmarkBroker_Send1KiB against a master and its slave
// in this process (ASYNC_FLUSH; the slave follows haMasterAddress): each send is answered
// once the slave has acknowledged it under SYNC_MASTER, at once under ASYNC_MASTER.
// allocs/op counts the client, both brokers' send, replication and dispatch paths
// per message; the difference from BenchmarkBroker_Send1KiB is what replication adds.
func BenchmarkBrokerPair_Send1KiB(b *testing.B) {
	for _, role := range []string{"SYNC_MASTER", "ASYNC_MASTER"} {
		b.Run(role, func(b *testing.B) {
			master := startHABroker(b, role, 0, "")
			var port int
			if _, err := fmt.Sscanf(master, "127.0.0.1:%d", &port); err != nil {
				b.Fatal(err)
			}
			slave := startHABroker(b, "SLAVE", 1, fmt.Sprintf("127.0.0.1:%d", port+1))
			o := produceOpts{broker: master, topic: "BenchTopic", group: "benchmark_producer", size: 1024,
				queues: 4, kind: "async", code: 310, tags: "TagA", heartbeat: true}
			o.conns, o.window, o.total, o.timeout, o.serialize, o.hbEvery = 1, 64, 1000, 10*time.Second, "json", heartbeatInterval
			o.pair.slave, o.pair.lagEvery = slave, 100*time.Millisecond
			if err := o.check(); err != nil {
				b.Fatal(err)
			}
			// Warm: topic, queues, files, and the slave connected and caught up.
			pr, err := o.watchSlave(context.Background(), master, nil, time.Now(), 30*time.Second)
			if err != nil {
				b.Fatal(err)
			}
			pr.close()
			if _, err := o.load(context.Background(), o.spec(), 0); err != nil {
				b.Fatal(err)
			}
			o.total = int64(b.N)
			b.SetBytes(1024)
			b.ReportAllocs()
			b.ResetTimer()
			res, err := o.load(context.Background(), o.spec(), 0)
			if err != nil {
				b.Fatal(err)
			}
			if res.ErrorCount != 0 || res.Messages != int64(b.N) {
				b.Fatalf("%d messages of %d, %d errors %v", res.Messages, b.N, res.ErrorCount, res.Errors)
			}
			b.ReportMetric(res.MsgsPerSec, "msgs/s")
		})
	}
}
