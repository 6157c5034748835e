package namesrv

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// NamespaceOrderTopicConfig is the KV namespace of ordered topics' queue layout
// (Java: NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG).
const NamespaceOrderTopicConfig = "ORDER_TOPIC_CONFIG"

// KVStore is Java's KVConfigManager: namespace → key → value, persisted to
// kvConfig.json ({"configTable":{ns:{k:v}}}) on every change, atomically.
type KVStore struct {
	mu    sync.RWMutex
	table map[string]map[string]string
	path  string
	log   zerolog.Logger
}

// OpenKVStore loads path (or its .bak) if present.
func OpenKVStore(path string, log zerolog.Logger) (*KVStore, error) {
	s := &KVStore{table: map[string]map[string]string{}, path: path, log: log}
	if path == "" {
		return s, nil
	}
	var w struct {
		ConfigTable map[string]map[string]string `json:"configTable"`
	}
	data, fromBak, err := compat.LoadConfigFile(path, func(b []byte) error { return protocol.UnmarshalBody(b, &w) })
	if err != nil {
		return nil, fmt.Errorf("namesrv: load kv config %s: %w", path, err)
	}
	if data != nil {
		if fromBak {
			log.Warn().Str("path", path).Msg("kv config loaded from .bak")
		}
		for ns, m := range w.ConfigTable {
			s.table[ns] = m
		}
		log.Info().Str("path", path).Int("namespaces", len(s.table)).Msg("kv config loaded")
	}
	return s, nil
}

// Put sets a value and persists.
func (s *KVStore) Put(ns, key, value string) error {
	s.mu.Lock()
	m := s.table[ns]
	if m == nil {
		m = map[string]string{}
		s.table[ns] = m
	}
	m[key] = value
	s.mu.Unlock()
	s.log.Info().Str("namespace", ns).Str("key", key).Str("value", value).Msg("kv config put")
	return s.persist()
}

// Get returns a value.
func (s *KVStore) Get(ns, key string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.table[ns][key]
	return v, ok
}

// Delete removes a value and persists.
func (s *KVStore) Delete(ns, key string) error {
	s.mu.Lock()
	if m := s.table[ns]; m != nil {
		delete(m, key)
	}
	s.mu.Unlock()
	return s.persist()
}

// Namespace returns a copy of one namespace's table, or nil.
func (s *KVStore) Namespace(ns string) map[string]string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m := s.table[ns]
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (s *KVStore) persist() error {
	if s.path == "" {
		return nil
	}
	s.mu.RLock()
	var b strings.Builder
	b.WriteString(`{"configTable":{`)
	nss := make([]string, 0, len(s.table))
	for ns := range s.table {
		nss = append(nss, ns)
	}
	sort.Strings(nss)
	for i, ns := range nss {
		if i > 0 {
			b.WriteByte(',')
		}
		kv := protocol.KVTable{Table: s.table[ns]}
		inner := kv.AppendJSON(nil)
		b.Write(compat.AppendJSONString(nil, ns))
		b.WriteByte(':')
		b.Write(inner[len(`{"table":`) : len(inner)-1])
	}
	b.WriteString("}}")
	s.mu.RUnlock()
	if err := compat.String2File([]byte(b.String()), s.path); err != nil {
		return fmt.Errorf("namesrv: persist kv config: %w", err)
	}
	return nil
}
