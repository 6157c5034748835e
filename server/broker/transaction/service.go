package transaction

import (
	"net/netip"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/store"
)

// The system topics and the group of the transaction work (Java: TopicValidator,
// TransactionalMessageUtil, MixAll.CID_SYS_RMQ_TRANS).
const (
	HalfTopic     = "RMQ_SYS_TRANS_HALF_TOPIC"    // half messages, queue 0
	OpHalfTopic   = "RMQ_SYS_TRANS_OP_HALF_TOPIC" // op messages: the half offsets done
	CheckMaxTopic = "TRANS_CHECK_MAX_TIME_TOPIC"  // half messages checked too often
	// CheckGroup is the internal consumer group whose offsets on the half and op queues
	// are the check's progress.
	CheckGroup = "CID_RMQ_SYS_TRANS"

	// removeTag tags op messages (Java: TransactionalMessageUtil.REMOVETAG).
	removeTag = "d"
)

// Topics is the part of the broker's topic table the service uses (the broker's
// TopicManager): the half topic is created on the first check round and
// TRANS_CHECK_MAX_TIME_TOPIC on the first discard, as Java does.
type Topics interface {
	Get(topic string) (protocol.TopicConfig, bool)
	// CreateIfAbsent creates a topic unless it exists and reports whether it created it.
	CreateIfAbsent(topic string, queueNums, perm, sysFlag int32) (protocol.TopicConfig, bool)
}

// Offsets is the part of the broker's consumer offset table the service uses (the
// broker's OffsetManager): CheckGroup's offsets are the check's progress, persisted in
// consumerOffset.json with every other group's.
type Offsets interface {
	// Query returns the committed offset, -1 when there is none.
	Query(group, topic string, queueID int32) int64
	Commit(group, topic string, queueID int32, offset int64)
}

// Conn is a producer's connection, to which a check sends CHECK_TRANSACTION_STATE
// oneway (the broker's *remoting.Conn).
type Conn interface {
	InvokeOneway(req *protocol.Command) error
	RemoteAddr() string
}

// Config is what a Service needs from the broker. Every field is required except Log
// (Nop when zero) and Stop.
type Config struct {
	Store   *store.Store
	Topics  Topics
	Offsets Offsets
	// Producer returns one live connection of a producer group (Java:
	// ProducerManager#getAvailableChannel), nil when the group has none. A nil *Conn
	// must be returned as a nil Conn.
	Producer func(group string) Conn
	// Announce registers a topic the service created with the name servers, without
	// waiting (the broker's announceTopic).
	Announce func(tc protocol.TopicConfig)
	// ApplyDelay parks a committed message that has DELAY in SCHEDULE_TOPIC_XXXX, as the
	// send path does (the broker's applyDelay; Java: CommitLog#asyncPutMessage).
	ApplyDelay func(m *message.Message, props *message.Properties)
	// StoreHost is the broker's address, the born and store host of op messages.
	StoreHost netip.AddrPort
	Log       zerolog.Logger
	// Stop, once closed, ends a check round at its next half message (the broker's
	// shutdown channel). Nil never stops a round early.
	Stop <-chan struct{}

	TimeOut          time.Duration // transactionTimeOut: younger half messages are not checked
	CheckMax         int32         // transactionCheckMax: checks before a discard; 0 means 15
	FileReservedTime time.Duration // older half messages are discarded; 0 means 72 h
}

// Service is the broker's transaction work on the store (Java:
// TransactionalMessageServiceImpl with its TransactionalMessageBridge and
// DefaultTransactionalMessageCheckListener): half message lookup, the committed and op
// records END_TRANSACTION writes (records.go), and the check rounds (check.go). It keeps
// no state between calls but its Config; its methods may be called concurrently, except
// Check, whose rounds must not overlap.
type Service struct {
	cfg Config
	st  *store.Store
	log zerolog.Logger
}

// New returns a service over cfg. It starts nothing: the broker calls Check every
// transactionCheckInterval on a master.
func New(cfg Config) *Service {
	return &Service{cfg: cfg, st: cfg.Store, log: cfg.Log}
}
