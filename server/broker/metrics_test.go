package broker

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/metrics"
	"github.com/skyrocket-mq/skyrocket/store"
)

// scrapeBroker builds a broker with topics topics of 8 queues (one message in queue 0
// of every 20th) and groups groups, each with offsets on topics/groups topics, and a registry
// over it.
func scrapeBroker(tb testing.TB, topics, groups int) (*Broker, *prometheus.Registry) {
	tb.Helper()
	b := newTestBroker(tb, nil)
	w := b.topics.Wrapper()
	for i := 0; i < topics; i++ {
		name := fmt.Sprintf("BenchTopic-%05d", i)
		w.TopicConfigTable[name] = protocol.TopicConfig{TopicName: name, ReadQueueNums: 8, WriteQueueNums: 8, Perm: 6}
	}
	w.DataVersion.Counter++
	b.topics.ReplaceIfNewer(w)
	for i := 0; i < topics; i += 20 { // a ConsumeQueue file per message: keep the setup short
		putPlain(tb, b.store, fmt.Sprintf("BenchTopic-%05d", i), 0, "m", 0)
	}
	waitFor(tb, 60*time.Second, "dispatch", func() bool { return b.store.DispatchBehindBytes() == 0 })
	per := topics / groups
	for g := 0; g < groups; g++ {
		group := fmt.Sprintf("BenchGroup-%03d", g)
		b.subs.Update(protocol.SubscriptionGroupConfig{GroupName: group, ConsumeEnable: true, RetryQueueNums: 1, RetryMaxTimes: 16})
		for k := 0; k < per; k++ {
			topic := fmt.Sprintf("BenchTopic-%05d", g*per+k)
			for q := int32(0); q < 8; q++ {
				b.offsets.Commit(group, topic, q, 0)
			}
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewBrokerCollector(b), b.Figures())
	return b, reg
}

// scrapeOnce gathers and writes the text format, as promhttp does for a scrape.
func scrapeOnce(tb testing.TB, reg *prometheus.Registry) int {
	mfs, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	enc := expfmt.NewEncoder(io.Discard, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		n += len(mf.Metric)
		if err := enc.Encode(mf); err != nil {
			tb.Fatal(err)
		}
	}
	return n
}

// BenchmarkBroker_Scrape_10kTopics_100Groups: one /metrics scrape of 10,000 topics of 8
// queues and 100 groups consuming 100 topics each (10,000 topic×group pairs).
func BenchmarkBroker_Scrape_10kTopics_100Groups(b *testing.B) {
	_, reg := scrapeBroker(b, 10000, 100)
	b.ReportAllocs()
	b.ResetTimer()
	var series int
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		series = scrapeOnce(b, reg)
	}
	b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(series), "series")
}

// cpuTime is the process's user + system CPU time: on a shared, loaded machine the
// wall time of a scrape says more about the other processes than about the scrape.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestBroker_Scrape_10kTopics_CostBounded: a scrape of 10,000 topics × 100 groups takes
// under 1 s of CPU (wall time is logged: on a loaded machine it measures the load), and
// its allocations grow with the series it serves (per series bytes at
// 10,000 topics no more than 1.5× those at 1,000), not with anything it keeps.
func TestBroker_Scrape_10kTopics_CostBounded(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds 10,000 topics; CPU time under the race detector is not the scrape's")
	}
	perSeries := func(topics, groups int) (cpu, wall time.Duration, bytes float64, series int) {
		_, reg := scrapeBroker(t, topics, groups)
		scrapeOnce(t, reg) // warm
		cpu, wall = time.Hour, time.Hour
		for i := 0; i < 3; i++ {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			start, c0 := time.Now(), cpuTime()
			series = scrapeOnce(t, reg)
			cpu, wall = min(cpu, cpuTime()-c0), min(wall, time.Since(start))
			runtime.ReadMemStats(&m1)
			bytes = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(series)
		}
		return cpu, wall, bytes, series
	}
	cSmall, wSmall, bSmall, nSmall := perSeries(1000, 10)
	cBig, wBig, bBig, nBig := perSeries(10000, 100)
	t.Logf("1,000 topics × 10 groups: %d series, cpu %v (wall %v), %.0f B/series; 10,000 × 100: %d series, cpu %v (wall %v), %.0f B/series",
		nSmall, cSmall, wSmall, bSmall, nBig, cBig, wBig, bBig)
	if cBig > time.Second {
		t.Errorf("scrape of 10,000 topics × 100 groups took %v of CPU (best of 3), want < 1 s", cBig)
	}
	if bBig > 1.5*bSmall {
		t.Errorf("allocation per series grows: %.0f B at 10k topics vs %.0f B at 1k", bBig, bSmall)
	}
}

func seriesWith(t *testing.T, reg *prometheus.Registry, family, label, value string) bool {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != family {
			continue
		}
		for _, m := range mf.Metric {
			for _, lp := range m.Label {
				if lp.GetName() == label && lp.GetValue() == value {
					return true
				}
			}
		}
	}
	return false
}

// TestBroker_Metrics_DeletedGroupGoneAndNothingAfterShutdown: a group deleted with its
// offsets (DELETE_SUBSCRIPTIONGROUP, removeOffset) is absent from the next scrape; a
// scrape after Shutdown reads nothing of the closed store and serves no broker series.
func TestBroker_Metrics_DeletedGroupGoneAndNothingAfterShutdown(t *testing.T) {
	b := newTestBroker(t, nil)
	b.topics.Update(protocol.TopicConfig{TopicName: "MT", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6})
	b.subs.Update(protocol.SubscriptionGroupConfig{GroupName: "MG", ConsumeEnable: true, RetryQueueNums: 1, RetryMaxTimes: 16})
	putPlain(t, b.store, "MT", 1, "m", 0)
	b.offsets.Commit("MG", "MT", 1, 0)
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewBrokerCollector(b))
	if !seriesWith(t, reg, "rocketmq_consumer_offset", "group", "MG") || !seriesWith(t, reg, "rocketmq_producer_offset", "topic", "MT") {
		t.Fatal("group MG / topic MT not served")
	}
	if r := call(t, b.deleteSubscriptionGroup, protocol.CodeDeleteSubscriptiongroup,
		&protocol.DeleteSubscriptionGroupRequestHeader{GroupName: "MG", RemoveOffset: true}, nil); r.Code != 0 {
		t.Fatalf("delete group: %d %s", r.Code, r.Remark)
	}
	for _, fam := range []string{"rocketmq_consumer_offset", "rocketmq_group_diff", "rocketmq_group_count", "rocketmq_consumer_tps"} {
		if seriesWith(t, reg, fam, "group", "MG") {
			t.Errorf("%s still has the deleted group", fam)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if n := scrapeOnce(t, reg); n != 0 {
		t.Errorf("%d series after Shutdown", n)
	}
}

// TestBroker_Metrics_CommitLogFlushTimed: a SYNC_FLUSH broker times its group commits in
// skyrocket_store_commitlog_flush_seconds, one sample per flush that wrote something.
func TestBroker_Metrics_CommitLogFlushTimed(t *testing.T) {
	b := newTestBroker(t, func(o *Options) { o.Store.FlushDiskType = store.SyncFlush })
	samples := func() (uint64, float64) {
		var m dto.Metric
		if err := b.Figures().CommitLogFlush.Write(&m); err != nil {
			t.Fatal(err)
		}
		return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
	}
	if n, _ := samples(); n != 0 {
		t.Fatalf("%d flushes timed before any put", n)
	}
	for i := 0; i < 3; i++ {
		r, _ := putPlain(t, b.store, "FT", 0, "m", 0)
		if err := b.store.WaitFlushed(r.WroteOffset+int64(r.WroteBytes), 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if n, sum := samples(); n != 3 || sum <= 0 {
		t.Fatalf("3 waited puts: %d flushes timed, %v s in total", n, sum)
	}
}
