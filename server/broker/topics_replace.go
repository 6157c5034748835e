package broker

import "github.com/skyrocket-mq/skyrocket/protocol"

// ReplaceIfNewer replaces the whole table and its data version by the master's when the
// versions differ (Java: SlaveSynchronize#syncTopicConfig: clear, putAll, persist).
func (m *TopicManager) ReplaceIfNewer(w protocol.TopicConfigSerializeWrapper) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.version == w.DataVersion {
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
	wr := m.wrapperLocked()
	if err := m.file.persist(wr.AppendJSON(nil)); err != nil {
		m.log.Error().Err(err).Msg("persist topics")
	}
	return true
}
