package broker

// ConsumerFilterManager is Java's broker/filter/ConsumerFilterManager: per topic and
// consumer group, the SQL92 expression the group's heartbeats registered, compiled, with
// the client's subscription version. Pulls of push consumers (which send no expression)
// filter with it.
//
//   - Registered from every consumer heartbeat (registerFilters); a newer subVersion with
//     a changed expression replaces the entry, an older one is ignored; an expression that
//     no longer compiles removes the entry (the pull then answers FILTER_DATA_NOT_EXIST).
//   - A group that goes away, or stops subscribing a topic, leaves its entries "dead"
//     (deadTime ≥ bornTime) rather than deleted; a later heartbeat revives them. Dead
//     entries are dropped when persisted filterDataCleanTimeSpan (24 h) after their death.
//   - Persisted every 10 s and at shutdown to <root>/config/consumerFilter.json in
//     fastjson's layout; at load every entry is compiled again and marked dead (its
//     consumers have to heartbeat again), and the whole file is ignored when its bloom
//     filter data was made with other bloom settings, as Java does.
//   - The bloom filter data (bit positions of "group#topic", Java's BloomFilter over
//     Guava's murmur3_128) is kept and persisted so a Java broker can load our file; the
//     ConsumeQueue bitmaps it feeds (enableCalcFilterBitMap) are not built: every SQL92
//     match is decided on the CommitLog record.

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/filter"
)

// errUnsupportedExpressionType is returned when a subscription names an expression type
// the broker has no filter for (Java: FilterFactory#get returns null).
var errUnsupportedExpressionType = errors.New("unsupported expression type")

// BloomFilterData is Java's BloomFilterData: the bits a group#topic occupies.
type BloomFilterData struct {
	BitPos []int32 `json:"bitPos"`
	BitNum int32   `json:"bitNum"`
}

// ConsumerFilterData is Java's ConsumerFilterData. Entries are replaced, never changed in
// place, so a copy handed to a pull stays consistent.
type ConsumerFilterData struct {
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
func (d *ConsumerFilterData) Dead() bool { return d.DeadTime >= d.BornTime }

// ConsumerFilterOptions are the BrokerConfig settings of the manager.
type ConsumerFilterOptions struct {
	Path                       string        // <root>/config/consumerFilter.json
	FilterDataCleanTimeSpan    time.Duration // 24 h
	MaxErrorRateOfBloomFilter  int32         // 20 (percent)
	ExpectConsumerNumUseFilter int32         // 32
}

// ConsumerFilterManager holds the SQL92 filters of consumer groups.
type ConsumerFilterManager struct {
	mu     sync.RWMutex
	topics map[string]map[string]*ConsumerFilterData // topic → group → data
	dirty  bool

	file      configFile
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

// NewConsumerFilterManager loads consumerFilter.json (or its .bak).
func NewConsumerFilterManager(o ConsumerFilterOptions, log zerolog.Logger) (*ConsumerFilterManager, error) {
	if o.FilterDataCleanTimeSpan <= 0 {
		o.FilterDataCleanTimeSpan = 24 * time.Hour
	}
	bf, err := newBloomFilter(o.MaxErrorRateOfBloomFilter, o.ExpectConsumerNumUseFilter)
	if err != nil {
		log.Warn().Err(err).Msg("bloom filter settings refused, using Java's defaults (20%, 32 consumers)")
		bf, _ = newBloomFilter(20, 32)
	}
	m := &ConsumerFilterManager{
		topics: map[string]map[string]*ConsumerFilterData{}, file: configFile{path: o.Path}, bloom: bf,
		cleanSpan: o.FilterDataCleanTimeSpan, log: log, now: time.Now, cache: map[string]compiled{},
	}
	if err := m.file.load(m.decode); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *ConsumerFilterManager) nowMs() int64 { return m.now().UnixMilli() }

// compile compiles an expression of type typ (Java: FilterFactory.INSTANCE.get(type).compile).
func compileTyped(typ, expr string) (*filter.Expression, error) {
	if typ != ExpressionSQL92 {
		return nil, errUnsupportedExpressionType
	}
	return filter.Compile(expr)
}

// compileCached is compileTyped through a small cache, for pulls that carry their
// expression (FLAG_SUBSCRIPTION) and would otherwise compile it on every pull. A selector
// over filter.MaxLength fails at once and is not kept: 100 of them would pin 100 keys of
// whatever size clients send.
func (m *ConsumerFilterManager) compileCached(typ, expr string) (*filter.Expression, error) {
	if len(expr) > filter.MaxLength {
		return compileTyped(typ, expr)
	}
	key := typ + "\x00" + expr
	m.cacheMu.Lock()
	c, ok := m.cache[key]
	m.cacheMu.Unlock()
	if ok {
		return c.expr, c.err
	}
	e, err := compileTyped(typ, expr)
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
func (m *ConsumerFilterManager) build(topic, group, expr, typ string, clientVersion int64) *ConsumerFilterData {
	c, err := compileTyped(typ, expr)
	if err != nil {
		m.log.Error().Str("expression", logExpression(expr)).Str("topic", topic).Str("group", group).Err(err).Msg("parse error")
		return nil
	}
	return &ConsumerFilterData{ConsumerGroup: group, Topic: topic, Expression: expr, ExpressionType: typ,
		BornTime: m.nowMs(), ClientVersion: clientVersion, Compiled: c}
}

// Register records a heartbeat's subscriptions for group and marks dead the group's
// filters on topics it no longer subscribes (Java: register(String, Collection)).
func (m *ConsumerFilterManager) Register(group string, subs []protocol.SubscriptionData) {
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
func (m *ConsumerFilterManager) RegisterOne(topic, group, expr, typ string, clientVersion int64) bool {
	if isTagType(typ) || expr == "" {
		return false
	}
	bloom := m.bloom.generate(group + "#" + topic)
	m.mu.Lock()
	defer m.mu.Unlock()
	groups := m.topics[topic]
	if groups == nil {
		groups = map[string]*ConsumerFilterData{}
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

func (m *ConsumerFilterManager) revive(groups map[string]*ConsumerFilterData, d *ConsumerFilterData) {
	nd := *d
	nd.DeadTime = 0
	groups[d.ConsumerGroup] = &nd
	m.dirty = true
	m.log.Info().Str("group", d.ConsumerGroup).Str("topic", d.Topic).Msg("consumer filter alive again")
}

// Unregister marks every filter of group dead (Java: unRegister), when the group's last
// client is gone.
func (m *ConsumerFilterManager) Unregister(group string) {
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
func (m *ConsumerFilterManager) Get(topic, group string) (ConsumerFilterData, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	d := m.topics[topic][group]
	if d == nil {
		return ConsumerFilterData{}, false
	}
	return *d, true
}

// ByTopic returns the filters registered on topic, sorted by group.
func (m *ConsumerFilterManager) ByTopic(topic string) []ConsumerFilterData {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]ConsumerFilterData, 0, len(m.topics[topic]))
	for _, d := range m.topics[topic] {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ConsumerGroup < out[j].ConsumerGroup })
	return out
}

// clean drops filters dead for cleanSpan and topics left empty (Java: clean, run
// before every persist).
func (m *ConsumerFilterManager) cleanLocked() {
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
// it anyway).
func (m *ConsumerFilterManager) Persist(force bool) error {
	m.mu.Lock()
	m.cleanLocked()
	if !m.dirty && !force {
		m.mu.Unlock()
		return nil
	}
	m.dirty = false
	data := m.appendJSONLocked(nil)
	m.mu.Unlock()
	return m.file.persist(data)
}

// AppendJSON appends the table in fastjson's compact form (keys sorted).
func (m *ConsumerFilterManager) AppendJSON(dst []byte) []byte {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.appendJSONLocked(dst)
}

func (m *ConsumerFilterManager) appendJSONLocked(dst []byte) []byte {
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
		dst = appendJSONKey(dst, t)
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
			dst = appendJSONKey(dst, g)
			dst = m.topics[t][g].appendJSON(dst)
		}
		dst = append(dst, `},"topic":`...)
		dst = compat.AppendJSONString(dst, t)
		dst = append(dst, '}')
	}
	return append(dst, "}}"...)
}

// appendJSON writes the entry as fastjson does: getters' names sorted, nulls omitted.
func (d *ConsumerFilterData) appendJSON(dst []byte) []byte {
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
func (m *ConsumerFilterManager) decode(std []byte) error {
	var stored struct {
		FilterDataByTopic map[string]*struct {
			GroupFilterData map[string]*ConsumerFilterData `json:"groupFilterData"`
			Topic           string                         `json:"topic"`
		} `json:"filterDataByTopic"`
	}
	if err := unmarshal(std, &stored); err != nil {
		return err
	}
	now := m.nowMs()
	table := map[string]map[string]*ConsumerFilterData{}
	for topic, byTopic := range stored.FilterDataByTopic {
		if byTopic == nil {
			continue
		}
		groups := map[string]*ConsumerFilterData{}
		for group, d := range byTopic.GroupFilterData {
			if d == nil {
				continue
			}
			c, err := compileTyped(d.ExpressionType, d.Expression)
			if err != nil {
				m.log.Error().Str("group", group).Str("topic", topic).Str("expression", logExpression(d.Expression)).Err(err).Msg("load filter data error")
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

// bloomFilter is Java's filter/util/BloomFilter, as far as generating bit positions.
type bloomFilter struct{ k, m int32 }

// newBloomFilter sizes the filter for errorRate percent false positives over n keys
// (Java: BloomFilter#createByFn).
func newBloomFilter(errorRate, n int32) (bloomFilter, error) {
	if errorRate < 1 || errorRate >= 100 {
		return bloomFilter{}, errors.New("maxErrorRateOfBloomFilter must be in [1, 100)")
	}
	if n < 1 {
		return bloomFilter{}, errors.New("expectConsumerNumUseFilter must be positive")
	}
	rate := float64(errorRate) / 100
	k := int32(math.Ceil(math.Log(rate) / math.Log(0.5)))
	bitsNeeded := math.Ceil(float64(n) * (math.Log(1/rate) / math.Log(2)) * (math.Log(math.E) / math.Log(2)))
	m := int32(8 * math.Ceil(float64(int32(bitsNeeded))/8))
	return bloomFilter{k: k, m: m}, nil
}

// generate returns the bits of key (Java: calcBitPositions, "Less Hashing, Same
// Performance" over the first long of murmur3_128 of the UTF-8 bytes).
func (b bloomFilter) generate(key string) *BloomFilterData {
	h := murmur3x64First([]byte(key))
	h1, h2 := int32(h), int32(h>>32)
	pos := make([]int32, b.k)
	for i := int32(1); i <= b.k; i++ {
		c := h1 + i*h2
		if c < 0 {
			c = ^c
		}
		pos[i-1] = c % b.m
	}
	return &BloomFilterData{BitPos: pos, BitNum: b.m}
}

// valid is Java's BloomFilter#isValid: data made by a filter of this size.
func (b bloomFilter) valid(d *BloomFilterData) bool {
	return d != nil && d.BitNum == b.m && d.BitPos != nil && int32(len(d.BitPos)) == b.k
}

func (d *BloomFilterData) equal(o *BloomFilterData) bool {
	if d == nil || o == nil {
		return d == o
	}
	if d.BitNum != o.BitNum || len(d.BitPos) != len(o.BitPos) {
		return false
	}
	for i := range d.BitPos {
		if d.BitPos[i] != o.BitPos[i] {
			return false
		}
	}
	return true
}

// murmur3x64First is the first 64 bits (h1, Guava's asLong) of MurmurHash3 x64 128 with
// seed 0.
func murmur3x64First(data []byte) uint64 {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	var h1, h2 uint64
	n := len(data)
	for len(data) >= 16 {
		k1 := binary.LittleEndian.Uint64(data)
		k2 := binary.LittleEndian.Uint64(data[8:])
		h1 ^= bits.RotateLeft64(k1*c1, 31) * c2
		h1 = (bits.RotateLeft64(h1, 27)+h2)*5 + 0x52dce729
		h2 ^= bits.RotateLeft64(k2*c2, 33) * c1
		h2 = (bits.RotateLeft64(h2, 31)+h1)*5 + 0x38495ab5
		data = data[16:]
	}
	var k1, k2 uint64
	for i := len(data) - 1; i >= 8; i-- {
		k2 = k2<<8 | uint64(data[i])
	}
	for i := min(len(data), 8) - 1; i >= 0; i-- {
		k1 = k1<<8 | uint64(data[i])
	}
	if len(data) > 8 {
		h2 ^= bits.RotateLeft64(k2*c2, 33) * c1
	}
	if len(data) > 0 {
		h1 ^= bits.RotateLeft64(k1*c1, 31) * c2
	}
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	return h1 + h2
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
