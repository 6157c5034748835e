package configs

import (
	"os"
	"runtime"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// BrokerConfig is Java's org.apache.rocketmq.common.BrokerConfig (4.9.8): one field per
// Java field, in Java's declaration order (the order `mqbroker -p` prints), with Java's
// defaults from DefaultBrokerConfig. The prop tag holds the property name that
// broker.conf and UPDATE_BROKER_CONFIG use; "important" marks Java's @ImportantField
// (printed by -m); "nullable" marks String fields whose Java default is null, which an
// empty Go string stands for.
type BrokerConfig struct {
	// Java reads it from -Drocketmq.home.dir or $ROCKETMQ_HOME; Skyrocket reads it only for ACL (aclEnable=true: ${rocketmqHome}/conf/plain_acl.yml).
	RocketmqHome string `prop:"rocketmqHome,nullable"`
	// NameServer addresses, "host:port;host:port" (also -n and $NAMESRV_ADDR).
	NamesrvAddr string `prop:"namesrvAddr,important,nullable"`
	// The address the broker registers and clients connect to (default compat.LocalAddress()).
	BrokerIP1 string `prop:"brokerIP1,important"`
	// The address slaves use for HA when set apart from brokerIP1.
	BrokerIP2 string `prop:"brokerIP2"`
	// The broker group name shared by a master and its slaves (default: host name).
	BrokerName string `prop:"brokerName,important"`
	// The cluster this broker registers under.
	BrokerClusterName string `prop:"brokerClusterName,important"`
	// 0 for a master, > 0 for a slave (forced to 0 for masters by Broker.Resolve). Java: brokerId.
	BrokerID int64 `prop:"brokerId,important"`
	// PermName bits: 2 write, 4 read, 1 inherit; 6 = read|write.
	BrokerPermission int32 `prop:"brokerPermission"`
	// Queues of an auto-created topic (capped by the TBW102 default topic).
	DefaultTopicQueueNums int32 `prop:"defaultTopicQueueNums"`
	// Create unknown topics on send from the TBW102 template.
	AutoCreateTopicEnable bool `prop:"autoCreateTopicEnable,important"`
	// Create a topic named after the cluster.
	ClusterTopicEnable bool `prop:"clusterTopicEnable"`
	// Create a topic named after the broker.
	BrokerTopicEnable bool `prop:"brokerTopicEnable"`
	// Create unknown consumer groups on first use.
	AutoCreateSubscriptionGroup bool `prop:"autoCreateSubscriptionGroup,important"`
	// Comma-separated MessageStore plug-in classes (Java only; ignored).
	MessageStorePlugIn string `prop:"messageStorePlugIn"`
	// The message-trace topic.
	MsgTraceTopicName string `prop:"msgTraceTopicName,important"`
	// Create the trace topic at start.
	TraceTopicEnable bool `prop:"traceTopicEnable,important"`
	// Send workers: min(CPUs, 4).
	SendMessageThreadPoolNums int32 `prop:"sendMessageThreadPoolNums"`
	// Put-future completion workers: min(CPUs, 4).
	PutMessageFutureThreadPoolNums int32 `prop:"putMessageFutureThreadPoolNums"`
	// Pull workers: 16 + 2*CPUs.
	PullMessageThreadPoolNums int32 `prop:"pullMessageThreadPoolNums"`
	// Reply workers: 16 + 2*CPUs.
	ProcessReplyMessageThreadPoolNums int32 `prop:"processReplyMessageThreadPoolNums"`
	// Query workers: 8 + CPUs.
	QueryMessageThreadPoolNums int32 `prop:"queryMessageThreadPoolNums"`
	// Admin request workers.
	AdminBrokerThreadPoolNums int32 `prop:"adminBrokerThreadPoolNums"`
	// Client management workers (heartbeat, unregister).
	ClientManageThreadPoolNums int32 `prop:"clientManageThreadPoolNums"`
	// Consumer management workers (offsets, consumer lists).
	ConsumerManageThreadPoolNums int32 `prop:"consumerManageThreadPoolNums"`
	// Heartbeat workers: min(32, CPUs).
	HeartbeatThreadPoolNums int32 `prop:"heartbeatThreadPoolNums"`
	// End-transaction workers: max(8 + 2*CPUs, 4*sendMessageThreadPoolNums).
	EndTransactionThreadPoolNums int32 `prop:"endTransactionThreadPoolNums"`
	// Ms between consumerOffset.json persists.
	FlushConsumerOffsetInterval int32 `prop:"flushConsumerOffsetInterval"`
	// Ms between offset history snapshots.
	FlushConsumerOffsetHistoryInterval int32 `prop:"flushConsumerOffsetHistoryInterval"`
	// Answer NO_PERMISSION to transactional sends.
	RejectTransactionMessage bool `prop:"rejectTransactionMessage,important"`
	// Poll the address server (rmqAddressServerDomain) for namesrvAddr.
	FetchNamesrvAddrByAddressServer        bool  `prop:"fetchNamesrvAddrByAddressServer,important"`
	SendThreadPoolQueueCapacity            int32 `prop:"sendThreadPoolQueueCapacity"`
	PutThreadPoolQueueCapacity             int32 `prop:"putThreadPoolQueueCapacity"`
	PullThreadPoolQueueCapacity            int32 `prop:"pullThreadPoolQueueCapacity"`
	ReplyThreadPoolQueueCapacity           int32 `prop:"replyThreadPoolQueueCapacity"`
	QueryThreadPoolQueueCapacity           int32 `prop:"queryThreadPoolQueueCapacity"`
	ClientManagerThreadPoolQueueCapacity   int32 `prop:"clientManagerThreadPoolQueueCapacity"`
	ConsumerManagerThreadPoolQueueCapacity int32 `prop:"consumerManagerThreadPoolQueueCapacity"`
	HeartbeatThreadPoolQueueCapacity       int32 `prop:"heartbeatThreadPoolQueueCapacity"`
	EndTransactionPoolQueueCapacity        int32 `prop:"endTransactionPoolQueueCapacity"`
	// Filter servers to start (removed feature; kept for the name).
	FilterServerNums int32 `prop:"filterServerNums"`
	// Hold pulls that find nothing (long polling) instead of short polling.
	LongPollingEnable bool `prop:"longPollingEnable"`
	// How long a pull is held when long polling is off.
	ShortPollingTimeMills int64 `prop:"shortPollingTimeMills"`
	// Push NOTIFY_CONSUMER_IDS_CHANGED to a group on membership change.
	NotifyConsumerIdsChangedEnable bool `prop:"notifyConsumerIdsChangedEnable"`
	// Unused in 4.9.8.
	HighSpeedMode bool `prop:"highSpeedMode"`
	// Commercial statistics (Aliyun); unused by Skyrocket.
	CommercialEnable     bool  `prop:"commercialEnable"`
	CommercialTimerCount int32 `prop:"commercialTimerCount"`
	CommercialTransCount int32 `prop:"commercialTransCount"`
	CommercialBigCount   int32 `prop:"commercialBigCount"`
	CommercialBaseCount  int32 `prop:"commercialBaseCount"`
	// Copy pulled messages through the heap (Java); Skyrocket always writes from the mapped files.
	TransferMsgByHeap bool `prop:"transferMsgByHeap"`
	// Maximum delay level accepted (unused in 4.9.8).
	MaxDelayTime int32 `prop:"maxDelayTime"`
	// Region written into sent messages (MSG_REGION) and trace data. Java: regionId.
	RegionID string `prop:"regionId"`
	// Timeout of one REGISTER_BROKER call.
	RegisterBrokerTimeoutMills int32 `prop:"registerBrokerTimeoutMills"`
	// Let consumers read from a slave when the master lags.
	SlaveReadEnable bool `prop:"slaveReadEnable"`
	// Disable a group that falls behind consumerFallbehindThreshold.
	DisableConsumeIfConsumerReadSlowly bool `prop:"disableConsumeIfConsumerReadSlowly"`
	// Bytes behind after which a slow consumer is disabled (16 GiB).
	ConsumerFallbehindThreshold int64 `prop:"consumerFallbehindThreshold"`
	// Answer SYSTEM_BUSY to requests that waited too long in a queue.
	BrokerFastFailureEnable bool `prop:"brokerFastFailureEnable"`
	// Max ms a send may wait for a worker before SYSTEM_BUSY.
	WaitTimeMillsInSendQueue int64 `prop:"waitTimeMillsInSendQueue"`
	// Max ms a pull may wait for a worker before SYSTEM_BUSY.
	WaitTimeMillsInPullQueue int64 `prop:"waitTimeMillsInPullQueue"`
	// Max ms a heartbeat may wait for a worker.
	WaitTimeMillsInHeartbeatQueue int64 `prop:"waitTimeMillsInHeartbeatQueue"`
	// Max ms an end-transaction may wait for a worker.
	WaitTimeMillsInTransactionQueue int64 `prop:"waitTimeMillsInTransactionQueue"`
	// Sends before this Unix ms are refused ("broker unable to service, until ...").
	StartAcceptSendRequestTimeStamp int64 `prop:"startAcceptSendRequestTimeStamp"`
	// Written into sent messages as TRACE_ON.
	TraceOn bool `prop:"traceOn"`
	// Compute SQL92 filter bitmaps while dispatching.
	EnableCalcFilterBitMap bool `prop:"enableCalcFilterBitMap"`
	// Expected number of filtering consumers (bloom filter sizing).
	ExpectConsumerNumUseFilter int32 `prop:"expectConsumerNumUseFilter"`
	// Bloom filter error rate, percent (1..100).
	MaxErrorRateOfBloomFilter int32 `prop:"maxErrorRateOfBloomFilter"`
	// Ms after which dead filter data is removed.
	FilterDataCleanTimeSpan int64 `prop:"filterDataCleanTimeSpan"`
	// Apply SQL92 filters to retry topics too.
	FilterSupportRetry bool `prop:"filterSupportRetry"`
	// Allow SQL92 (property) message filters.
	EnablePropertyFilter bool `prop:"enablePropertyFilter"`
	// Zip the REGISTER_BROKER body.
	CompressedRegister bool `prop:"compressedRegister"`
	// Register with the NameServer even when topics did not change.
	ForceRegister bool `prop:"forceRegister"`
	// Ms between NameServer registrations (Java clamps it to 10000..60000).
	RegisterNameServerPeriod int32 `prop:"registerNameServerPeriod"`
	// Ms a half message waits before its first check.
	TransactionTimeOut int64 `prop:"transactionTimeOut,important"`
	// Checks of a half message before it is discarded.
	TransactionCheckMax int32 `prop:"transactionCheckMax,important"`
	// Ms between transaction check rounds.
	TransactionCheckInterval int64 `prop:"transactionCheckInterval,important"`
	// Check requests against plain_acl.yml. Java: aclEnable.
	ACLEnable bool `prop:"aclEnable,important"`
	// Store reply messages (request/reply).
	StoreReplyMessageEnable bool `prop:"storeReplyMessageEnable"`
	// Keep per-topic/group statistics.
	EnableDetailStat bool `prop:"enableDetailStat"`
	// Drop statistics of idle topics and groups.
	AutoDeleteUnusedStats bool `prop:"autoDeleteUnusedStats"`
	// Separate log directories per broker on one host.
	IsolateLogEnable bool `prop:"isolateLogEnable"`
	// Keys UPDATE_BROKER_CONFIG may not change, ";"-separated.
	ConfigBlackList string `prop:"configBlackList"`
}

// DefaultBrokerConfig returns Java's defaults. Like Java it reads the environment
// (ROCKETMQ_HOME, NAMESRV_ADDR), the host's address (brokerIP1, brokerIP2:
// compat.LocalAddress) and name (brokerName), and sizes thread pools by the CPU count.
func DefaultBrokerConfig() BrokerConfig {
	cpus := int32(runtime.NumCPU())
	send := min(cpus, 4)
	return BrokerConfig{
		RocketmqHome:                           os.Getenv("ROCKETMQ_HOME"),
		NamesrvAddr:                            os.Getenv("NAMESRV_ADDR"),
		BrokerIP1:                              compat.LocalAddress(),
		BrokerIP2:                              compat.LocalAddress(),
		BrokerName:                             compat.LocalHostName(),
		BrokerClusterName:                      "DefaultCluster",
		BrokerPermission:                       6,
		DefaultTopicQueueNums:                  8,
		AutoCreateTopicEnable:                  true,
		ClusterTopicEnable:                     true,
		BrokerTopicEnable:                      true,
		AutoCreateSubscriptionGroup:            true,
		MsgTraceTopicName:                      "RMQ_SYS_TRACE_TOPIC",
		SendMessageThreadPoolNums:              send,
		PutMessageFutureThreadPoolNums:         min(cpus, 4),
		PullMessageThreadPoolNums:              16 + cpus*2,
		ProcessReplyMessageThreadPoolNums:      16 + cpus*2,
		QueryMessageThreadPoolNums:             8 + cpus,
		AdminBrokerThreadPoolNums:              16,
		ClientManageThreadPoolNums:             32,
		ConsumerManageThreadPoolNums:           32,
		HeartbeatThreadPoolNums:                min(32, cpus),
		EndTransactionThreadPoolNums:           max(8+cpus*2, send*4),
		FlushConsumerOffsetInterval:            5000,
		FlushConsumerOffsetHistoryInterval:     60000,
		SendThreadPoolQueueCapacity:            10000,
		PutThreadPoolQueueCapacity:             10000,
		PullThreadPoolQueueCapacity:            100000,
		ReplyThreadPoolQueueCapacity:           10000,
		QueryThreadPoolQueueCapacity:           20000,
		ClientManagerThreadPoolQueueCapacity:   1000000,
		ConsumerManagerThreadPoolQueueCapacity: 1000000,
		HeartbeatThreadPoolQueueCapacity:       50000,
		EndTransactionPoolQueueCapacity:        100000,
		LongPollingEnable:                      true,
		ShortPollingTimeMills:                  1000,
		NotifyConsumerIdsChangedEnable:         true,
		CommercialEnable:                       true,
		CommercialTimerCount:                   1,
		CommercialTransCount:                   1,
		CommercialBigCount:                     1,
		CommercialBaseCount:                    1,
		TransferMsgByHeap:                      true,
		MaxDelayTime:                           40,
		RegionID:                               "DefaultRegion",
		RegisterBrokerTimeoutMills:             6000,
		ConsumerFallbehindThreshold:            16 << 30,
		BrokerFastFailureEnable:                true,
		WaitTimeMillsInSendQueue:               200,
		WaitTimeMillsInPullQueue:               5000,
		WaitTimeMillsInHeartbeatQueue:          31000,
		WaitTimeMillsInTransactionQueue:        3000,
		TraceOn:                                true,
		ExpectConsumerNumUseFilter:             32,
		MaxErrorRateOfBloomFilter:              20,
		FilterDataCleanTimeSpan:                24 * 3600 * 1000,
		ForceRegister:                          true,
		RegisterNameServerPeriod:               30000,
		TransactionTimeOut:                     6000,
		TransactionCheckMax:                    15,
		TransactionCheckInterval:               60000,
		StoreReplyMessageEnable:                true,
		EnableDetailStat:                       true,
		ConfigBlackList:                        "configBlackList;brokerConfigPath",
	}
}
