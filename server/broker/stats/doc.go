// Package stats holds a broker's statistics: Java's BrokerStatsManager (the named stats
// sets), BrokerStats (the day totals) and the rate windows and put latencies of
// StoreStatsService that GET_BROKER_RUNTIME_INFO reports. The broker's handlers
// (admin_stats.go, admin_runtime.go) write the answers; this package keeps the figures.
// It imports only store, never the broker: what it reads of the broker comes in Config
// (Start), what it counts comes in through the Inc* methods.
//
// Named sets (VIEW_BROKER_STATS_DATA, the consume TPS of GET_CONSUME_STATS and
// GET_BROKER_CONSUME_STATS). Each item counts a value and a number of calls; it appears
// on first use and is sampled every 10 s (the last 7 samples are the minute window),
// every 10 min (7: the hour) and every hour (25: the day). A window reports the value
// added between its first and last sample (sum), per second (tps) and per call (avgpt).
// The sets and their keys, as Java fills them:
//
//	TOPIC_PUT_NUMS, TOPIC_PUT_SIZE   topic            sends, replies, delayed deliveries,
//	                                                 send-backs parked in SCHEDULE_TOPIC_XXXX
//	QUEUE_PUT_NUMS, QUEUE_PUT_SIZE   topic@queueId    puts to SCHEDULE_TOPIC_XXXX only (enableDetailStat)
//	QUEUE_GET_NUMS, QUEUE_GET_SIZE   topic@queueId@group  delayed deliveries (enableDetailStat)
//	GROUP_GET_NUMS, GROUP_GET_SIZE   topic@group      messages pulled; delayed deliveries
//	                                                 as SCHEDULE_CONSUMER
//	GROUP_GET_LATENCY                topic@group, or queueId@topic@group with enableDetailStat
//	SNDBCK_PUT_NUMS                  topic@group      consumer send-backs (topic = the original)
//	BROKER_PUT_NUMS, BROKER_GET_NUMS clusterName
//
// Java registers more sets (GROUP_GET_FROM_DISK_*, BROKER_GET_FROM_DISK_*, COMMERCIAL_*)
// that 4.9.8 never fills; asking for them gets "not exist", here as there.
//
// Rates (rates.go: putTps, getFoundTps, getMissTps, getTotalTps, getTransferedTps): a
// sample per second of the store's put count (store.Stats, no system call) and of the
// pulls' found/missed/transferred counts; each rate is given over the last 10, 60 and
// 600 s, space separated, empty until that many samples exist (Java's StoreStatsService).
// Put latency: the time from the store timestamp of a put to its result, in Java's 13
// distribution buckets and percentile buckets, swapped every minute (the figures
// describe the last full minute).
//
// Day totals (msgPutTotal*/msgGetTotal*): the store's put count and the messages pulled,
// recorded at each local midnight (Java: BrokerStats#record).
//
// The hot paths (a send, a pull) do lock-free map lookups: each set publishes its maps
// (16 shards) copy-on-write, and items are created under the shard's mutex with their
// own copies of the names (requests may be read in place in a reused buffer). A Manager
// is ready at its zero value: requests served before Start are counted with Java's
// defaults.
//
// Lock order: every lock here is a leaf. statsShard.mu (adding or deleting items of a
// shard), statsItem.mu (an item's sample lists), Manager.rateMu (rate samples, the store
// source, the pools' last-empty times) and Manager.dayMu (day totals) are never held
// while taking another one or while calling out (the store is read before dayMu is
// taken).
package stats
