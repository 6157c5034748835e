package consumerfilter

import (
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/filter"
)

// BloomFilterData is Java's BloomFilterData: the bits a group#topic occupies.
type BloomFilterData struct {
	BitPos []int32 `json:"bitPos"`
	BitNum int32   `json:"bitNum"`
}

// Data is Java's ConsumerFilterData: one group's filter on one topic. Entries are
// replaced, never changed in place, so a copy handed to a pull stays consistent.
type Data struct {
	ConsumerGroup   string           `json:"consumerGroup"`
	Topic           string           `json:"topic"`
	Expression      string           `json:"expression"`
	ExpressionType  string           `json:"expressionType"`
	BornTime        int64            `json:"bornTime"`
	DeadTime        int64            `json:"deadTime"`
	BloomFilterData *BloomFilterData `json:"bloomFilterData"`
	ClientVersion   int64            `json:"clientVersion"`
	// Compiled is nil when a loaded expression no longer compiles; Java then lets every
	// message through.
	Compiled *filter.Expression `json:"-"`
}

// Dead reports whether the group left (Java: isDead).
func (d *Data) Dead() bool { return d.DeadTime >= d.BornTime }

// Options are what a Manager needs of its broker: the file and the BrokerConfig settings.
type Options struct {
	Path                       string        // <root>/config/consumerFilter.json
	FilterDataCleanTimeSpan    time.Duration // 24 h
	MaxErrorRateOfBloomFilter  int32         // 20 (percent)
	ExpectConsumerNumUseFilter int32         // 32
}

// Manager is Java's ConsumerFilterManager: the SQL92 filters of consumer groups.
type Manager struct {
	fileMu sync.Mutex        // serializes writers of the file; taken before mu
	file   compat.ConfigFile // consumerFilter.json

	mu     sync.RWMutex
	topics map[string]map[string]*Data // topic → group → data
	dirty  bool

	bloom     bloomFilter
	cleanSpan time.Duration
	log       zerolog.Logger
	now       func() time.Time

	cacheMu sync.Mutex
	cache   map[string]compiled // pull-time compiles (Java: SelectorParser's parse cache)
}

type compiled struct {
	expr *filter.Expression
	err  error
}

// compileCacheSize bounds the pull-time cache, as Java's 100-entry parse cache.
const compileCacheSize = 100

// New loads consumerFilter.json (or its .bak); a missing file is an empty table.
func New(o Options, log zerolog.Logger) (*Manager, error) {
	if o.FilterDataCleanTimeSpan <= 0 {
		o.FilterDataCleanTimeSpan = 24 * time.Hour
	}
	bf, err := newBloomFilter(o.MaxErrorRateOfBloomFilter, o.ExpectConsumerNumUseFilter)
	if err != nil {
		log.Warn().Err(err).Msg("bloom filter settings refused, using Java's defaults (20%, 32 consumers)")
		bf, _ = newBloomFilter(20, 32)
	}
	m := &Manager{
		file: compat.ConfigFile{Path: o.Path}, topics: map[string]map[string]*Data{}, bloom: bf,
		cleanSpan: o.FilterDataCleanTimeSpan, log: log, now: time.Now, cache: map[string]compiled{},
	}
	if err := m.file.Load(m.decode); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Manager) nowMs() int64 { return m.now().UnixMilli() }

// CompileCached is Compile through a small cache, for pulls that carry their expression
// (FLAG_SUBSCRIPTION) and would otherwise compile it on every pull. A selector over
// filter.MaxLength fails at once and is not kept: 100 of them would pin 100 keys of
// whatever size clients send.
func (m *Manager) CompileCached(typ, expr string) (*filter.Expression, error) {
	if len(expr) > filter.MaxLength {
		return Compile(typ, expr)
	}
	key := typ + "\x00" + expr
	m.cacheMu.Lock()
	c, ok := m.cache[key]
	m.cacheMu.Unlock()
	if ok {
		return c.expr, c.err
	}
	e, err := Compile(typ, expr)
	m.cacheMu.Lock()
	if len(m.cache) >= compileCacheSize {
		clear(m.cache)
	}
	m.cache[key] = compiled{expr: e, err: err}
	m.cacheMu.Unlock()
	return e, err
}

// build makes a new entry, or nil when the expression does not compile (Java:
// ConsumerFilterManager#build).
func (m *Manager) build(topic, group, expr, typ string, clientVersion int64) *Data {
	c, err := Compile(typ, expr)
	if err != nil {
		m.log.Error().Str("expression", LogExpression(expr)).Str("topic", topic).Str("group", group).Err(err).Msg("parse error")
		return nil
	}
	return &Data{ConsumerGroup: group, Topic: topic, Expression: expr, ExpressionType: typ,
		BornTime: m.nowMs(), ClientVersion: clientVersion, Compiled: c}
}

// Register records a heartbeat's subscriptions for group and marks dead the group's
// filters on topics it no longer subscribes (Java: register(String, Collection)).
func (m *Manager) Register(group string, subs []protocol.SubscriptionData) {
	for i := range subs {
		s := &subs[i]
		m.RegisterOne(s.Topic, group, s.SubString, s.ExpressionType, s.SubVersion)
	}
	topics := make(map[string]bool, len(subs))
	for i := range subs {
		topics[subs[i].Topic] = true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for topic, groups := range m.topics {
		d := groups[group]
		if d == nil || topics[topic] || d.Dead() {
			continue
		}
		nd := *d
		nd.DeadTime = m.nowMs()
		groups[group] = &nd
		m.dirty = true
		m.log.Info().Str("group", group).Str("topic", topic).Msg("consumer filter changed, topic no longer subscribed: dead")
	}
}

// RegisterOne records one subscription and reports whether the table changed (Java:
// register(topic, group, expression, type, clientVersion) with FilterDataMapByTopic#register).
func (m *Manager) RegisterOne(topic, group, expr, typ string, clientVersion int64) bool {
	if IsTagType(typ) || expr == "" {
		return false
	}
	bloom := m.bloom.generate(group + "#" + topic)
	m.mu.Lock()
	defer m.mu.Unlock()
	groups := m.topics[topic]
	if groups == nil {
		groups = map[string]*Data{}
		m.topics[topic] = groups
	}
	old := groups[group]
	if old == nil {
		d := m.build(topic, group, expr, typ, clientVersion)
		if d == nil {
			return false
		}
		d.BloomFilterData = bloom
		groups[group] = d
		m.dirty = true
		m.log.Info().Str("group", group).Str("topic", topic).Str("expression", expr).Msg("new consumer filter registered")
		return true
	}
	if clientVersion <= old.ClientVersion {
		if typ != old.ExpressionType || expr != old.Expression {
			m.log.Info().Str("group", group).Str("topic", topic).Int64("version", clientVersion).Int64("registered", old.ClientVersion).
				Str("ignored", expr).Msg("ignore consumer filter: version not newer, but expression changed")
		}
		if clientVersion == old.ClientVersion && old.Dead() {
			m.revive(groups, old)
			return true
		}
		return false
	}
	changed := old.Expression != expr || old.ExpressionType != typ || !old.BloomFilterData.equal(bloom)
	if changed {
		d := m.build(topic, group, expr, typ, clientVersion)
		if d == nil {
			// The new expression does not compile: drop the old one and let the client see the error.
			delete(groups, group)
			m.dirty = true
			return false
		}
		d.BloomFilterData = bloom
		groups[group] = d
		m.dirty = true
		m.log.Info().Str("group", group).Str("topic", topic).Str("old", old.Expression).Str("new", expr).Msg("consumer filter changed")
		return true
	}
	nd := *old
	nd.ClientVersion = clientVersion
	if nd.Dead() {
		nd.DeadTime = 0
		m.log.Info().Str("group", group).Str("topic", topic).Msg("consumer filter alive again")
	}
	groups[group] = &nd
	m.dirty = true
	return true
}

func (m *Manager) revive(groups map[string]*Data, d *Data) {
	nd := *d
	nd.DeadTime = 0
	groups[d.ConsumerGroup] = &nd
	m.dirty = true
	m.log.Info().Str("group", d.ConsumerGroup).Str("topic", d.Topic).Msg("consumer filter alive again")
}

// Unregister marks every filter of group dead (Java: unRegister), when the group's last
// client is gone.
func (m *Manager) Unregister(group string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, groups := range m.topics {
		d := groups[group]
		if d == nil || d.Dead() {
			continue
		}
		nd := *d
		nd.DeadTime = m.nowMs()
		groups[group] = &nd
		m.dirty = true
		m.log.Info().Str("group", group).Str("topic", d.Topic).Msg("unregister consumer filter")
	}
}

// Get returns the filter of group on topic, dead or alive (Java: get(topic, group)).
func (m *Manager) Get(topic, group string) (Data, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	d := m.topics[topic][group]
	if d == nil {
		return Data{}, false
	}
	return *d, true
}

// ByTopic returns the filters registered on topic, sorted by group.
func (m *Manager) ByTopic(topic string) []Data {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]Data, 0, len(m.topics[topic]))
	for _, d := range m.topics[topic] {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ConsumerGroup < out[j].ConsumerGroup })
	return out
}

// clean drops filters dead for cleanSpan and topics left empty (Java: clean, run
// before every persist).
func (m *Manager) cleanLocked() {
	now := m.nowMs()
	for topic, groups := range m.topics {
		for group, d := range groups {
			if d.Dead() && now-d.DeadTime >= m.cleanSpan.Milliseconds() {
				delete(groups, group)
				m.dirty = true
				m.log.Info().Str("group", group).Str("topic", topic).Msg("remove consumer filter, dead too long")
			}
		}
		if len(groups) == 0 {
			delete(m.topics, topic)
			m.dirty = true
		}
	}
}

// Persist cleans the table and writes consumerFilter.json when it changed (force writes
// it anyway). The content is taken under the file's lock, so of two writers the later
// one writes the later content.
func (m *Manager) Persist(force bool) error {
	m.fileMu.Lock()
	defer m.fileMu.Unlock()
	m.mu.Lock()
	m.cleanLocked()
	if !m.dirty && !force {
		m.mu.Unlock()
		return nil
	}
	m.dirty = false
	data := m.appendJSONLocked(nil)
	m.mu.Unlock()
	return m.file.Persist(data)
}

// AppendJSON appends the table in fastjson's compact form (keys sorted).
func (m *Manager) AppendJSON(dst []byte) []byte {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.appendJSONLocked(dst)
}

func (m *Manager) appendJSONLocked(dst []byte) []byte {
	dst = append(dst, `{"filterDataByTopic":{`...)
	topics := make([]string, 0, len(m.topics))
	for t := range m.topics {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	for i, t := range topics {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendKey(dst, t)
		dst = append(dst, `{"groupFilterData":{`...)
		groups := make([]string, 0, len(m.topics[t]))
		for g := range m.topics[t] {
			groups = append(groups, g)
		}
		sort.Strings(groups)
		for j, g := range groups {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendKey(dst, g)
			dst = m.topics[t][g].AppendJSON(dst)
		}
		dst = append(dst, `},"topic":`...)
		dst = compat.AppendJSONString(dst, t)
		dst = append(dst, '}')
	}
	return append(dst, "}}"...)
}

// AppendJSON writes the entry as fastjson does: getters' names sorted, nulls omitted
// (consumerFilter.json; QUERY_CONSUME_QUEUE's filterData).
func (d *Data) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	if b := d.BloomFilterData; b != nil {
		dst = append(dst, `"bloomFilterData":{"bitNum":`...)
		dst = strconv.AppendInt(dst, int64(b.BitNum), 10)
		if b.BitPos != nil {
			dst = append(dst, `,"bitPos":[`...)
			for i, p := range b.BitPos {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = strconv.AppendInt(dst, int64(p), 10)
			}
			dst = append(dst, ']')
		}
		dst = append(dst, "},"...)
	}
	dst = append(dst, `"bornTime":`...)
	dst = strconv.AppendInt(dst, d.BornTime, 10)
	dst = append(dst, `,"clientVersion":`...)
	dst = strconv.AppendInt(dst, d.ClientVersion, 10)
	dst = append(dst, `,"consumerGroup":`...)
	dst = compat.AppendJSONString(dst, d.ConsumerGroup)
	dst = append(dst, `,"dead":`...)
	dst = strconv.AppendBool(dst, d.Dead())
	dst = append(dst, `,"deadTime":`...)
	dst = strconv.AppendInt(dst, d.DeadTime, 10)
	dst = append(dst, `,"expression":`...)
	dst = compat.AppendJSONString(dst, d.Expression)
	dst = append(dst, `,"expressionType":`...)
	dst = compat.AppendJSONString(dst, d.ExpressionType)
	dst = append(dst, `,"topic":`...)
	dst = compat.AppendJSONString(dst, d.Topic)
	return append(dst, '}')
}

// decode loads a stored table (Java: ConsumerFilterManager#decode).
func (m *Manager) decode(std []byte) error {
	var stored struct {
		FilterDataByTopic map[string]*struct {
			GroupFilterData map[string]*Data `json:"groupFilterData"`
			Topic           string           `json:"topic"`
		} `json:"filterDataByTopic"`
	}
	if err := protocol.UnmarshalBody(std, &stored); err != nil {
		return err
	}
	now := m.nowMs()
	table := map[string]map[string]*Data{}
	for topic, byTopic := range stored.FilterDataByTopic {
		if byTopic == nil {
			continue
		}
		groups := map[string]*Data{}
		for group, d := range byTopic.GroupFilterData {
			if d == nil {
				continue
			}
			c, err := Compile(d.ExpressionType, d.Expression)
			if err != nil {
				m.log.Error().Str("group", group).Str("topic", topic).Str("expression", LogExpression(d.Expression)).Err(err).Msg("load filter data error")
			}
			d.Compiled = c
			if !m.bloom.valid(d.BloomFilterData) {
				m.log.Info().Str("group", group).Str("topic", topic).Msg("bloom filter changed: ignoring all persisted filter data")
				return nil
			}
			if d.DeadTime == 0 {
				// Every consumer is taken for dead at load until it heartbeats again.
				d.DeadTime = max(now-30_000, d.BornTime)
			}
			groups[group] = d
		}
		table[topic] = groups
	}
	m.topics = table
	return nil
}

// BitMapLength is the bloom filter's bit count, which Java's ConsumerFilterManager writes
// into MessageStoreConfig#bitMapLengthConsumeQueueExt when the broker starts (112 with
// the defaults: 20 % error rate, 32 consumers); GET_BROKER_CONFIG reports it.
func (m *Manager) BitMapLength() int32 { return m.bloom.m }
