package meta

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// offsetKeySep joins topic and group in consumerOffset.json keys ("topic@group").
const offsetKeySep = "@"

// OffsetManager is Java's ConsumerOffsetManager: committed consumer offsets per
// topic@group and queue, persisted to consumerOffset.json every 5 s and at shutdown.
type OffsetManager struct {
	mu    sync.RWMutex
	table map[string]map[int32]int64 // "topic@group" → queueId → offset
	dirty bool
	file  compat.ConfigFile
	log   zerolog.Logger
}

// NewOffsetManager loads consumerOffset.json (Java writes it with unquoted queue-id keys).
func NewOffsetManager(path string, log zerolog.Logger) (*OffsetManager, error) {
	m := &OffsetManager{table: map[string]map[int32]int64{}, file: compat.ConfigFile{Path: path}, log: log}
	var stored struct {
		OffsetTable map[string]map[string]int64 `json:"offsetTable"`
	}
	if err := m.file.Load(func(std []byte) error { return unmarshal(std, &stored) }); err != nil {
		return nil, err
	}
	for key, qs := range stored.OffsetTable {
		t := map[int32]int64{}
		for q, off := range qs {
			id, err := strconv.Atoi(q)
			if err != nil {
				continue
			}
			t[int32(id)] = off
		}
		m.table[key] = t
	}
	return m, nil
}

func offsetKey(topic, group string) string { return topic + offsetKeySep + group }

// Commit stores a group's offset for a queue (Java: commitOffset).
func (m *OffsetManager) Commit(group, topic string, queueID int32, offset int64) {
	key := offsetKey(topic, group)
	m.mu.Lock()
	t := m.table[key]
	if t == nil {
		t = map[int32]int64{}
		m.table[key] = t
	}
	t[queueID] = offset
	m.dirty = true
	m.mu.Unlock()
}

// Query returns the committed offset, or -1 (Java: queryOffset).
func (m *OffsetManager) Query(group, topic string, queueID int32) int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if off, ok := m.table[offsetKey(topic, group)][queueID]; ok {
		return off
	}
	return -1
}

// QueryAll returns a copy of the group's offsets for topic.
func (m *OffsetManager) QueryAll(group, topic string) map[int32]int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	t := m.table[offsetKey(topic, group)]
	if t == nil {
		return nil
	}
	out := make(map[int32]int64, len(t))
	for k, v := range t {
		out[k] = v
	}
	return out
}

// GroupsOfTopic returns the groups with offsets on topic (Java: whichGroupByTopic).
func (m *OffsetManager) GroupsOfTopic(topic string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	for k := range m.table {
		if t, g, ok := strings.Cut(k, offsetKeySep); ok && t == topic {
			out = append(out, g)
		}
	}
	sort.Strings(out)
	return out
}

// TopicsOfGroup returns the topics the group has offsets on (Java: whichTopicByConsumer).
func (m *OffsetManager) TopicsOfGroup(group string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	for k := range m.table {
		if t, g, ok := strings.Cut(k, offsetKeySep); ok && g == group {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// RemoveGroup drops a group's offsets (DELETE_SUBSCRIPTIONGROUP with removeOffset).
func (m *OffsetManager) RemoveGroup(group string) {
	m.mu.Lock()
	for k := range m.table {
		if _, g, ok := strings.Cut(k, offsetKeySep); ok && g == group {
			delete(m.table, k)
			m.dirty = true
		}
	}
	m.mu.Unlock()
}

// RemoveTopic drops every group's offsets of topic.
func (m *OffsetManager) RemoveTopic(topic string) {
	m.mu.Lock()
	for k := range m.table {
		if t, _, ok := strings.Cut(k, offsetKeySep); ok && t == topic {
			delete(m.table, k)
			m.dirty = true
		}
	}
	m.mu.Unlock()
}

// Merge puts every entry of table over the local one (a slave syncing from its master).
func (m *OffsetManager) Merge(table map[string]map[int32]int64) {
	m.mu.Lock()
	for k, qs := range table {
		t := m.table[k]
		if t == nil {
			t = map[int32]int64{}
			m.table[k] = t
		}
		for q, off := range qs {
			t[q] = off
		}
	}
	m.dirty = true
	m.mu.Unlock()
}

// AppendJSON writes the table as protocol.ConsumerOffsetSerializeWrapper (fastjson's
// unquoted queue-id keys; GET_ALL_CONSUMER_OFFSET and consumerOffset.json).
func (m *OffsetManager) AppendJSON(dst []byte) []byte {
	m.mu.RLock()
	defer m.mu.RUnlock()
	w := protocol.ConsumerOffsetSerializeWrapper{OffsetTable: m.table}
	return w.AppendJSON(dst)
}

// Persist writes consumerOffset.json if anything changed since the last write.
func (m *OffsetManager) Persist(force bool) error {
	m.mu.Lock()
	if !m.dirty && !force {
		m.mu.Unlock()
		return nil
	}
	m.dirty = false
	m.mu.Unlock()
	return m.file.Persist(m.AppendJSON(nil))
}

// Each calls fn for every topic@group, by group then topic, with its offsets
// (queueId → offset). The keys are
// listed under the read lock once, then each entry is copied under a short read lock
// into a map fn may read only during the call (it is reused): a scan of many groups
// never holds the lock that commits take for longer than one entry's copy.
func (m *OffsetManager) Each(fn func(topic, group string, offsets map[int32]int64)) {
	m.mu.RLock()
	keys := make([]string, 0, len(m.table))
	for k := range m.table {
		keys = append(keys, k)
	}
	m.mu.RUnlock()
	type pair struct{ key, topic, group string }
	pairs := make([]pair, 0, len(keys))
	for _, k := range keys {
		if topic, group, ok := strings.Cut(k, offsetKeySep); ok {
			pairs = append(pairs, pair{k, topic, group})
		}
	}
	// By group, then topic: the order a Prometheus registry sorts series labelled
	// {group, topic} in, which makes its sort of them linear.
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].group != pairs[j].group {
			return pairs[i].group < pairs[j].group
		}
		return pairs[i].topic < pairs[j].topic
	})
	scratch := map[int32]int64{}
	for _, p := range pairs {
		k, topic, group := p.key, p.topic, p.group
		clear(scratch)
		m.mu.RLock()
		t, found := m.table[k]
		for q, off := range t {
			scratch[q] = off
		}
		m.mu.RUnlock()
		if found {
			fn(topic, group, scratch)
		}
	}
}
