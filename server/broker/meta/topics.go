package meta

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// System topic names (Java: TopicValidator, MixAll).
const (
	TopicAutoCreate       = "TBW102"
	TopicSelfTest         = "SELF_TEST_TOPIC"
	TopicBenchmark        = "BenchmarkTest"
	TopicOffsetMovedEvent = "OFFSET_MOVED_EVENT"
	TopicSchedule         = "SCHEDULE_TOPIC_XXXX"
	TopicTransHalf        = "RMQ_SYS_TRANS_HALF_TOPIC"
	TopicTransOpHalf      = "RMQ_SYS_TRANS_OP_HALF_TOPIC"
	TopicTransCheckMax    = "TRANS_CHECK_MAX_TIME_TOPIC"
	RetryGroupTopicPrefix = "%RETRY%"
	DLQGroupTopicPrefix   = "%DLQ%"
	ReplyTopicPostfix     = "REPLY_TOPIC"
	scheduleQueueNums     = 18
	// TopicMaxLength is TopicValidator.TOPIC_MAX_LENGTH.
	TopicMaxLength = 127
)

// notAllowedSendTopics refuse client sends (Java 4.8+: TopicValidator.NOT_ALLOWED_SEND_TOPIC_SET).
var notAllowedSendTopics = map[string]bool{TopicSchedule: true, TopicTransHalf: true, TopicTransOpHalf: true,
	TopicTransCheckMax: true, TopicSelfTest: true, TopicOffsetMovedEvent: true}

// IsNotAllowedSendTopic reports whether clients may not send to topic (Java:
// TopicValidator#isNotAllowedSendTopic).
func IsNotAllowedSendTopic(topic string) bool { return notAllowedSendTopics[topic] }

// staticSystemTopics are TopicValidator's built-in system topics.
var staticSystemTopics = map[string]bool{TopicAutoCreate: true, TopicSchedule: true, TopicBenchmark: true, TopicTransHalf: true,
	"RMQ_SYS_TRACE_TOPIC": true, TopicTransOpHalf: true, TopicTransCheckMax: true, TopicSelfTest: true, TopicOffsetMovedEvent: true}

// SystemTopicSet returns TopicValidator's built-in system topics, unsorted (Java:
// TopicValidator#getSystemTopicSet, read by GET_SYSTEM_TOPIC_LIST_FROM_BROKER).
func SystemTopicSet() []string {
	out := make([]string, 0, len(staticSystemTopics))
	for t := range staticSystemTopics {
		out = append(out, t)
	}
	return out
}

// systemTopicPrefix marks system topics by name (TopicValidator.SYSTEM_TOPIC_PREFIX).
const systemTopicPrefix = "rmq_sys_"

// topicOrGroupIllegal is TopicValidator#isTopicOrGroupIllegal: only [%|a-zA-Z0-9_-].
func topicOrGroupIllegal(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '%', c == '|', c == '_', c == '-':
		default:
			return true
		}
	}
	return false
}

// RetryTopic and DLQTopic name a group's retry and dead-letter topics.
func RetryTopic(group string) string { return RetryGroupTopicPrefix + group }
func DLQTopic(group string) string   { return DLQGroupTopicPrefix + group }

// ValidateTopic is TopicValidator#validateTopic with Java's remarks.
func ValidateTopic(topic string) *protocol.Error {
	switch {
	case len(topic) == 0 || isBlank(topic):
		return protocol.Errorf(protocol.ResSystemError, "The specified topic is blank.")
	case topicOrGroupIllegal(topic):
		return &protocol.Error{Code: protocol.ResSystemError, Remark: "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"}
	case len(topic) > TopicMaxLength:
		return protocol.Errorf(protocol.ResSystemError, "The specified topic is longer than topic max length.")
	}
	return nil
}

// groupMaxLength is the client's Validators.CHARACTER_MAX_LENGTH for group names.
const groupMaxLength = 255

// ValidateGroup refuses a consumer group name that Java's client would refuse
// (Validators#checkGroup, with its texts). Java's broker takes any name, and a group
// such as "adv/boot" or "../../x" becomes %RETRY%/%DLQ% topics and ConsumeQueue paths;
// Skyrocket checks every request that creates a group or its topics (UNSUPPORTED.md).
func ValidateGroup(group string) *protocol.Error {
	switch {
	case isBlank(group):
		return protocol.Errorf(protocol.ResSystemError, "the specified group is blank")
	case len(group) > groupMaxLength:
		return protocol.Errorf(protocol.ResSystemError, "the specified group is longer than group max length 255.")
	case topicOrGroupIllegal(group):
		return protocol.Errorf(protocol.ResSystemError, "the specified group[%s] contains illegal characters, allowing only ^[%%|a-zA-Z0-9_-]+$", group)
	}
	return nil
}

func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
			return false
		}
	}
	return true
}

// topicTable is an immutable snapshot of the topic configs: readers (every send and pull)
// take it with one atomic load; writers copy it under TopicManager.mu.
type topicTable map[string]*protocol.TopicConfig

// TopicManager is Java's TopicConfigManager: the broker's topics, its system topics, auto
// creation from TBW102, and topics.json.
type TopicManager struct {
	mu      sync.Mutex // writers; readers use table
	table   atomic.Pointer[topicTable]
	version protocol.DataVersion
	system  map[string]bool
	file    compat.ConfigFile
	log     zerolog.Logger
	autoOn  bool
	saver   *laterWriter // topics.json for changes made on an event loop
}

// TopicOptions are the BrokerConfig fields the topic manager reads.
type TopicOptions struct {
	Path                  string // config/topics.json
	ClusterName           string
	BrokerName            string
	AutoCreateTopicEnable bool
	DefaultTopicQueueNums int32
	ClusterTopicEnable    bool
	BrokerTopicEnable     bool
	TraceTopicEnable      bool
	TraceTopicName        string
}

// NewTopicManager builds the system topics (Java: TopicConfigManager's constructor) and
// loads topics.json over them.
func NewTopicManager(o TopicOptions, log zerolog.Logger) (*TopicManager, error) {
	m := &TopicManager{system: map[string]bool{}, file: compat.ConfigFile{Path: o.Path}, log: log, autoOn: o.AutoCreateTopicEnable}
	t := topicTable{}
	add := func(name string, queues, perm int32) {
		tc := protocol.NewTopicConfig(name)
		if queues > 0 {
			queues = protocol.ClampQueueNums(queues)
			tc.ReadQueueNums, tc.WriteQueueNums = queues, queues
		}
		if perm >= 0 {
			tc.Perm = perm
		}
		t[name] = &tc
		m.system[name] = true
	}
	add(TopicSelfTest, 1, -1)
	if o.AutoCreateTopicEnable {
		add(TopicAutoCreate, o.DefaultTopicQueueNums, protocol.PermInherit|protocol.PermRead|protocol.PermWrite)
	}
	add(TopicBenchmark, 1024, -1)
	perm := protocol.PermInherit
	if o.ClusterTopicEnable {
		perm |= protocol.PermRead | protocol.PermWrite
	}
	add(o.ClusterName, 0, perm)
	perm = protocol.PermInherit
	if o.BrokerTopicEnable {
		perm |= protocol.PermRead | protocol.PermWrite
	}
	add(o.BrokerName, 1, perm)
	add(TopicOffsetMovedEvent, 1, -1)
	add(TopicSchedule, scheduleQueueNums, -1)
	if o.TraceTopicEnable {
		add(o.TraceTopicName, 1, -1)
	}
	add(o.ClusterName+"_"+ReplyTopicPostfix, 1, -1)
	m.version = protocol.DataVersion{Timestamp: time.Now().UnixMilli()}

	var stored protocol.TopicConfigSerializeWrapper
	if err := m.file.Load(func(std []byte) error { return unmarshal(std, &stored) }); err != nil {
		return nil, err
	}
	for name, tc := range stored.TopicConfigTable {
		tc := tc
		if tc.TopicName == "" {
			tc.TopicName = name
		}
		if r, w := protocol.ClampQueueNums(tc.ReadQueueNums), protocol.ClampQueueNums(tc.WriteQueueNums); r != tc.ReadQueueNums || w != tc.WriteQueueNums {
			log.Warn().Str("topic", name).Int32("read", tc.ReadQueueNums).Int32("write", tc.WriteQueueNums).Int("max", protocol.MaxQueueNums).
				Msg("topics.json queue count above the limit, lowered to it")
			tc.ReadQueueNums, tc.WriteQueueNums = r, w
		}
		t[name] = &tc
	}
	if stored.DataVersion.Timestamp != 0 {
		m.version = stored.DataVersion
	}
	m.table.Store(&t)
	m.saver = newLaterWriter(&m.file, m.contentJSON, log)
	return m, nil
}

// Close writes what is still to be written and stops the writer.
func (m *TopicManager) Close() { m.saver.close() }

// contentJSON is topics.json's content (compact).
func (m *TopicManager) contentJSON() []byte {
	w := m.Wrapper()
	return w.AppendJSON(nil)
}

// persistNow writes topics.json before returning (admin requests, on a pool).
func (m *TopicManager) persistNow() {
	if err := m.file.PersistFrom(m.contentJSON); err != nil {
		m.log.Error().Err(err).Msg("persist topics")
	}
}

// Get returns a copy of a topic's config.
func (m *TopicManager) Get(topic string) (protocol.TopicConfig, bool) {
	tc, ok := (*m.table.Load())[topic]
	if !ok {
		return protocol.TopicConfig{}, false
	}
	return *tc, true
}

// IsSystemTopic is TopicValidator#isSystemTopic: the built-in and broker-created system
// topics, and names starting with rmq_sys_.
func (m *TopicManager) IsSystemTopic(topic string) bool {
	return m.system[topic] || staticSystemTopics[topic] || strings.HasPrefix(topic, systemTopicPrefix)
}

// IsOrderTopic reports the topic's order flag.
func (m *TopicManager) IsOrderTopic(topic string) bool {
	tc, ok := m.Get(topic)
	return ok && tc.Order
}

// Wrapper returns the whole table with its data version (REGISTER_BROKER,
// GET_ALL_TOPIC_CONFIG).
func (m *TopicManager) Wrapper() protocol.TopicConfigSerializeWrapper {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.wrapperLocked()
}

func (m *TopicManager) wrapperLocked() protocol.TopicConfigSerializeWrapper {
	t := *m.table.Load()
	w := protocol.TopicConfigSerializeWrapper{DataVersion: m.version, TopicConfigTable: make(map[string]protocol.TopicConfig, len(t))}
	for k, v := range t {
		w.TopicConfigTable[k] = *v
	}
	return w
}

// Names returns every topic name, sorted.
func (m *TopicManager) Names() []string {
	t := *m.table.Load()
	out := make([]string, 0, len(t))
	for k := range t {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// put installs tc and bumps the data version; caller holds m.mu and then persists.
func (m *TopicManager) putLocked(tc protocol.TopicConfig) {
	old := *m.table.Load()
	t := make(topicTable, len(old)+1)
	for k, v := range old {
		t[k] = v
	}
	t[tc.TopicName] = &tc
	m.table.Store(&t)
	m.nextVersionLocked()
}

func (m *TopicManager) nextVersionLocked() {
	m.version = protocol.DataVersion{Timestamp: time.Now().UnixMilli(), Counter: m.version.Counter + 1}
}

// Update creates or replaces a topic (UPDATE_AND_CREATE_TOPIC).
func (m *TopicManager) Update(tc protocol.TopicConfig) {
	m.mu.Lock()
	_, existed := (*m.table.Load())[tc.TopicName]
	m.putLocked(tc)
	m.mu.Unlock()
	m.persistNow()
	m.log.Info().Str("topic", tc.TopicName).Bool("new", !existed).Interface("config", tc).Msg("topic config updated")
}

// Delete removes a topic; it reports whether it existed.
func (m *TopicManager) Delete(topic string) bool {
	m.mu.Lock()
	old := *m.table.Load()
	if _, ok := old[topic]; !ok {
		m.mu.Unlock()
		return false
	}
	t := make(topicTable, len(old))
	for k, v := range old {
		if k != topic {
			t[k] = v
		}
	}
	m.table.Store(&t)
	m.nextVersionLocked()
	m.mu.Unlock()
	m.persistNow()
	m.log.Info().Str("topic", topic).Msg("topic config deleted")
	return true
}

// CreateInSend auto-creates topic from defaultTopic for a send (Java:
// TopicConfigManager#createTopicInSendMessageMethod). It returns nil when the default
// topic is missing or not inheritable, and whether it created the topic: the caller
// then registers it with the name servers. topics.json is written in the background.
func (m *TopicManager) CreateInSend(topic, defaultTopic, remote string, clientQueueNums, sysFlag int32) (*protocol.TopicConfig, bool) {
	m.mu.Lock()
	if tc, ok := (*m.table.Load())[topic]; ok {
		m.mu.Unlock()
		c := *tc
		return &c, false
	}
	def, ok := (*m.table.Load())[defaultTopic]
	if !ok {
		m.mu.Unlock()
		m.log.Warn().Str("topic", topic).Str("defaultTopic", defaultTopic).Str("producer", remote).Msg("create new topic failed, because the default topic not exist")
		return nil, false
	}
	defPerm := def.Perm
	if defaultTopic == TopicAutoCreate && !m.autoOn {
		defPerm = protocol.PermRead | protocol.PermWrite
	}
	if !protocol.IsInherited(defPerm) {
		m.mu.Unlock()
		m.log.Warn().Str("topic", topic).Str("defaultTopic", defaultTopic).Int32("perm", defPerm).Str("producer", remote).Msg("create new topic failed, because the default topic has no perm")
		return nil, false
	}
	q := protocol.ClampQueueNums(clientQueueNums)
	if def.WriteQueueNums < q {
		q = def.WriteQueueNums
	}
	if q < 0 {
		q = 0
	}
	topic = strings.Clone(topic) // the request's strings may live in a reused read buffer
	tc := protocol.TopicConfig{TopicName: topic, ReadQueueNums: q, WriteQueueNums: q, Perm: defPerm &^ protocol.PermInherit,
		TopicSysFlag: sysFlag, TopicFilterType: def.TopicFilterType}
	m.putLocked(tc)
	m.mu.Unlock()
	m.saver.mark()
	m.log.Info().Str("topic", topic).Str("defaultTopic", defaultTopic).Str("producer", remote).Int32("queues", q).Msg("create new topic by default topic")
	return &tc, true
}

// CreateIfAbsent creates topic with the given queues and perm unless it exists (Java:
// createTopicInSendMessageBackMethod, used for %RETRY% and %DLQ% topics); it reports
// whether it created the topic (the caller registers it). topics.json is written in the
// background.
func (m *TopicManager) CreateIfAbsent(topic string, queueNums, perm, sysFlag int32) (protocol.TopicConfig, bool) {
	if tc, ok := m.Get(topic); ok {
		return tc, false
	}
	if pe := ValidateTopic(topic); pe != nil {
		// Callers validate the names they take from requests; this keeps a name that
		// would become a bad path or record out of the table whatever the caller.
		m.log.Error().Str("topic", topic).Str("reason", pe.Remark).Msg("refusing to create a topic")
		return protocol.TopicConfig{TopicName: topic}, false
	}
	m.mu.Lock()
	if tc, ok := (*m.table.Load())[topic]; ok {
		m.mu.Unlock()
		return *tc, false
	}
	queueNums = protocol.ClampQueueNums(queueNums) // a retry group's retryQueueNums is unbounded
	tc := protocol.NewTopicConfig(strings.Clone(topic))
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm, tc.TopicSysFlag = queueNums, queueNums, perm, sysFlag
	m.putLocked(tc)
	m.mu.Unlock()
	m.saver.mark()
	m.log.Info().Str("topic", topic).Int32("queues", queueNums).Msg("create topic")
	return tc, true
}

// UpdateOrderTopics sets the order flag from the namesrv's ORDER_TOPIC_CONFIG table
// (Java: updateOrderTopicConfig, run on every registration response).
func (m *TopicManager) UpdateOrderTopics(orderTopics map[string]string) {
	if orderTopics == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.table.Load()
	changed := false
	t := make(topicTable, len(old))
	for k, v := range old {
		_, order := orderTopics[k]
		if v.Order != order {
			c := *v
			c.Order = order
			t[k] = &c
			changed = true
		} else {
			t[k] = v
		}
	}
	if changed {
		m.table.Store(&t)
		m.nextVersionLocked()
		m.saver.mark()
	}
}

// DataVersion returns the table's current data version.
func (m *TopicManager) DataVersion() protocol.DataVersion {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.version
}
