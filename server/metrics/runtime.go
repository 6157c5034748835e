package metrics

// The rocketmq_brokeruntime_* families, read from the GET_BROKER_RUNTIME_INFO (28) table
// exactly as rocketmq-exporter parses it (model/BrokerRuntimeStats.java): the scrape and
// an admin call at the same moment give the same figures.

import (
	"math"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

type runtimeKind uint8

const (
	rtNumber     runtimeKind = iota // the value, a Java long or double
	rtTPS                           // token idx of "tps10 tps60 tps600"
	rtPMDT                          // bucket idx of putMessageDistributeTime
	rtCapTotal                      // "Total : 98.3 GiB, Free : 50.1 GiB." → bytes
	rtCapFree                       //
	rtFirstToken                    // remainHowManyDataToFlush: the number before the unit, as the exporter reads it
)

type runtimeFamily struct {
	family, key string
	kind        runtimeKind
	idx         int
}

var runtimeFamilies = func() []runtimeFamily {
	const p = "rocketmq_brokeruntime_"
	rf := []runtimeFamily{}
	for i, b := range []string{"0ms", "0to10ms", "10to50ms", "50to100ms", "100to200ms", "200to500ms", "500to1s", "1to2s", "2to3s", "3to4s", "4to5s", "5to10s", "10stomore"} {
		rf = append(rf, runtimeFamily{p + "pmdt_" + b, "putMessageDistributeTime", rtPMDT, i})
	}
	for _, n := range [][2]string{
		{"msg_put_total_today_now", "msgPutTotalTodayNow"}, {"msg_gettotal_today_now", "msgGetTotalTodayNow"},
		{"dispatch_behind_bytes", "dispatchBehindBytes"}, {"put_message_size_total", "putMessageSizeTotal"},
		{"put_message_average_size", "putMessageAverageSize"}, {"query_threadpool_queue_capacity", "queryThreadPoolQueueCapacity"},
		{"remain_transientstore_buffer_numbs", "remainTransientStoreBufferNumbs"}, {"earliest_message_timestamp", "earliestMessageTimeStamp"},
		{"putmessage_entire_time_max", "putMessageEntireTimeMax"}, {"start_accept_sendrequest_time", "startAcceptSendRequestTimeStamp"},
		{"send_threadpool_queue_size", "sendThreadPoolQueueSize"}, {"putmessage_times_total", "putMessageTimesTotal"},
		{"getmessage_entire_time_max", "getMessageEntireTimeMax"}, {"pagecache_lock_time_mills", "pageCacheLockTimeMills"},
		{"commitlog_disk_ratio", "commitLogDiskRatio"}, {"consumequeue_disk_ratio", "consumeQueueDiskRatio"},
		{"dispatch_maxbuffer", "dispatchMaxBuffer"}, {"pull_threadpoolqueue_capacity", "pullThreadPoolQueueCapacity"},
		{"send_threadpoolqueue_capacity", "sendThreadPoolQueueCapacity"}, {"pull_threadpoolqueue_size", "pullThreadPoolQueueSize"},
		{"query_threadpoolqueue_size", "queryThreadPoolQueueSize"},
		{"pull_threadpoolqueue_headwait_timemills", "pullThreadPoolQueueHeadWaitTimeMills"},
		{"query_threadpoolqueue_headwait_timemills", "queryThreadPoolQueueHeadWaitTimeMills"},
		{"send_threadpoolqueue_headwait_timemills", "sendThreadPoolQueueHeadWaitTimeMills"},
		{"msg_gettotal_yesterdaymorning", "msgGetTotalYesterdayMorning"}, {"msg_puttotal_yesterdaymorning", "msgPutTotalYesterdayMorning"},
		{"msg_gettotal_todaymorning", "msgGetTotalTodayMorning"}, {"msg_puttotal_todaymorning", "msgPutTotalTodayMorning"},
		{"commitlog_maxoffset", "commitLogMaxOffset"}, {"commitlog_minoffset", "commitLogMinOffset"},
		{"put_latency_99", "putLatency99"}, {"put_latency_999", "putLatency999"},
	} {
		rf = append(rf, runtimeFamily{p + n[0], n[1], rtNumber, 0})
	}
	for _, n := range [][2]string{{"getfound", "getFoundTps"}, {"gettotal", "getTotalTps"}, {"gettransfered", "getTransferedTps"},
		{"getmiss", "getMissTps"}, {"put", "putTps"}} {
		for i, w := range []string{"10", "60", "600"} {
			rf = append(rf, runtimeFamily{p + n[0] + "_tps" + w, n[1], rtTPS, i})
		}
	}
	rf = append(rf, runtimeFamily{p + "commitlogdir_capacity_total", "commitLogDirCapacity", rtCapTotal, 0},
		runtimeFamily{p + "commitlogdir_capacity_free", "commitLogDirCapacity", rtCapFree, 0},
		runtimeFamily{p + "remain_howmanydata_toflush", "remainHowManyDataToFlush", rtFirstToken, 0})
	return rf
}()

// RuntimeValue returns the value the exporter derives for a rocketmq_brokeruntime_*
// family from a GET_BROKER_RUNTIME_INFO table; ok is false when the family is not one
// of them or its key is missing or does not parse.
func RuntimeValue(family string, kv map[string]string) (float64, bool) {
	for _, rf := range runtimeFamilies {
		if rf.family == family {
			return rf.value(kv)
		}
	}
	return 0, false
}

func (rf runtimeFamily) value(kv map[string]string) (float64, bool) {
	v, ok := kv[rf.key]
	if !ok {
		return 0, false
	}
	switch rf.kind {
	case rtNumber:
		return parseNumber(v)
	case rtFirstToken:
		tok, _, _ := strings.Cut(v, " ")
		return parseNumber(tok)
	case rtTPS:
		toks := strings.Split(v, " ")
		if rf.idx < len(toks) {
			return parseNumber(toks[rf.idx])
		}
	case rtPMDT:
		if v == "null" {
			// Java answers "null" until a full minute of puts was measured; the
			// exporter then drops the broker's pmdt series. Zero buckets keep the
			// dashboards' histogram panels drawn from the start instead.
			return 0, true
		}
		toks := strings.Fields(v)
		if rf.idx < len(toks) {
			if _, n, ok := strings.Cut(toks[rf.idx], "]:"); ok {
				return parseNumber(n)
			}
		}
	case rtCapTotal, rtCapFree:
		// "Total : 98.3 GiB, Free : 50.1 GiB." (MixAll.humanReadableByteCount)
		f := strings.Fields(v)
		at := 2
		if rf.kind == rtCapFree {
			at = 6
		}
		if at+1 < len(f) {
			return machineBytes(f[at], strings.TrimRight(f[at+1], ",."))
		}
	}
	return 0, false
}

func parseNumber(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// machineBytes turns "98.3", "GiB" back into bytes (the exporter's
// Utils.machineReadableByteCount).
func machineBytes(num, unit string) (float64, bool) {
	f, ok := parseNumber(num)
	if !ok {
		return 0, false
	}
	switch unit {
	case "B":
		return f, true
	case "KiB", "MiB", "GiB", "TiB", "PiB", "EiB":
		return f * math.Pow(1024, float64(strings.IndexByte("KMGTPE", unit[0])+1)), true
	}
	return 0, false
}

// collectRuntime sends the runtime families of one broker.
func collectRuntime(ch chan<- prometheus.Metric, cluster, addr string, kv map[string]string) {
	labels := []string{cluster, addr, "", kv["brokerVersionDesc"], kv["bootTimestamp"], kv["brokerVersion"]}
	for _, rf := range runtimeFamilies {
		if v, ok := rf.value(kv); ok {
			ch <- prometheus.MustNewConstMetric(descs[rf.family], prometheus.GaugeValue, v, labels...)
		}
	}
}
