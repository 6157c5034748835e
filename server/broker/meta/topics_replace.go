package meta

import "github.com/skyrocket-mq/skyrocket/protocol"

// ReplaceIfNewer replaces the whole table and its data version by the master's when the
// versions differ (Java: SlaveSynchronize#syncTopicConfig: clear, putAll, persist).
func (m *TopicManager) ReplaceIfNewer(w protocol.TopicConfigSerializeWrapper) bool {
	m.mu.Lock()
	if m.version == w.DataVersion {
		m.mu.Unlock()
		return false
	}
	t := make(topicTable, len(w.TopicConfigTable))
	for name, tc := range w.TopicConfigTable {
		if tc.TopicName == "" {
			tc.TopicName = name
		}
		t[name] = &tc
	}
	m.table.Store(&t)
	m.version = w.DataVersion
	m.mu.Unlock()
	m.persistNow()
	return true
}
