package meta

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// Consumer groups the broker always knows (Java: MixAll).
const (
	GroupToolsConsumer       = "TOOLS_CONSUMER"
	GroupFiltersrvConsumer   = "FILTERSRV_CONSUMER"
	GroupSelfTestConsumer    = "SELF_TEST_C_GROUP"
	GroupOnsHTTPProxy        = "CID_ONS-HTTP-PROXY"
	GroupOnsAPIPull          = "CID_ONSAPI_PULL"
	GroupOnsAPIPermission    = "CID_ONSAPI_PERMISSION"
	GroupOnsAPIOwner         = "CID_ONSAPI_OWNER"
	GroupClientInnerProducer = "CLIENT_INNER_PRODUCER"
	sysConsumerGroupPrefix   = "CID_RMQ_SYS_"
)

// SubscriptionManager is Java's SubscriptionGroupManager: consumer group settings,
// auto-created on first use, persisted to subscriptionGroup.json.
type SubscriptionManager struct {
	mu         sync.RWMutex
	table      map[string]*protocol.SubscriptionGroupConfig
	version    protocol.DataVersion
	file       compat.ConfigFile
	autoCreate bool
	log        zerolog.Logger
	saver      *laterWriter // for groups auto-created by heartbeats and pulls
}

// NewSubscriptionManager loads subscriptionGroup.json over Java's built-in groups.
func NewSubscriptionManager(path string, autoCreate bool, log zerolog.Logger) (*SubscriptionManager, error) {
	m := &SubscriptionManager{table: map[string]*protocol.SubscriptionGroupConfig{}, file: compat.ConfigFile{Path: path}, autoCreate: autoCreate, log: log,
		version: protocol.DataVersion{Timestamp: time.Now().UnixMilli()}}
	for _, g := range []string{GroupToolsConsumer, GroupFiltersrvConsumer, GroupSelfTestConsumer} {
		c := protocol.NewSubscriptionGroupConfig(g)
		m.table[g] = &c
	}
	for _, g := range []string{GroupOnsHTTPProxy, GroupOnsAPIPull, GroupOnsAPIPermission, GroupOnsAPIOwner} {
		c := protocol.NewSubscriptionGroupConfig(g)
		c.ConsumeBroadcastEnable = true
		m.table[g] = &c
	}
	var stored SubscriptionWrapper
	if err := m.file.Load(func(std []byte) error { return unmarshal(std, &stored) }); err != nil {
		return nil, err
	}
	for name, c := range stored.SubscriptionGroupTable {
		c := c
		m.table[name] = &c
	}
	if stored.DataVersion.Timestamp != 0 {
		m.version = stored.DataVersion
	}
	m.saver = newLaterWriter(&m.file, func() []byte { return m.AppendJSON(nil) }, log)
	return m, nil
}

// Close writes what is still to be written and stops the writer.
func (m *SubscriptionManager) Close() { m.saver.close() }

// persistNow writes subscriptionGroup.json before returning (admin requests, on a pool).
func (m *SubscriptionManager) persistNow() {
	if err := m.file.PersistFrom(func() []byte { return m.AppendJSON(nil) }); err != nil {
		m.log.Error().Err(err).Msg("persist subscription groups")
	}
}

// SubscriptionWrapper is subscriptionGroup.json and the body of
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG (Java: SubscriptionGroupWrapper).
type SubscriptionWrapper = protocol.SubscriptionGroupWrapper

// ReplaceIfNewer replaces the table and its data version by the master's when the
// versions differ (Java: SlaveSynchronize#syncSubscriptionGroupConfig), and persists.
func (m *SubscriptionManager) ReplaceIfNewer(w SubscriptionWrapper) bool {
	m.mu.Lock()
	if m.version == w.DataVersion {
		m.mu.Unlock()
		return false
	}
	t := make(map[string]*protocol.SubscriptionGroupConfig, len(w.SubscriptionGroupTable))
	for name, c := range w.SubscriptionGroupTable {
		if c.GroupName == "" {
			c.GroupName = name
		}
		t[name] = &c
	}
	m.table, m.version = t, w.DataVersion
	m.mu.Unlock()
	m.persistNow()
	return true
}

// Find returns the group's config, auto-creating it when allowed (Java:
// findSubscriptionGroupConfig). ok is false when the group does not exist.
func (m *SubscriptionManager) Find(group string) (protocol.SubscriptionGroupConfig, bool) {
	m.mu.RLock()
	c, ok := m.table[group]
	m.mu.RUnlock()
	if ok {
		return *c, true
	}
	if !m.autoCreate && !strings.HasPrefix(group, sysConsumerGroupPrefix) || ValidateGroup(group) != nil {
		return protocol.SubscriptionGroupConfig{}, false
	}
	m.mu.Lock()
	if c, ok := m.table[group]; ok {
		m.mu.Unlock()
		return *c, true
	}
	group = strings.Clone(group) // the request's strings may live in a reused read buffer
	nc := protocol.NewSubscriptionGroupConfig(group)
	m.table[group] = &nc
	m.nextVersionLocked()
	m.mu.Unlock()
	m.saver.mark()
	m.log.Info().Str("group", group).Msg("auto create a subscription group")
	return nc, true
}

// Get returns the group's config without creating it.
func (m *SubscriptionManager) Get(group string) (protocol.SubscriptionGroupConfig, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	c, ok := m.table[group]
	if !ok {
		return protocol.SubscriptionGroupConfig{}, false
	}
	return *c, true
}

// Update creates or replaces a group's config.
func (m *SubscriptionManager) Update(c protocol.SubscriptionGroupConfig) {
	m.mu.Lock()
	m.table[c.GroupName] = &c
	m.nextVersionLocked()
	m.mu.Unlock()
	m.persistNow()
	m.log.Info().Str("group", c.GroupName).Interface("config", c).Msg("subscription group updated")
}

// Delete removes a group's config; it reports whether it existed.
func (m *SubscriptionManager) Delete(group string) bool {
	m.mu.Lock()
	if _, ok := m.table[group]; !ok {
		m.mu.Unlock()
		return false
	}
	delete(m.table, group)
	m.nextVersionLocked()
	m.mu.Unlock()
	m.persistNow()
	return true
}

// Groups returns every group name, sorted.
func (m *SubscriptionManager) Groups() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.table))
	for k := range m.table {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (m *SubscriptionManager) nextVersionLocked() {
	m.version = protocol.DataVersion{Timestamp: time.Now().UnixMilli(), Counter: m.version.Counter + 1}
}

// AppendJSON writes {"dataVersion":..,"subscriptionGroupTable":{..}} (the body of
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG and the content of subscriptionGroup.json).
func (m *SubscriptionManager) AppendJSON(dst []byte) []byte {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.appendJSONLocked(dst)
}

func (m *SubscriptionManager) appendJSONLocked(dst []byte) []byte {
	w := SubscriptionWrapper{SubscriptionGroupTable: make(map[string]protocol.SubscriptionGroupConfig, len(m.table)), DataVersion: m.version}
	for name, c := range m.table {
		w.SubscriptionGroupTable[name] = *c
	}
	return w.AppendJSON(dst)
}
