package broker

// The one mapping from the configuration (configs.Broker: Java's BrokerConfig,
// NettyServerConfig, NettyClientConfig and MessageStoreConfig, with Java's property names
// and defaults) onto the typed Options the broker runs on, once, when the options are
// built. Java's defaults are written
// only in configs; DefaultOptions derives from them through OptionsFrom. The only typed
// defaults are the Skyrocket settings no Java property has (baseOptions, and the store's
// Disable* switches of store.DefaultConfig).
//
// Java: BrokerStartup#createBrokerController and BrokerController's constructor, which
// hand the four config objects to the processors, executors and DefaultMessageStore.

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/ha"
	"github.com/skyrocket-mq/skyrocket/store"
)

// ErrUnsupported is returned by OptionsFrom when the configuration turns on a Java
// feature Skyrocket does not implement and whose absence clients would notice (a broker
// that served only part of a multi-path CommitLog would be
// worse than one that refuses to start). Its text names the property; mqbroker prints it,
// and it still reads as it did when the mapping lived in package server.
var ErrUnsupported = errors.New("server: not supported by Skyrocket")

// DefaultConfig is the configuration of a broker embedded in a program or a test:
// Java's defaults (configs.NewBroker) with the store under root, and these differences,
// each because an embedded broker must work without further configuration and without
// touching anything outside root:
//   - UPDATE_BROKER_CONFIG persists to <root>/config/broker.properties, not the user's home;
//   - brokerIP1 is 127.0.0.1, not the host's first address;
//   - brokerIP2 is empty and haListenPort 0: New derives them from brokerIP1 and the
//     listen port (listenPort+1, as Resolve does), so a caller that changes
//     Options.ListenAddr or BrokerIP1 moves them along;
//   - no NameServer ($NAMESRV_ADDR is not read).
//
// cmd/ starts from configs.NewBroker instead.
func DefaultConfig(root string) *configs.Broker {
	c := configs.NewBroker()
	c.Store.StorePathRootDir = root
	c.ConfigPath = filepath.Join(root, "config", "broker.properties")
	c.Broker.BrokerIP1, c.Broker.BrokerIP2 = "127.0.0.1", ""
	c.Store.HaListenPort = 0
	c.Broker.NamesrvAddr = ""
	return c
}

// DefaultOptions returns OptionsFrom(DefaultConfig(root)): Java's defaults, as written
// in package configs, with the store under root. Options.Config is that configuration:
// GET_BROKER_CONFIG reports it, and typed fields a caller changes afterwards are not
// reflected there (set the property on a DefaultConfig and use MustOptionsFrom for that).
func DefaultOptions(root string) Options {
	return MustOptionsFrom(DefaultConfig(root))
}

// baseOptions are the settings no Java property has.
func baseOptions() Options {
	return Options{
		EnableVIP:       true,             // Java always starts the fast (VIP) server on listenPort-2
		EventLoops:      0,                // gnet's default (one per core); Netty's selector threads differ in kind
		SlaveSyncPeriod: 10 * time.Second, // SlaveSynchronize's period (Java: fixed 10 s)
		HA:              ha.DefaultConfig(),
		Timer:           configs.DefaultTimer(),
	}
}

// OptionsFrom maps a configuration (configs.Broker after Load and Resolve) onto Options
// and the store.Config inside it, and keeps cfg as Options.Config, the snapshot
// GET_BROKER_CONFIG reports and UPDATE_BROKER_CONFIG replaces. cfg must not be changed
// afterwards (configs.Broker.Update returns a new one). The listen address is
// 0.0.0.0:listenPort, as Java's Netty binds every interface; the VIP port is
// listenPort-2 and the HA port haListenPort (listenPort+1 after Resolve). namesrvAddr is
// split at ';'. The Logger is left Nop: the caller sets it.
//
// Properties that have no effect are listed in server/ineffective.go. ErrUnsupported is
// returned for enableDLegerCommitLog, fetchNamesrvAddrByAddressServer,
// readOnlyCommitLogStorePaths and a storePathCommitLog holding several paths.
func OptionsFrom(cfg *configs.Broker) (Options, error) {
	if err := checkSupported(cfg); err != nil {
		return Options{}, err
	}
	bc, sc := &cfg.Broker, &cfg.Store
	o := baseOptions()

	// NettyServerConfig: Java binds the wildcard address (NettyRemotingServer#start).
	o.ListenAddr = net.JoinHostPort("0.0.0.0", strconv.Itoa(int(cfg.Server.ListenPort)))
	o.HAPort = int(sc.HaListenPort)

	// BrokerConfig.
	o.BrokerIP1 = bc.BrokerIP1
	o.BrokerIP2 = bc.BrokerIP2
	o.ClusterName = bc.BrokerClusterName
	o.BrokerName = bc.BrokerName
	o.BrokerID = bc.BrokerID
	o.NamesrvAddrs = SplitNamesrvAddr(bc.NamesrvAddr)
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
	if ms := bc.StartAcceptSendRequestTimeStamp; ms > 0 {
		o.StartAcceptSendRequestTime = time.UnixMilli(ms)
	}

	// Pools (Java: BrokerController#initialize's executors and BrokerFastFailure).
	o.SendThreadPoolQueueCapacity = int(bc.SendThreadPoolQueueCapacity)
	o.PullThreads = int(bc.PullMessageThreadPoolNums)
	o.PullThreadPoolQueueCapacity = int(bc.PullThreadPoolQueueCapacity)
	o.AdminThreads = int(bc.AdminBrokerThreadPoolNums)
	if bc.BrokerFastFailureEnable {
		o.WaitTimeInSendQueue = millis(bc.WaitTimeMillsInSendQueue)
		o.WaitTimeInPullQueue = millis(bc.WaitTimeMillsInPullQueue)
	}

	// MessageStoreConfig.
	switch sc.BrokerRole {
	case configs.SyncMaster:
		o.Role = RoleSyncMaster
	case configs.Slave:
		o.Role = RoleSlave
	default:
		o.Role = RoleAsyncMaster
	}
	o.Store = storeConfig(sc)
	o.HA.HeartbeatInterval = millis(int64(sc.HaSendHeartbeatInterval))
	o.HA.HousekeepingInterval = millis(int64(sc.HaHousekeepingInterval))
	o.HA.TransferBatchSize = int(sc.HaTransferBatchSize)
	o.HA.SlaveFallbehindMax = int64(sc.HaSlaveFallbehindMax)
	if len(sc.HaMasterAddress) >= 6 { // Java: BrokerController#initialize
		o.HAMasterAddress = sc.HaMasterAddress
	}
	o.SlaveTimeout = millis(int64(sc.SlaveTimeout))
	tc, err := configs.TimerFrom(cfg.FileProps)
	if err != nil {
		return Options{}, err
	}
	o.Timer = tc

	o.Config = cfg.Clone() // GET/UPDATE_BROKER_CONFIG, statistics settings
	return o, nil
}

// MustOptionsFrom is OptionsFrom for configurations known to be supported (Java's
// defaults, tests); it panics on ErrUnsupported.
func MustOptionsFrom(cfg *configs.Broker) Options {
	o, err := OptionsFrom(cfg)
	if err != nil {
		panic(err)
	}
	return o
}

// storeConfig maps MessageStoreConfig onto store.Config (Java: DefaultMessageStore's
// reads of MessageStoreConfig). Java getters that compute a value are used where Java
// calls them: the CommitLog directory, the ConsumeQueue file size rounded to whole units,
// diskMaxUsedSpaceRatio clamped to 10..95. The disk warning and forced-clean ratios are
// not in MessageStoreConfig (Java reads system properties), so they keep the store's
// defaults (0.90, 0.85), as do the Disable* switches, which no Java property has.
//
// The store replaces zero numeric settings with its defaults, where Java would take a
// zero literally (fileReservedTime=0, flushCommitLogLeastPages=0).
func storeConfig(sc *configs.MessageStoreConfig) store.Config {
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
	if c.AccessMessageInMemoryMaxRatio == 0 {
		c.AccessMessageInMemoryMaxRatio = -1 // an explicit 0: store.Config's 0 would mean the default 40
	}

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
