package server

import (
	"errors"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

// brokerMapped is, per mapped property, a non-default value and the check that
// BrokerOptions carried it where it belongs. TestBrokerOptions_EveryPropertyMappedOrListed
// makes sure every configs property is here or in brokerIneffective.
var brokerMapped = []struct {
	key, value string
	ok         func(o *broker.Options) bool
}{
	// read by the broker from Options.Config (the whole configuration)
	{"enableDetailStat", "false", func(o *broker.Options) bool { return !o.Config.Broker.EnableDetailStat }},
	{"autoDeleteUnusedStats", "true", func(o *broker.Options) bool { return o.Config.Broker.AutoDeleteUnusedStats }},
	{"configBlackList", "a;b", func(o *broker.Options) bool { return o.Config.Broker.ConfigBlackList == "a;b" }},
	{"enableScheduleMessageStats", "false", func(o *broker.Options) bool { return !o.Config.Store.EnableScheduleMessageStats }},
	// remoting limits and TLS (TransportOptions)
	{"writeBufferHighWaterMark", "1048576", func(o *broker.Options) bool { return o.Transport.Limits.WriteHighWater == 1<<20 }},
	{"writeBufferLowWaterMark", "65536", func(o *broker.Options) bool { return o.Transport.Limits.WriteLowWater == 65536 }},
	{"useTLS", "true", func(o *broker.Options) bool { return o.Transport.ClientTLS != nil }},
	// replication (MessageStoreConfig)
	{"haSendHeartbeatInterval", "7000", func(o *broker.Options) bool { return o.HA.HeartbeatInterval == 7*time.Second }},
	{"haHousekeepingInterval", "30000", func(o *broker.Options) bool { return o.HA.HousekeepingInterval == 30*time.Second }},
	{"haTransferBatchSize", "65536", func(o *broker.Options) bool { return o.HA.TransferBatchSize == 65536 }},
	{"haSlaveFallbehindMax", "1048576", func(o *broker.Options) bool { return o.HA.SlaveFallbehindMax == 1<<20 }},
	{"haMasterAddress", "10.0.0.9:10912", func(o *broker.Options) bool { return o.HAMasterAddress == "10.0.0.9:10912" }},
	{"slaveTimeout", "4000", func(o *broker.Options) bool { return o.SlaveTimeout == 4*time.Second }},
	// NettyServerConfig
	{"listenPort", "20911", func(o *broker.Options) bool { return o.ListenAddr == "0.0.0.0:20911" && o.EnableVIP }},
	// BrokerConfig
	{"namesrvAddr", "10.0.0.1:9876;10.0.0.2:9876;", func(o *broker.Options) bool {
		return slices.Equal(o.NamesrvAddrs, []string{"10.0.0.1:9876", "10.0.0.2:9876"})
	}},
	{"brokerIP1", "10.1.1.1", func(o *broker.Options) bool { return o.BrokerIP1 == "10.1.1.1" }},
	{"brokerIP2", "10.2.2.2", func(o *broker.Options) bool { return o.BrokerIP2 == "10.2.2.2" }},
	{"brokerName", "broker-z", func(o *broker.Options) bool { return o.BrokerName == "broker-z" }},
	{"brokerClusterName", "C1", func(o *broker.Options) bool { return o.ClusterName == "C1" }},
	{"brokerId", "3", func(o *broker.Options) bool { return o.BrokerID == 3 }},
	{"brokerPermission", "4", func(o *broker.Options) bool { return o.BrokerPermission == 4 }},
	{"defaultTopicQueueNums", "3", func(o *broker.Options) bool { return o.DefaultTopicQueueNums == 3 }},
	{"autoCreateTopicEnable", "false", func(o *broker.Options) bool { return !o.AutoCreateTopicEnable }},
	{"clusterTopicEnable", "false", func(o *broker.Options) bool { return !o.ClusterTopicEnable }},
	{"brokerTopicEnable", "false", func(o *broker.Options) bool { return !o.BrokerTopicEnable }},
	{"autoCreateSubscriptionGroup", "false", func(o *broker.Options) bool { return !o.AutoCreateSubscriptionGroup }},
	{"msgTraceTopicName", "TRACE_X", func(o *broker.Options) bool { return o.MsgTraceTopicName == "TRACE_X" }},
	{"traceTopicEnable", "true", func(o *broker.Options) bool { return o.TraceTopicEnable }},
	{"pullMessageThreadPoolNums", "7", func(o *broker.Options) bool { return o.PullThreads == 7 }},
	{"adminBrokerThreadPoolNums", "5", func(o *broker.Options) bool { return o.AdminThreads == 5 }},
	{"flushConsumerOffsetInterval", "1234", func(o *broker.Options) bool { return o.FlushConsumerOffsetInterval == 1234*time.Millisecond }},
	{"rejectTransactionMessage", "true", func(o *broker.Options) bool { return o.RejectTransactionMessage }},
	{"storeReplyMessageEnable", "false", func(o *broker.Options) bool { return !o.StoreReplyMessageEnable }},
	{"transactionTimeOut", "7000", func(o *broker.Options) bool { return o.TransactionTimeOut == 7*time.Second }},
	{"transactionCheckMax", "3", func(o *broker.Options) bool { return o.TransactionCheckMax == 3 }},
	{"transactionCheckInterval", "9000", func(o *broker.Options) bool { return o.TransactionCheckInterval == 9*time.Second }},
	{"fetchNamesrvAddrByAddressServer", "false", func(o *broker.Options) bool { return true }}, // true is refused (TestBrokerOptions_Unsupported)
	{"sendThreadPoolQueueCapacity", "77", func(o *broker.Options) bool { return o.SendThreadPoolQueueCapacity == 77 }},
	{"pullThreadPoolQueueCapacity", "88", func(o *broker.Options) bool { return o.PullThreadPoolQueueCapacity == 88 }},
	{"longPollingEnable", "false", func(o *broker.Options) bool { return !o.LongPollingEnable }},
	{"shortPollingTimeMills", "250", func(o *broker.Options) bool { return o.ShortPollingTime == 250*time.Millisecond }},
	{"notifyConsumerIdsChangedEnable", "false", func(o *broker.Options) bool { return !o.NotifyConsumerIdsChangedEnable }},
	{"regionId", "R9", func(o *broker.Options) bool { return o.RegionID == "R9" }},
	{"registerBrokerTimeoutMills", "1500", func(o *broker.Options) bool { return o.RegisterBrokerTimeout == 1500*time.Millisecond }},
	{"slaveReadEnable", "true", func(o *broker.Options) bool { return o.SlaveReadEnable }},
	{"brokerFastFailureEnable", "false", func(o *broker.Options) bool { return o.WaitTimeInSendQueue == 0 && o.WaitTimeInPullQueue == 0 }},
	{"waitTimeMillsInSendQueue", "321", func(o *broker.Options) bool { return o.WaitTimeInSendQueue == 321*time.Millisecond }},
	{"waitTimeMillsInPullQueue", "4321", func(o *broker.Options) bool { return o.WaitTimeInPullQueue == 4321*time.Millisecond }},
	{"startAcceptSendRequestTimeStamp", "1700000000123", func(o *broker.Options) bool {
		return o.StartAcceptSendRequestTime.Equal(time.UnixMilli(1700000000123))
	}},
	{"traceOn", "false", func(o *broker.Options) bool { return !o.TraceOn }},
	{"enablePropertyFilter", "true", func(o *broker.Options) bool { return o.EnablePropertyFilter }},
	{"filterSupportRetry", "true", func(o *broker.Options) bool { return o.FilterSupportRetry }},
	{"filterDataCleanTimeSpan", "60000", func(o *broker.Options) bool { return o.FilterDataCleanTimeSpan == time.Minute }},
	{"maxErrorRateOfBloomFilter", "5", func(o *broker.Options) bool { return o.MaxErrorRateOfBloomFilter == 5 }},
	{"expectConsumerNumUseFilter", "64", func(o *broker.Options) bool { return o.ExpectConsumerNumUseFilter == 64 }},
	{"compressedRegister", "true", func(o *broker.Options) bool { return o.CompressedRegister }},
	{"forceRegister", "false", func(o *broker.Options) bool { return !o.ForceRegister }},
	{"registerNameServerPeriod", "15000", func(o *broker.Options) bool { return o.RegisterNameServerPeriod == 15*time.Second }},
	{"aclEnable", "true", func(o *broker.Options) bool { return o.Config.Broker.ACLEnable }},
	// MessageStoreConfig
	{"storePathRootDir", "/data/rmq", func(o *broker.Options) bool {
		return o.Store.RootDir == "/data/rmq" && o.Store.CommitLogDir == "/data/rmq/commitlog"
	}},
	{"storePathCommitLog", "/fast/commitlog", func(o *broker.Options) bool { return o.Store.CommitLogDir == "/fast/commitlog" }},
	{"readOnlyCommitLogStorePaths", "", func(o *broker.Options) bool { return true }}, // non-empty is refused
	{"mappedFileSizeCommitLog", "1048576", func(o *broker.Options) bool { return o.Store.MappedFileSizeCommitLog == 1<<20 }},
	{"mappedFileSizeConsumeQueue", "1001", func(o *broker.Options) bool { return o.Store.MappedFileSizeConsumeQueue == 1020 }}, // rounded up to 20-byte units
	{"flushIntervalCommitLog", "50", func(o *broker.Options) bool { return o.Store.FlushInterval == 50*time.Millisecond }},
	{"flushIntervalConsumeQueue", "60", func(o *broker.Options) bool { return o.Store.FlushConsumeQueueInterval == 60*time.Millisecond }},
	{"cleanResourceInterval", "70", func(o *broker.Options) bool { return o.Store.CleanResourceInterval == 70*time.Millisecond }},
	{"deleteCommitLogFilesInterval", "80", func(o *broker.Options) bool { return o.Store.DeleteCommitLogFilesInterval == 80*time.Millisecond }},
	{"deleteConsumeQueueFilesInterval", "90", func(o *broker.Options) bool {
		return o.Store.DeleteConsumeQueueFilesInterval == 90*time.Millisecond
	}},
	{"deleteWhen", "01;13", func(o *broker.Options) bool { return o.Store.DeleteWhen == "01;13" }},
	{"diskMaxUsedSpaceRatio", "99", func(o *broker.Options) bool { return o.Store.DiskMaxUsedSpaceRatio == 95 }}, // Java clamps to 10..95
	{"fileReservedTime", "12", func(o *broker.Options) bool { return o.Store.FileReservedTime == 12*time.Hour }},
	{"maxMessageSize", "1024", func(o *broker.Options) bool { return o.Store.MaxMessageSize == 1024 }},
	{"checkCRCOnRecover", "false", func(o *broker.Options) bool { return !o.Store.CheckCRCOnRecover }},
	{"flushCommitLogLeastPages", "9", func(o *broker.Options) bool { return o.Store.FlushCommitLogLeastPages == 9 }},
	{"flushConsumeQueueLeastPages", "8", func(o *broker.Options) bool { return o.Store.FlushConsumeQueueLeastPages == 8 }},
	{"flushCommitLogThoroughInterval", "111", func(o *broker.Options) bool {
		return o.Store.FlushCommitLogThoroughInterval == 111*time.Millisecond
	}},
	{"flushConsumeQueueThoroughInterval", "222", func(o *broker.Options) bool {
		return o.Store.FlushConsumeQueueThoroughInterval == 222*time.Millisecond
	}},
	{"maxTransferBytesOnMessageInMemory", "1000", func(o *broker.Options) bool { return o.Store.MaxTransferBytesOnMessageInMemory == 1000 }},
	{"maxTransferCountOnMessageInMemory", "11", func(o *broker.Options) bool { return o.Store.MaxTransferCountOnMessageInMemory == 11 }},
	{"maxTransferBytesOnMessageInDisk", "2000", func(o *broker.Options) bool { return o.Store.MaxTransferBytesOnMessageInDisk == 2000 }},
	{"maxTransferCountOnMessageInDisk", "12", func(o *broker.Options) bool { return o.Store.MaxTransferCountOnMessageInDisk == 12 }},
	{"accessMessageInMemoryMaxRatio", "33", func(o *broker.Options) bool { return o.Store.AccessMessageInMemoryMaxRatio == 33 }},
	{"accessMessageInMemoryMaxRatio", "0", func(o *broker.Options) bool { return o.Store.AccessMessageInMemoryMaxRatio < 0 }}, // Java: 0 is every message on disk, not the default
	{"messageIndexEnable", "false", func(o *broker.Options) bool { return !o.Store.MessageIndexEnable }},
	{"maxHashSlotNum", "1000", func(o *broker.Options) bool { return o.Store.MaxHashSlotNum == 1000 }},
	{"maxIndexNum", "4000", func(o *broker.Options) bool { return o.Store.MaxIndexNum == 4000 }},
	{"maxMsgsNumBatch", "16", func(o *broker.Options) bool { return o.Store.MaxMsgsNumBatch == 16 }},
	{"haListenPort", "1", func(o *broker.Options) bool { return o.HAPort == 20912 }}, // Resolve: listenPort+1 (listenPort is 20911 in the test)
	{"brokerRole", "SYNC_MASTER", func(o *broker.Options) bool { return o.Role == broker.RoleSyncMaster && !o.Store.Slave }},
	{"flushDiskType", "SYNC_FLUSH", func(o *broker.Options) bool { return o.Store.FlushDiskType == store.SyncFlush }},
	{"syncFlushTimeout", "1500", func(o *broker.Options) bool { return o.Store.SyncFlushTimeout == 1500*time.Millisecond }},
	{"messageDelayLevel", "1s 2s", func(o *broker.Options) bool { return o.Store.MessageDelayLevel == "1s 2s" }},
	{"cleanFileForciblyEnable", "false", func(o *broker.Options) bool { return !o.Store.CleanFileForciblyEnable }},
	{"offsetCheckInSlave", "true", func(o *broker.Options) bool { return o.Store.OffsetCheckInSlave }},
	{"osPageCacheBusyTimeOutMills", "333", func(o *broker.Options) bool { return o.Store.OSPageCacheBusyTimeout == 333*time.Millisecond }},
	{"defaultQueryMaxNum", "13", func(o *broker.Options) bool { return o.Store.DefaultQueryMaxNum == 13 }},
	{"enableDLegerCommitLog", "false", func(o *broker.Options) bool { return true }}, // true is refused
}

// propKeys lists the property names of a config struct, from the configs prop tags.
func propKeys(target any) []string {
	t := reflect.TypeOf(target).Elem()
	var keys []string
	for i := range t.NumField() {
		if tag, ok := t.Field(i).Tag.Lookup("prop"); ok && tag != "-" {
			keys = append(keys, strings.Split(tag, ",")[0])
		}
	}
	return keys
}

func resolvedBroker(t *testing.T, props map[string]string) *configs.Broker {
	t.Helper()
	b := configs.NewBroker()
	if _, err := b.Load(props); err != nil {
		t.Fatal(err)
	}
	if err := b.Resolve(); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBrokerOptions_EachPropertyMapped(t *testing.T) {
	for _, m := range brokerMapped {
		props := map[string]string{m.key: m.value}
		if m.key == "haListenPort" {
			props["listenPort"] = "20911"
		}
		if m.key == "brokerId" {
			props["brokerRole"] = "SLAVE" // masters get brokerId 0 from Resolve
		}
		o, err := BrokerOptions(resolvedBroker(t, props))
		if err != nil {
			t.Fatalf("%s=%s: %v", m.key, m.value, err)
		}
		if !m.ok(&o) {
			t.Errorf("%s=%s not mapped: %+v", m.key, m.value, o)
		}
	}
}

func TestBrokerOptions_EveryPropertyMappedOrListed(t *testing.T) {
	mapped := map[string]bool{}
	for _, m := range brokerMapped {
		mapped[m.key] = true
	}
	b := configs.NewBroker()
	seen := map[string]bool{}
	for _, target := range b.Targets() {
		for _, k := range propKeys(target) {
			seen[k] = true
			_, listed := brokerIneffective[k]
			switch {
			case mapped[k] && listed:
				t.Errorf("%s is both mapped and listed as ineffective", k)
			case !mapped[k] && !listed:
				t.Errorf("%s (%T) is neither mapped by BrokerOptions nor listed in brokerIneffective", k, target)
			}
		}
	}
	for k := range brokerIneffective {
		if !seen[k] {
			t.Errorf("brokerIneffective lists %s, which no config has", k)
		}
	}
	for k := range mapped {
		if !seen[k] {
			t.Errorf("brokerMapped tests %s, which no config has", k)
		}
	}
}

// A new field in broker.Options or store.Config most likely wants a property mapped
// onto it: this test lists the fields broker.OptionsFrom knows and fails on any other.
func TestBrokerOptions_KnowsEveryOptionsField(t *testing.T) {
	known := map[string][]string{
		"broker.Options": {"ListenAddr", "BrokerIP1", "BrokerIP2", "HAPort", "ClusterName", "BrokerName",
			"BrokerID", "Role", "NamesrvAddrs", "BrokerPermission", "DefaultTopicQueueNums", "AutoCreateTopicEnable",
			"ClusterTopicEnable", "BrokerTopicEnable", "AutoCreateSubscriptionGroup", "TraceTopicEnable", "MsgTraceTopicName",
			"RegionID", "TraceOn", "NotifyConsumerIdsChangedEnable", "EnablePropertyFilter", "RejectTransactionMessage",
			"FilterSupportRetry", "FilterDataCleanTimeSpan", "MaxErrorRateOfBloomFilter", "ExpectConsumerNumUseFilter",
			"StoreReplyMessageEnable", "TransactionTimeOut", "TransactionCheckMax", "TransactionCheckInterval",
			"LongPollingEnable", "ShortPollingTime", "SlaveReadEnable", "RegisterNameServerPeriod", "RegisterBrokerTimeout",
			"ForceRegister", "CompressedRegister", "FlushConsumerOffsetInterval", "StartAcceptSendRequestTime",
			"SendThreadPoolQueueCapacity", "WaitTimeInSendQueue", "PullThreads", "PullThreadPoolQueueCapacity",
			"WaitTimeInPullQueue", "AdminThreads",
			"EnableVIP",                             // no Java property: Java always serves the VIP port
			"EventLoops",                            // gnet's loops: no Java property (Netty's selector threads differ in kind)
			"Transport",                             // set by BrokerOptions (TransportOptions)
			"HA", "HAMasterAddress", "SlaveTimeout", // haSendHeartbeatInterval, haHousekeepingInterval, haTransferBatchSize, haSlaveFallbehindMax, haMasterAddress, slaveTimeout
			"SlaveSyncPeriod", // no Java property: SlaveSynchronize runs every 10 s
			"Store", "Logger",
			"Config",           // the snapshot the options came from, for GET/UPDATE_BROKER_CONFIG
			"ACLPlainFile",     // Java's system property -Drocketmq.acl.plain.file, not a broker.conf property
			"ACLWatchInterval", // no Java property: AclFileWatchService looks every 5 s
			"Timer"},           // 5.x's timer properties, read from the file's properties by configs.TimerFrom (configs/timer.go)
		"store.Config": {"RootDir", "CommitLogDir", "MappedFileSizeCommitLog", "MappedFileSizeConsumeQueue", "FlushDiskType",
			"FlushInterval", "FlushCommitLogLeastPages", "FlushCommitLogThoroughInterval", "FlushConsumeQueueInterval",
			"FlushConsumeQueueLeastPages", "FlushConsumeQueueThoroughInterval", "SyncFlushTimeout", "FileReservedTime",
			"DeleteWhen", "DiskMaxUsedSpaceRatio",
			"DiskSpaceWarningLevelRatio", "DiskSpaceCleanForciblyRatio", // Java system properties, not MessageStoreConfig
			"CleanFileForciblyEnable", "CleanResourceInterval", "DeleteCommitLogFilesInterval",
			"DeleteConsumeQueueFilesInterval", "MaxMessageSize", "CheckCRCOnRecover", "MessageIndexEnable", "MaxHashSlotNum",
			"MaxIndexNum", "MaxMsgsNumBatch", "DefaultQueryMaxNum", "MessageDelayLevel", "MaxTransferBytesOnMessageInMemory",
			"MaxTransferCountOnMessageInMemory", "MaxTransferBytesOnMessageInDisk", "MaxTransferCountOnMessageInDisk",
			"AccessMessageInMemoryMaxRatio", "OSPageCacheBusyTimeout", "Slave",
			"ReadOnly",                       // no Java property
			"DisableFilePreAllocation",       // no Java property: Java always pre-allocates (AllocateMappedFileService)
			"DisablePageWarming",             // no Java property: always-on ahead-of-write warming replaces warmMapedFileEnable
			"DisableZeroFill",                // no Java property: SYNC_FLUSH zero-fills the next CommitLog file (store/zerofill.go)
			"DisableWriteback",               // no Java property: ASYNC_FLUSH starts the writeback between flushes (store/flush.go)
			"CommitLogWrite",                 // no Java property: pwrite+fdatasync under SYNC_FLUSH, the mapping otherwise (store/config.go)
			"OffsetCheckInSlave", "OnArrive", // OnArrive is set by the broker
			"OnRecoveryProgress", // set by StartNode for /healthz (http.go)
			"Logger"},
	}
	for name, typ := range map[string]reflect.Type{
		"broker.Options": reflect.TypeFor[broker.Options](),
		"store.Config":   reflect.TypeFor[store.Config](),
	} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.IsExported() && !slices.Contains(known[name], f.Name) {
				t.Errorf("%s.%s is new: map a property onto it in broker.OptionsFrom (options_from.go) or list it here", name, f.Name)
			}
		}
	}
}

func TestBrokerOptions_Defaults(t *testing.T) {
	t.Setenv("NAMESRV_ADDR", "")
	b := resolvedBroker(t, nil)
	o, err := BrokerOptions(b)
	if err != nil {
		t.Fatal(err)
	}
	if o.ListenAddr != "0.0.0.0:10911" || o.HAPort != 10912 || !o.EnableVIP {
		t.Errorf("ports: listen %s HA %d VIP %v, want 0.0.0.0:10911, 10912, true", o.ListenAddr, o.HAPort, o.EnableVIP)
	}
	if o.Role != broker.RoleAsyncMaster || o.Store.FlushDiskType != store.AsyncFlush || o.EnablePropertyFilter {
		t.Errorf("role %v flush %v propertyFilter %v, want ASYNC_MASTER ASYNC_FLUSH false", o.Role, o.Store.FlushDiskType, o.EnablePropertyFilter)
	}
	if o.Store.MappedFileSizeCommitLog != 1<<30 || o.Store.MappedFileSizeConsumeQueue != 6000000 ||
		o.Store.FileReservedTime != 72*time.Hour || o.Store.FlushInterval != 500*time.Millisecond ||
		o.Store.MaxIndexNum != 20000000 || !o.Store.MessageIndexEnable || !o.Store.CheckCRCOnRecover {
		t.Errorf("store defaults differ from Java's: %+v", o.Store)
	}
	if o.WaitTimeInSendQueue != 200*time.Millisecond || o.WaitTimeInPullQueue != 5*time.Second {
		t.Errorf("fast failure waits %v/%v, want 200ms/5s", o.WaitTimeInSendQueue, o.WaitTimeInPullQueue)
	}
	if want := 16 + 2*runtime.NumCPU(); o.PullThreads != want { // Java: pullMessageThreadPoolNums
		t.Errorf("pull threads %d, want 16+2*cores = %d", o.PullThreads, want)
	}
	if len(o.NamesrvAddrs) != 0 {
		t.Errorf("namesrv %v, want none", o.NamesrvAddrs)
	}
}

func TestBrokerOptions_NamesrvAddrFromEnvironment(t *testing.T) {
	t.Setenv("NAMESRV_ADDR", "127.0.0.1:9876;127.0.0.2:9876")
	o, err := BrokerOptions(resolvedBroker(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.NamesrvAddrs, []string{"127.0.0.1:9876", "127.0.0.2:9876"}) {
		t.Errorf("namesrv %v", o.NamesrvAddrs)
	}
	// The file wins over the environment, as in Java.
	o, err = BrokerOptions(resolvedBroker(t, map[string]string{"namesrvAddr": "10.0.0.9:9876"}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.NamesrvAddrs, []string{"10.0.0.9:9876"}) {
		t.Errorf("namesrv %v, want the file's", o.NamesrvAddrs)
	}
}

func TestBrokerOptions_Slave(t *testing.T) {
	o, err := BrokerOptions(resolvedBroker(t, map[string]string{"brokerRole": "SLAVE", "brokerId": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	if o.Role != broker.RoleSlave || !o.Store.Slave || o.BrokerID != 1 {
		t.Errorf("role %v store slave %v id %d", o.Role, o.Store.Slave, o.BrokerID)
	}
}

func TestBrokerOptions_Unsupported(t *testing.T) {
	for _, props := range []map[string]string{
		{"enableDLegerCommitLog": "true"},
		{"fetchNamesrvAddrByAddressServer": "true"},
		{"readOnlyCommitLogStorePaths": "/old/commitlog"},
		{"storePathCommitLog": "/a/commitlog,/b/commitlog"},
	} {
		_, err := BrokerOptions(resolvedBroker(t, props))
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("%v: err = %v, want ErrUnsupported", props, err)
			continue
		}
		for k := range props {
			if !strings.Contains(err.Error(), k) {
				t.Errorf("%v: error %q does not name the property", props, err)
			}
		}
	}
}

func TestIneffectiveBrokerProperties_OnlyChangedDefaults(t *testing.T) {
	b := configs.NewBroker()
	if _, err := b.Load(map[string]string{
		"transientStorePoolEnable": "true",  // changed, no effect: reported
		"warmMapedFileEnable":      "false", // Java's default: not reported
		"brokerName":               "b",     // mapped: not reported
		"serverWorkerThreads":      "16",    // changed, no effect: reported
	}); err != nil {
		t.Fatal(err)
	}
	got := IneffectiveBrokerProperties(b)
	var keys []string
	for _, g := range got {
		keys = append(keys, g.Key)
		if g.Reason == "" {
			t.Errorf("%s: no reason", g.Key)
		}
	}
	if !slices.Equal(keys, []string{"serverWorkerThreads", "transientStorePoolEnable"}) {
		t.Errorf("ineffective = %v", keys)
	}
}

func TestSplitNamesrvAddr(t *testing.T) {
	cases := map[string][]string{
		"":                    nil,
		"a:1":                 {"a:1"},
		"a:1;b:2;":            {"a:1", "b:2"},
		" a:1 ; ;b:2":         {"a:1", "b:2"},
		"127.0.0.1:9876;;x:9": {"127.0.0.1:9876", "x:9"},
	}
	for in, want := range cases {
		if got := broker.SplitNamesrvAddr(in); !slices.Equal(got, want) {
			t.Errorf("SplitNamesrvAddr(%q) = %v, want %v", in, got, want)
		}
	}
}

// broker.DefaultOptions derives from configs' defaults through the same mapping, and
// its Config is a copy of the configuration it came from.
func TestBrokerOptions_DefaultOptionsDeriveFromConfigs(t *testing.T) {
	t.Setenv("NAMESRV_ADDR", "") // BrokerOptions' fallback; DefaultOptions has no NameServer
	root := t.TempDir()
	cfg := broker.DefaultConfig(root)
	want, err := BrokerOptions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := broker.DefaultOptions(root)
	if got.HAPort != 0 || got.BrokerIP2 != "" {
		t.Errorf("HAPort %d BrokerIP2 %q, want both left for New to derive", got.HAPort, got.BrokerIP2)
	}
	if got.Config == nil || string(got.Config.PropertiesText()) != string(cfg.PropertiesText()) {
		t.Fatal("DefaultOptions' Config is not DefaultConfig's snapshot")
	}
	if want.Config == cfg {
		t.Error("the options share the caller's configuration instead of a copy")
	}
	got.Config, want.Config = nil, nil
	// Transport comes from BrokerOptions (TransportOptions): DefaultOptions, for tests and
	// embedding, has no TLS; want has the test-mode certificate just generated.
	if want.Transport.TLS.Mode != remoting.TLSPermissive || want.Transport.TLS.Config == nil {
		t.Errorf("BrokerOptions' default TLS = %+v, want permissive with a test-mode certificate", want.Transport.TLS)
	}
	want.Transport = got.Transport
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultOptions differ from the mapping of DefaultConfig:\n got %+v\nwant %+v", got, want)
	}
	if got.Store.RootDir != root || cfg.ConfigPath != filepath.Join(root, "config", "broker.properties") {
		t.Errorf("store %s, config path %s: want both under %s", got.Store.RootDir, cfg.ConfigPath, root)
	}
}
