package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/store"
)

// ErrUnsupported is returned by BrokerOptions when the configuration turns on a Java
// feature Skyrocket does not implement and whose absence clients would notice (a broker
// that silently skipped ACL checks or served only part of a multi-path CommitLog would be
// worse than one that refuses to start). Its text names the property.
var ErrUnsupported = errors.New("server: not supported by Skyrocket")

// BrokerOptions maps a resolved broker configuration (configs.Broker after LoadFile, -n
// and Resolve) onto broker.Options and the store.Config inside it. The listen address is
// 0.0.0.0:listenPort, as Java's Netty binds every interface; the VIP port is
// listenPort-2 and the HA port haListenPort (listenPort+1 after Resolve). namesrvAddr is
// split at ';' (its default already comes from $NAMESRV_ADDR, see
// configs.DefaultBrokerConfig; BrokerOptions falls back to the environment when it is
// empty). The Logger is left Nop: the caller sets it.
//
// Properties that have no effect are listed in ineffective.go (see IneffectiveProperties).
// ErrUnsupported is returned for enableDLegerCommitLog, aclEnable,
// fetchNamesrvAddrByAddressServer, readOnlyCommitLogStorePaths and a storePathCommitLog
// holding several paths.
//
// Java: BrokerStartup#createBrokerController and BrokerController's constructor, which
// hand the four config objects to the processors, executors and DefaultMessageStore.
func BrokerOptions(cfg *configs.Broker) (broker.Options, error) {
	if err := checkSupported(cfg); err != nil {
		return broker.Options{}, err
	}
	bc, sc := &cfg.Broker, &cfg.Store
	o := broker.DefaultOptions(sc.StorePathRootDir)

	// NettyServerConfig: Java binds the wildcard address (NettyRemotingServer#start).
	o.ListenAddr = net.JoinHostPort("0.0.0.0", strconv.Itoa(int(cfg.Server.ListenPort)))
	o.EnableVIP = true // Java always starts the fast (VIP) server on listenPort-2
	o.HAPort = int(sc.HaListenPort)

	// BrokerConfig.
	o.BrokerIP1 = bc.BrokerIP1
	o.BrokerIP2 = bc.BrokerIP2
	o.ClusterName = bc.BrokerClusterName
	o.BrokerName = bc.BrokerName
	o.BrokerID = bc.BrokerID
	o.NamesrvAddrs = SplitNamesrvAddr(bc.NamesrvAddr)
	if len(o.NamesrvAddrs) == 0 {
		o.NamesrvAddrs = SplitNamesrvAddr(os.Getenv("NAMESRV_ADDR"))
	}
	o.BrokerPermission = bc.BrokerPermission
	o.DefaultTopicQueueNums = bc.DefaultTopicQueueNums
	o.AutoCreateTopicEnable = bc.AutoCreateTopicEnable
	o.ClusterTopicEnable = bc.ClusterTopicEnable
	o.BrokerTopicEnable = bc.BrokerTopicEnable
	o.AutoCreateSubscriptionGroup = bc.AutoCreateSubscriptionGroup
	o.TraceTopicEnable = bc.TraceTopicEnable
	o.MsgTraceTopicName = bc.MsgTraceTopicName
	o.RegionID = bc.RegionID
	o.TraceOn = bc.TraceOn
	o.NotifyConsumerIdsChangedEnable = bc.NotifyConsumerIdsChangedEnable
	o.EnablePropertyFilter = bc.EnablePropertyFilter
	o.FilterSupportRetry = bc.FilterSupportRetry
	o.FilterDataCleanTimeSpan = millis(bc.FilterDataCleanTimeSpan)
	o.MaxErrorRateOfBloomFilter = bc.MaxErrorRateOfBloomFilter
	o.ExpectConsumerNumUseFilter = bc.ExpectConsumerNumUseFilter
	o.RejectTransactionMessage = bc.RejectTransactionMessage
	o.StoreReplyMessageEnable = bc.StoreReplyMessageEnable
	o.TransactionTimeOut = millis(bc.TransactionTimeOut)
	o.TransactionCheckMax = bc.TransactionCheckMax
	o.TransactionCheckInterval = millis(bc.TransactionCheckInterval)
	o.LongPollingEnable = bc.LongPollingEnable
	o.ShortPollingTime = millis(int64(bc.ShortPollingTimeMills))
	o.SlaveReadEnable = bc.SlaveReadEnable
	o.RegisterNameServerPeriod = millis(int64(bc.RegisterNameServerPeriod))
	o.RegisterBrokerTimeout = millis(int64(bc.RegisterBrokerTimeoutMills))
	o.ForceRegister = bc.ForceRegister
	o.CompressedRegister = bc.CompressedRegister
	o.FlushConsumerOffsetInterval = millis(int64(bc.FlushConsumerOffsetInterval))
	o.StartAcceptSendRequestTime = time.Time{}
	if ms := bc.StartAcceptSendRequestTimeStamp; ms > 0 {
		o.StartAcceptSendRequestTime = time.UnixMilli(ms)
	}

	// Pools (Java: BrokerController#initialize's executors and BrokerFastFailure).
	o.SendThreadPoolQueueCapacity = int(bc.SendThreadPoolQueueCapacity)
	o.PullThreads = int(bc.PullMessageThreadPoolNums)
	o.PullThreadPoolQueueCapacity = int(bc.PullThreadPoolQueueCapacity)
	o.AdminThreads = int(bc.AdminBrokerThreadPoolNums)
	o.WaitTimeInSendQueue, o.WaitTimeInPullQueue = 0, 0
	if bc.BrokerFastFailureEnable {
		o.WaitTimeInSendQueue = millis(bc.WaitTimeMillsInSendQueue)
		o.WaitTimeInPullQueue = millis(bc.WaitTimeMillsInPullQueue)
	}

	// MessageStoreConfig.
	switch sc.BrokerRole {
	case configs.SyncMaster:
		o.Role = broker.RoleSyncMaster
	case configs.Slave:
		o.Role = broker.RoleSlave
	default:
		o.Role = broker.RoleAsyncMaster
	}
	o.Store = StoreConfig(sc)
	o.HA.HeartbeatInterval = millis(int64(sc.HaSendHeartbeatInterval))
	o.HA.HousekeepingInterval = millis(int64(sc.HaHousekeepingInterval))
	o.HA.TransferBatchSize = int(sc.HaTransferBatchSize)
	o.HA.SlaveFallbehindMax = int64(sc.HaSlaveFallbehindMax)
	if len(sc.HaMasterAddress) >= 6 { // Java: BrokerController#initialize
		o.HAMasterAddress = sc.HaMasterAddress
	}
	o.SlaveTimeout = millis(int64(sc.SlaveTimeout))
	o.Config = cfg.Clone() // GET/UPDATE_BROKER_CONFIG, statistics settings
	return o, nil
}

// StoreConfig maps MessageStoreConfig onto store.Config (Java: DefaultMessageStore's
// reads of MessageStoreConfig). Java getters that compute a value are used where Java
// calls them: the CommitLog directory, the ConsumeQueue file size rounded to whole units,
// diskMaxUsedSpaceRatio clamped to 10..95. The disk warning and forced-clean ratios are
// not in MessageStoreConfig (Java reads system properties), so they keep the store's
// defaults (0.90, 0.85).
//
// The store replaces zero numeric settings with its defaults, where Java would take a
// zero literally (fileReservedTime=0, flushCommitLogLeastPages=0).
func StoreConfig(sc *configs.MessageStoreConfig) store.Config {
	c := store.DefaultConfig(sc.StorePathRootDir)
	c.CommitLogDir = sc.CommitLogDir()
	c.MappedFileSizeCommitLog = int64(sc.MappedFileSizeCommitLog)
	c.MappedFileSizeConsumeQueue = int64(sc.ConsumeQueueFileSize())

	c.FlushDiskType = store.AsyncFlush
	if sc.FlushDiskType == configs.SyncFlush {
		c.FlushDiskType = store.SyncFlush
	}
	c.FlushInterval = millis(int64(sc.FlushIntervalCommitLog))
	c.FlushCommitLogLeastPages = int(sc.FlushCommitLogLeastPages)
	c.FlushCommitLogThoroughInterval = millis(int64(sc.FlushCommitLogThoroughInterval))
	c.FlushConsumeQueueInterval = millis(int64(sc.FlushIntervalConsumeQueue))
	c.FlushConsumeQueueLeastPages = int(sc.FlushConsumeQueueLeastPages)
	c.FlushConsumeQueueThoroughInterval = millis(int64(sc.FlushConsumeQueueThoroughInterval))
	c.SyncFlushTimeout = millis(int64(sc.SyncFlushTimeout))

	c.FileReservedTime = time.Duration(sc.FileReservedTime) * time.Hour
	c.DeleteWhen = sc.DeleteWhen
	c.DiskMaxUsedSpaceRatio = int(sc.EffectiveDiskMaxUsedSpaceRatio())
	c.CleanFileForciblyEnable = sc.CleanFileForciblyEnable
	c.CleanResourceInterval = millis(int64(sc.CleanResourceInterval))
	c.DeleteCommitLogFilesInterval = millis(int64(sc.DeleteCommitLogFilesInterval))
	c.DeleteConsumeQueueFilesInterval = millis(int64(sc.DeleteConsumeQueueFilesInterval))

	c.MaxMessageSize = int(sc.MaxMessageSize)
	c.CheckCRCOnRecover = sc.CheckCRCOnRecover

	c.MessageIndexEnable = sc.MessageIndexEnable
	c.MaxHashSlotNum = int(sc.MaxHashSlotNum)
	c.MaxIndexNum = int(sc.MaxIndexNum)
	c.MaxMsgsNumBatch = int(sc.MaxMsgsNumBatch)
	c.DefaultQueryMaxNum = int(sc.DefaultQueryMaxNum)

	c.MessageDelayLevel = sc.MessageDelayLevel

	c.MaxTransferBytesOnMessageInMemory = int(sc.MaxTransferBytesOnMessageInMemory)
	c.MaxTransferCountOnMessageInMemory = int(sc.MaxTransferCountOnMessageInMemory)
	c.MaxTransferBytesOnMessageInDisk = int(sc.MaxTransferBytesOnMessageInDisk)
	c.MaxTransferCountOnMessageInDisk = int(sc.MaxTransferCountOnMessageInDisk)
	c.AccessMessageInMemoryMaxRatio = int(sc.AccessMessageInMemoryMaxRatio)

	c.OSPageCacheBusyTimeout = millis(sc.OsPageCacheBusyTimeOutMills)
	c.OffsetCheckInSlave = sc.OffsetCheckInSlave
	c.Slave = sc.BrokerRole == configs.Slave
	return c
}

// SplitNamesrvAddr splits a ";"-separated NameServer list, dropping empty entries and
// surrounding blanks (Java: TopAddressing / NettyRemotingClient#updateNameServerAddressList
// take the split list as it is; Java's split drops trailing empties).
func SplitNamesrvAddr(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ";") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// checkSupported refuses the features whose absence clients would notice.
func checkSupported(cfg *configs.Broker) error {
	switch {
	case cfg.Store.EnableDLegerCommitLog:
		return fmt.Errorf("%w: enableDLegerCommitLog=true (DLedger CommitLog)", ErrUnsupported)
	case cfg.Broker.ACLEnable:
		return fmt.Errorf("%w: aclEnable=true (ACL is not implemented; refusing to serve without the access checks the configuration asks for)", ErrUnsupported)
	case cfg.Broker.FetchNamesrvAddrByAddressServer:
		return fmt.Errorf("%w: fetchNamesrvAddrByAddressServer=true (address server); set namesrvAddr or -n instead", ErrUnsupported)
	case cfg.Store.ReadOnlyCommitLogStorePaths != "":
		return fmt.Errorf("%w: readOnlyCommitLogStorePaths (multi-path CommitLog)", ErrUnsupported)
	case strings.Contains(cfg.Store.StorePathCommitLog, ","):
		return fmt.Errorf("%w: storePathCommitLog with several paths %q (multi-path CommitLog)", ErrUnsupported, cfg.Store.StorePathCommitLog)
	}
	return nil
}

func millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
