package metrics

import "github.com/prometheus/client_golang/prometheus"

// The label keys of rocketmq-exporter's families, in its order (RMQMetricsCollector's
// *_LABEL_NAMES lists).
var (
	labelsBrokerNums    = []string{"cluster", "brokerIP", "broker"}
	labelsRuntime       = []string{"cluster", "brokerIP", "brokerHost", "des", "boottime", "broker_version"}
	labelsTopicNums     = []string{"cluster", "broker", "topic"}
	labelsDLQOffset     = []string{"cluster", "broker", "group"}
	labelsProducerCount = []string{"cluster", "broker", "group"}
	labelsGroupNums     = []string{"cluster", "broker", "topic", "group"}
	labelsGroupDiff     = []string{"group", "topic", "countOfOnlineConsumers", "msgModel"}
	labelsGroupCount    = []string{"caddr", "localaddr", "group"}
	labelsClient        = []string{"clientAddr", "clientId", "group", "topic"}
)

// family is one of rocketmq-exporter's gauge families: its name, its HELP text (the
// exporter's, copy-paste slips included) and its label keys.
type family struct {
	name, help string
	labels     []string
}

// exporterFamilies are the 89 GaugeMetricFamily of rocketmq-exporter (commit e1ab2dd,
// src/main/java/org/apache/rocketmq/exporter/collector/RMQMetricsCollector.java), in the
// order the exporter declares them. Every one is a gauge, the *_offset ones included.
var exporterFamilies = []family{
	{"rocketmq_group_diff", "GroupDiff", labelsGroupDiff},
	{"rocketmq_group_retrydiff", "GroupRetryDiff", labelsGroupDiff},
	{"rocketmq_group_dlqdiff", "GroupDLQDiff", labelsGroupDiff},
	{"rocketmq_group_count", "GroupCount", labelsGroupCount},
	{"rocketmq_producer_count", "producer instance counter", labelsProducerCount},
	{"rocketmq_producer_offset", "TopicOffset", labelsTopicNums},
	{"rocketmq_topic_retry_offset", "TopicRetryOffset", labelsTopicNums},
	{"rocketmq_topic_dlq_offset", "TopicRetryOffset", labelsDLQOffset},
	{"rocketmq_client_consume_fail_msg_count", "consumerClientFailedMsgCounts", labelsClient},
	{"rocketmq_client_consume_fail_msg_tps", "consumerClientFailedTPS", labelsClient},
	{"rocketmq_client_consume_ok_msg_tps", "consumerClientOKTPS", labelsClient},
	{"rocketmq_client_consume_rt", "consumerClientRT", labelsClient},
	{"rocketmq_client_consumer_pull_rt", "consumerClientPullRT", labelsClient},
	{"rocketmq_client_consumer_pull_tps", "consumerClientPullTPS", labelsClient},
	{"rocketmq_broker_tps", "BrokerPutNums", labelsBrokerNums},
	{"rocketmq_broker_qps", "BrokerGetNums", labelsBrokerNums},
	{"rocketmq_broker_commitlog_diff", "brokerCommitLogDiffGauge", labelsBrokerNums},
	{"rocketmq_brokeruntime_pmdt_0ms", "PutMessageDistributeTimeMap0ms", labelsRuntime},
	{"rocketmq_brokeruntime_pmdt_0to10ms", "PutMessageDistributeTimeMap0to10ms", labelsRuntime},
	{"rocketmq_brokeruntime_pmdt_10to50ms", "PutMessageDistributeTimeMap10to50ms", labelsRuntime},
	{"rocketmq_brokeruntime_pmdt_50to100ms", "PutMessageDistributeTimeMap50to100ms", labelsRuntime},
	{"rocketmq_brokeruntime_pmdt_100to200ms", "PutMessageDistributeTimeMap100to200ms", labelsRuntime},
	{"rocketmq_brokeruntime_pmdt_200to500ms", "PutMessageDistributeTimeMap200to500ms", labelsRuntime},
	{"rocketmq_brokeruntime_pmdt_500to1s", "PutMessageDistributeTimeMap500to1s", labelsRuntime},
	{"rocketmq_brokeruntime_pmdt_1to2s", "PutMessageDistributeTimeMap1to2s", labelsRuntime},
	{"rocketmq_brokeruntime_pmdt_2to3s", "PutMessageDistributeTimeMap2to3s", labelsRuntime},
	{"rocketmq_brokeruntime_pmdt_3to4s", "PutMessageDistributeTimeMap3to4s", labelsRuntime},
	{"rocketmq_brokeruntime_pmdt_4to5s", "PutMessageDistributeTimeMap4to5s", labelsRuntime},
	{"rocketmq_brokeruntime_pmdt_5to10s", "PutMessageDistributeTimeMap5to10s", labelsRuntime},
	{"rocketmq_brokeruntime_pmdt_10stomore", "PutMessageDistributeTimeMap10toMore", labelsRuntime},
	{"rocketmq_consumer_tps", "GroupGetNums", labelsGroupNums},
	{"rocketmq_group_consume_tps", "GroupConsumeTPS", labelsGroupNums},
	{"rocketmq_consumer_offset", "GroupBrokerTotalOffset", labelsGroupNums},
	{"rocketmq_group_consume_total_offset", "GroupConsumeTotalOffset", labelsGroupNums},
	{"rocketmq_consumer_message_size", "GroupGetMessageSize", labelsGroupNums},
	{"rocketmq_send_back_nums", "SendBackNums", labelsGroupNums},
	{"rocketmq_group_get_latency_by_storetime", "GroupGetLatencyByStoreTime", labelsGroupNums},
	{"rocketmq_producer_tps", "TopicPutNums", labelsTopicNums},
	{"rocketmq_producer_message_size", "TopicPutMessageSize", labelsTopicNums},
	{"rocketmq_brokeruntime_msg_put_total_today_now", "brokerRuntimeMsgPutTotalTodayNow", labelsRuntime},
	{"rocketmq_brokeruntime_msg_gettotal_today_now", "brokerRuntimeMsgGetTotalTodayNow", labelsRuntime},
	{"rocketmq_brokeruntime_dispatch_behind_bytes", "brokerRuntimeDispatchBehindBytes", labelsRuntime},
	{"rocketmq_brokeruntime_put_message_size_total", "brokerRuntimePutMessageSizeTotal", labelsRuntime},
	{"rocketmq_brokeruntime_put_message_average_size", "brokerRuntimePutMessageAverageSize", labelsRuntime},
	{"rocketmq_brokeruntime_query_threadpool_queue_capacity", "brokerRuntimeQueryThreadPoolQueueCapacity", labelsRuntime},
	{"rocketmq_brokeruntime_remain_transientstore_buffer_numbs", "brokerRuntimeRemainTransientStoreBufferNumbs", labelsRuntime},
	{"rocketmq_brokeruntime_earliest_message_timestamp", "brokerRuntimeEarliestMessageTimeStamp", labelsRuntime},
	{"rocketmq_brokeruntime_putmessage_entire_time_max", "brokerRuntimePutMessageEntireTimeMax", labelsRuntime},
	{"rocketmq_brokeruntime_start_accept_sendrequest_time", "brokerRuntimeStartAcceptSendRequestTimeStamp", labelsRuntime},
	{"rocketmq_brokeruntime_send_threadpool_queue_size", "brokerRuntimeSendThreadPoolQueueSize", labelsRuntime},
	{"rocketmq_brokeruntime_putmessage_times_total", "brokerRuntimePutMessageTimesTotal", labelsRuntime},
	{"rocketmq_brokeruntime_getmessage_entire_time_max", "brokerRuntimeGetMessageEntireTimeMax", labelsRuntime},
	{"rocketmq_brokeruntime_pagecache_lock_time_mills", "brokerRuntimePageCacheLockTimeMills", labelsRuntime},
	{"rocketmq_brokeruntime_commitlog_disk_ratio", "brokerRuntimeCommitLogDiskRatio", labelsRuntime},
	{"rocketmq_brokeruntime_consumequeue_disk_ratio", "brokerRuntimeConsumeQueueDiskRatio", labelsRuntime},
	{"rocketmq_brokeruntime_getfound_tps600", "brokerRuntimeGetFoundTps600", labelsRuntime},
	{"rocketmq_brokeruntime_getfound_tps60", "brokerRuntimeGetFoundTps60", labelsRuntime},
	{"rocketmq_brokeruntime_getfound_tps10", "brokerRuntimeGetFoundTps10", labelsRuntime},
	{"rocketmq_brokeruntime_gettotal_tps600", "brokerRuntimeGetTotalTps600", labelsRuntime},
	{"rocketmq_brokeruntime_gettotal_tps60", "brokerRuntimeGetTotalTps60", labelsRuntime},
	{"rocketmq_brokeruntime_gettotal_tps10", "brokerRuntimeGetTotalTps10", labelsRuntime},
	{"rocketmq_brokeruntime_gettransfered_tps600", "brokerRuntimeGetTransferedTps600", labelsRuntime},
	{"rocketmq_brokeruntime_gettransfered_tps60", "brokerRuntimeGetTransferedTps60", labelsRuntime},
	{"rocketmq_brokeruntime_gettransfered_tps10", "brokerRuntimeGetTransferedTps10", labelsRuntime},
	{"rocketmq_brokeruntime_getmiss_tps600", "brokerRuntimeGetMissTps600", labelsRuntime},
	{"rocketmq_brokeruntime_getmiss_tps60", "brokerRuntimeGetMissTps60", labelsRuntime},
	{"rocketmq_brokeruntime_getmiss_tps10", "brokerRuntimeGetMissTps10", labelsRuntime},
	{"rocketmq_brokeruntime_put_tps600", "brokerRuntimePutTps600", labelsRuntime},
	{"rocketmq_brokeruntime_put_tps60", "brokerRuntimePutTps60", labelsRuntime},
	{"rocketmq_brokeruntime_put_tps10", "brokerRuntimePutTps10", labelsRuntime},
	{"rocketmq_brokeruntime_dispatch_maxbuffer", "brokerRuntimeDispatchMaxBuffer", labelsRuntime},
	{"rocketmq_brokeruntime_pull_threadpoolqueue_capacity", "brokerRuntimePullThreadPoolQueueCapacity", labelsRuntime},
	{"rocketmq_brokeruntime_send_threadpoolqueue_capacity", "brokerRuntimeSendThreadPoolQueueCapacity", labelsRuntime},
	{"rocketmq_brokeruntime_pull_threadpoolqueue_size", "brokerRuntimePullThreadPoolQueueSizeF", labelsRuntime},
	{"rocketmq_brokeruntime_query_threadpoolqueue_size", "brokerRuntimeQueryThreadPoolQueueSize", labelsRuntime},
	{"rocketmq_brokeruntime_pull_threadpoolqueue_headwait_timemills", "brokerRuntimePullThreadPoolQueueHeadWaitTimeMills", labelsRuntime},
	{"rocketmq_brokeruntime_query_threadpoolqueue_headwait_timemills", "brokerRuntimeQueryThreadPoolQueueHeadWaitTimeMills", labelsRuntime},
	{"rocketmq_brokeruntime_send_threadpoolqueue_headwait_timemills", "brokerRuntimeSendThreadPoolQueueHeadWaitTimeMills", labelsRuntime},
	{"rocketmq_brokeruntime_msg_gettotal_yesterdaymorning", "brokerRuntimeMsgGetTotalYesterdayMorning", labelsRuntime},
	{"rocketmq_brokeruntime_msg_puttotal_yesterdaymorning", "brokerRuntimeMsgPutTotalYesterdayMorning", labelsRuntime},
	{"rocketmq_brokeruntime_msg_gettotal_todaymorning", "brokerRuntimeMsgGetTotalTodayMorning", labelsRuntime},
	{"rocketmq_brokeruntime_msg_puttotal_todaymorning", "brokerRuntimeMsgPutTotalTodayMorning", labelsRuntime},
	{"rocketmq_brokeruntime_commitlogdir_capacity_free", "brokerRuntimeCommitLogDirCapacityFree", labelsRuntime},
	{"rocketmq_brokeruntime_commitlogdir_capacity_total", "brokerRuntimeCommitLogDirCapacityTotal", labelsRuntime},
	{"rocketmq_brokeruntime_commitlog_maxoffset", "brokerRuntimeCommitLogMaxOffset", labelsRuntime},
	{"rocketmq_brokeruntime_commitlog_minoffset", "brokerRuntimeCommitLogMinOffset", labelsRuntime},
	{"rocketmq_brokeruntime_remain_howmanydata_toflush", "brokerRuntimeRemainHowManyDataToFlush", labelsRuntime},
	{"rocketmq_brokeruntime_put_latency_99", "brokerRuntimePutLatency99", labelsRuntime},
	{"rocketmq_brokeruntime_put_latency_999", "brokerRuntimePutLatency999", labelsRuntime},
}

// descs maps each exporter family name to its descriptor.
var descs = func() map[string]*prometheus.Desc {
	m := make(map[string]*prometheus.Desc, len(exporterFamilies))
	for _, f := range exporterFamilies {
		m[f.name] = prometheus.NewDesc(f.name, f.help, f.labels, nil)
	}
	return m
}()

// ExporterFamilies returns the names of the 89 exporter families, in the exporter's order.
func ExporterFamilies() []string {
	out := make([]string, len(exporterFamilies))
	for i, f := range exporterFamilies {
		out[i] = f.name
	}
	return out
}

// ExporterLabels returns the label keys of an exporter family, or nil.
func ExporterLabels(name string) []string {
	for _, f := range exporterFamilies {
		if f.name == name {
			return append([]string(nil), f.labels...)
		}
	}
	return nil
}
