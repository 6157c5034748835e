package server

import (
	"maps"
	"reflect"
	"slices"

	"github.com/skyrocket-mq/skyrocket/configs"
)

// Why a Java property has no effect in Skyrocket.
const (
	whyNetty     = "Skyrocket's remoting is gnet, not Netty: Netty's threads, buffers and socket options have no counterpart"
	whyClient    = "the broker's outbound client (registration) uses fixed settings: 3 s dial timeout; only useTLS applies"
	whyPool      = "this executor has no separate pool in Skyrocket (the request runs inline or on a fixed-size pool)"
	whyNotYet    = "not yet in broker.Options: the broker behaves as with Java's default"
	whyDLedger   = "DLedger is not supported (enableDLegerCommitLog=true is refused)"
	whyHomeACL   = "read only with aclEnable=true (the ACL files are ${rocketmqHome}/conf/plain_acl.yml and conf/acl/); otherwise Skyrocket needs no install directory"
	whyJavaOnly  = "a Java implementation detail with no counterpart (JVM, plug-in classes, logging, commercial statistics)"
	whyStoreImpl = "a knob of Java's store implementation; Skyrocket's store writes straight into the mapped file and has no equivalent"
	whyFilter    = "no bloom-filter bitmaps are computed at dispatch and no consumequeue_ext is written: SQL92 filters are evaluated at pull time"
)

// brokerIneffective lists, by property name, every broker.conf property that
// broker.OptionsFrom does not map, with the reason. broker_options_test.go fails when a
// configs property is neither mapped nor listed here. Keep it sorted within each group.
var brokerIneffective = map[string]string{
	// BrokerConfig
	"rocketmqHome":                           whyHomeACL, // IneffectiveBrokerProperties skips it with aclEnable=true
	"messageStorePlugIn":                     whyJavaOnly,
	"sendMessageThreadPoolNums":              whyPool,
	"putMessageFutureThreadPoolNums":         whyPool,
	"processReplyMessageThreadPoolNums":      whyPool,
	"queryMessageThreadPoolNums":             whyPool,
	"clientManageThreadPoolNums":             whyPool,
	"consumerManageThreadPoolNums":           whyPool,
	"heartbeatThreadPoolNums":                whyPool,
	"endTransactionThreadPoolNums":           whyPool,
	"putThreadPoolQueueCapacity":             whyPool,
	"replyThreadPoolQueueCapacity":           whyPool,
	"queryThreadPoolQueueCapacity":           whyPool,
	"clientManagerThreadPoolQueueCapacity":   whyPool,
	"consumerManagerThreadPoolQueueCapacity": whyPool,
	"heartbeatThreadPoolQueueCapacity":       whyPool,
	"endTransactionPoolQueueCapacity":        whyPool,
	"waitTimeMillsInHeartbeatQueue":          whyPool,
	"waitTimeMillsInTransactionQueue":        whyPool,
	"flushConsumerOffsetHistoryInterval":     whyNotYet,
	"filterServerNums":                       "filter servers were removed from RocketMQ; Java ignores it too",
	"highSpeedMode":                          "unused by Java 4.9.8 as well",
	"commercialEnable":                       whyJavaOnly,
	"commercialTimerCount":                   whyJavaOnly,
	"commercialTransCount":                   whyJavaOnly,
	"commercialBigCount":                     whyJavaOnly,
	"commercialBaseCount":                    whyJavaOnly,
	"transferMsgByHeap":                      "pulls are always written from the mapped files (writev), never copied through the heap",
	"maxDelayTime":                           "unused by Java 4.9.8 as well",
	"disableConsumeIfConsumerReadSlowly":     whyNotYet,
	"consumerFallbehindThreshold":            whyNotYet,
	"enableCalcFilterBitMap":                 whyFilter,
	"isolateLogEnable":                       whyJavaOnly,

	// NettyServerConfig (listenPort is mapped)
	"serverWorkerThreads":                whyNetty,
	"serverCallbackExecutorThreads":      whyNetty,
	"serverSelectorThreads":              whyNetty,
	"serverOnewaySemaphoreValue":         whyNetty,
	"serverAsyncSemaphoreValue":          whyNetty,
	"serverChannelMaxIdleTimeSeconds":    whyNotYet,
	"serverSocketSndBufSize":             whyNetty,
	"serverSocketRcvBufSize":             whyNetty,
	"serverSocketBacklog":                whyNetty,
	"serverPooledByteBufAllocatorEnable": whyNetty,
	"useEpollNativeSelector":             whyNetty,

	// NettyClientConfig
	"clientWorkerThreads":                whyClient,
	"clientCallbackExecutorThreads":      whyClient,
	"clientOnewaySemaphoreValue":         whyClient,
	"clientAsyncSemaphoreValue":          whyClient,
	"connectTimeoutMillis":               whyClient,
	"channelNotActiveInterval":           whyClient,
	"clientChannelMaxIdleTimeSeconds":    whyClient,
	"clientSocketSndBufSize":             whyClient,
	"clientSocketRcvBufSize":             whyClient,
	"clientPooledByteBufAllocatorEnable": whyClient,
	"clientCloseSocketIfTimeout":         whyClient,

	// MessageStoreConfig
	"storePathDLedgerCommitLog":                whyDLedger,
	"enableConsumeQueueExt":                    whyFilter,
	"mappedFileSizeConsumeQueueExt":            whyFilter,
	"bitMapLengthConsumeQueueExt":              whyFilter,
	"commitIntervalCommitLog":                  whyStoreImpl,
	"useReentrantLockWhenPutMessage":           whyStoreImpl,
	"flushCommitLogTimed":                      whyStoreImpl,
	"destroyMapedFileIntervalForcibly":         whyStoreImpl,
	"redeleteHangedFileInterval":               whyStoreImpl,
	"putMsgIndexHightWater":                    whyStoreImpl,
	"commitCommitLogLeastPages":                whyStoreImpl,
	"flushLeastPagesWhenWarmMapedFile":         whyStoreImpl,
	"commitCommitLogThoroughInterval":          whyStoreImpl,
	"messageIndexSafe":                         whyStoreImpl,
	"warmMapedFileEnable":                      whyStoreImpl,
	"debugLockEnable":                          whyStoreImpl,
	"duplicationEnable":                        whyStoreImpl,
	"diskFallRecorded":                         whyStoreImpl,
	"transientStorePoolEnable":                 whyStoreImpl,
	"transientStorePoolSize":                   whyStoreImpl,
	"fastFailIfNoBufferInStorePool":            whyStoreImpl,
	"flushDelayOffsetInterval":                 whyNotYet,
	"dLegerGroup":                              whyDLedger,
	"dLegerPeers":                              whyDLedger,
	"dLegerSelfId":                             whyDLedger,
	"preferredLeaderId":                        whyDLedger,
	"enableBatchPush":                          whyDLedger,
	"enableLmq":                                whyNotYet,
	"enableMultiDispatch":                      whyNotYet,
	"maxLmqConsumeQueueNum":                    whyNotYet,
	"enableScheduleAsyncDeliver":               whyNotYet,
	"scheduleAsyncDeliverMaxPendingLimit":      whyNotYet,
	"scheduleAsyncDeliverMaxResendNum2Blocked": whyNotYet,
}

// namesrvIneffective is brokerIneffective's peer for namesrv.conf.
var namesrvIneffective = map[string]string{
	"rocketmqHome":   whyJavaOnly,
	"productEnvName": "unused by Java 4.9.8 as well",
	"clusterTest":    "unused by Java 4.9.8 as well",

	"serverWorkerThreads":                whyNetty,
	"serverCallbackExecutorThreads":      whyNetty,
	"serverSelectorThreads":              whyNetty,
	"serverOnewaySemaphoreValue":         whyNetty,
	"serverAsyncSemaphoreValue":          whyNetty,
	"serverSocketSndBufSize":             whyNetty,
	"serverSocketRcvBufSize":             whyNetty,
	"serverSocketBacklog":                whyNetty,
	"serverPooledByteBufAllocatorEnable": whyNetty,
	"useEpollNativeSelector":             whyNetty,
}

// Ineffective is a property the configuration file sets to something other than Java's
// default although it has no effect in Skyrocket.
type Ineffective struct {
	Key, Value, Reason string
}

// IneffectiveBrokerProperties lists the properties of cfg's file (FileProps) that change
// a default but have no effect in Skyrocket, sorted by key, so cmd/ can warn about them.
func IneffectiveBrokerProperties(cfg *configs.Broker) []Ineffective {
	out := ineffective(cfg.FileProps, brokerIneffective, func() []any { return configs.NewBroker().Targets() })
	if cfg.Broker.ACLEnable {
		out = slices.DeleteFunc(out, func(x Ineffective) bool { return x.Key == "rocketmqHome" })
	}
	return out
}

// IneffectiveNamesrvProperties is IneffectiveBrokerProperties for a NameServer.
func IneffectiveNamesrvProperties(cfg *configs.Namesrv) []Ineffective {
	return ineffective(cfg.FileProps, namesrvIneffective, func() []any { return configs.NewNamesrv().Targets() })
}

func ineffective(props map[string]string, why map[string]string, defaults func() []any) []Ineffective {
	var out []Ineffective
	for _, k := range slices.Sorted(maps.Keys(props)) {
		reason, ok := why[k]
		if !ok {
			continue
		}
		// Changed from the default? Apply the one property to fresh defaults and compare.
		base, changed := defaults(), defaults()
		if _, err := configs.Apply(map[string]string{k: props[k]}, changed...); err != nil {
			continue // invalid values are reported by Load
		}
		if reflect.DeepEqual(base, changed) {
			continue
		}
		out = append(out, Ineffective{Key: k, Value: props[k], Reason: reason})
	}
	return out
}
