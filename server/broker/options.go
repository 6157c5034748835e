package broker

import (
	"path/filepath"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/ha"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

// Role is the broker role (Java: BrokerRole).
type Role int

const (
	RoleAsyncMaster Role = iota // ASYNC_MASTER, the default
	RoleSyncMaster              // SYNC_MASTER
	RoleSlave                   // SLAVE
)

func (r Role) String() string {
	switch r {
	case RoleSyncMaster:
		return "SYNC_MASTER"
	case RoleSlave:
		return "SLAVE"
	}
	return "ASYNC_MASTER"
}

// Options are the broker's runtime settings, with Java's BrokerConfig / NettyServerConfig
// names and defaults in the comments. They are derived once from a configuration by
// OptionsFrom (options_from.go), the only mapping; DefaultOptions derives them from
// Java's defaults, which are written only in package configs.
type Options struct {
	ListenAddr string // host:listenPort (10911); the VIP server listens on listenPort-2
	EnableVIP  bool   // serve the VIP port (Java always does)
	BrokerIP1  string // advertised address: registration, store host, msgIds
	BrokerIP2  string // HA address advertised to slaves (default BrokerIP1)
	HAPort     int    // haListenPort = listenPort+1

	ClusterName  string // brokerClusterName
	BrokerName   string // brokerName
	BrokerID     int64  // brokerId, 0 = master
	Role         Role   // brokerRole
	NamesrvAddrs []string

	BrokerPermission               int32 // 6
	DefaultTopicQueueNums          int32 // 8
	AutoCreateTopicEnable          bool  // true
	ClusterTopicEnable             bool  // true
	BrokerTopicEnable              bool  // true
	AutoCreateSubscriptionGroup    bool  // true
	TraceTopicEnable               bool  // false
	MsgTraceTopicName              string
	RegionID                       string        // DefaultRegion
	TraceOn                        bool          // true
	NotifyConsumerIdsChangedEnable bool          // true
	EnablePropertyFilter           bool          // false in Java; the sample config and skyrocket enable it
	FilterSupportRetry             bool          // false: SQL92 filters also apply to %RETRY% pulls
	FilterDataCleanTimeSpan        time.Duration // 24 h: dead SQL92 filter data kept this long
	MaxErrorRateOfBloomFilter      int32         // 20: sizes the SQL92 filters' bloom data
	ExpectConsumerNumUseFilter     int32         // 32: sizes the SQL92 filters' bloom data
	RejectTransactionMessage       bool
	StoreReplyMessageEnable        bool          // true
	TransactionTimeOut             time.Duration // transactionTimeOut 6 s: younger half messages are not checked back
	TransactionCheckMax            int32         // transactionCheckMax 15: checks before a half message is discarded
	TransactionCheckInterval       time.Duration // transactionCheckInterval 60 s between check rounds
	LongPollingEnable              bool          // true
	ShortPollingTime               time.Duration // 1 s
	SlaveReadEnable                bool
	RegisterNameServerPeriod       time.Duration // 30 s (clamped to 10..60 s)
	RegisterBrokerTimeout          time.Duration // 6 s
	ForceRegister                  bool          // true
	CompressedRegister             bool          // false
	FlushConsumerOffsetInterval    time.Duration // 5 s
	StartAcceptSendRequestTime     time.Time

	// Pools: workers and the longest wait in the queue before SYSTEM_BUSY (BrokerFastFailure).
	SendThreadPoolQueueCapacity int           // 10000
	WaitTimeInSendQueue         time.Duration // waitTimeMillsInSendQueue 200 ms
	PullThreads                 int           // pullMessageThreadPoolNums 16+2*cores
	PullThreadPoolQueueCapacity int           // 100000
	WaitTimeInPullQueue         time.Duration // 5 s
	AdminThreads                int           // 16
	EventLoops                  int
	Transport                   remoting.Transport // connection limits, TLS of the listeners and of the outbound client (server.TransportOptions)

	// Replication (MessageStoreConfig's ha* keys; ha/): HA.ListenAddr is derived from
	// HAPort unless set (tests bind port 0). HAMasterAddress, when set, is the HA address a slave follows instead of the
	// one the NameServer names (haMasterAddress). SlaveTimeout bounds a SYNC_MASTER send's
	// wait for a slave's ack (slaveTimeout, 3 s, 4.9.3+). SlaveSyncPeriod is how often a
	// slave copies its master's metadata (Java: 10 s, first after 3 s; not a Java key).
	HA              ha.Config
	HAMasterAddress string
	SlaveTimeout    time.Duration
	SlaveSyncPeriod time.Duration

	Store  store.Config
	Timer  configs.Timer // timer messages (timer.go), a Skyrocket extension
	Logger zerolog.Logger

	// Config is the configuration snapshot the options were derived from (OptionsFrom,
	// DefaultOptions; never nil there, and New refuses nil): GET_BROKER_CONFIG reports it,
	// UPDATE_BROKER_CONFIG replaces it with an updated copy and persists that to its
	// ConfigPath, and the statistics read enableDetailStat, enableScheduleMessageStats and
	// autoDeleteUnusedStats from it. It is never changed in place. Typed fields changed
	// after the derivation (tests, cmd's -bind) act on the broker but are not reported.
	Config *configs.Broker

	// ACLPlainFile is plain_acl.yml's path relative to rocketmqHome when aclEnable=true
	// (Java: -Drocketmq.acl.plain.file; default conf/plain_acl.yml).
	ACLPlainFile string
	// ACLWatchInterval is how often the ACL files are looked at for changes (Java: 5 s).
	ACLWatchInterval time.Duration
}

// configDir is <storePathRootDir>/config (Java: BrokerPathConfigHelper).
func (o *Options) configPath(name string) string {
	return filepath.Join(o.Store.RootDir, "config", name)
}
