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
			o.conns, o.window, o.total, o.timeout, o.serialize = 1, w, int64(b.N), 10*time.Second, "json"
			if err := o.check(); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(1024)
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
