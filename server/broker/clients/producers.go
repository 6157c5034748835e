package clients

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// ProducerManager is Java's ProducerManager: producer groups and their channels, used for
// transaction check-back and request-reply.
type ProducerManager struct {
	mu     sync.RWMutex
	groups map[string]map[*remoting.Conn]*Channel
	log    zerolog.Logger
	now    func() time.Time
}

// NewProducerManager returns an empty manager.
func NewProducerManager(log zerolog.Logger) *ProducerManager {
	return &ProducerManager{groups: map[string]map[*remoting.Conn]*Channel{}, log: log, now: time.Now}
}

// Register records a producer heartbeat.
func (m *ProducerManager) Register(group string, ch Channel) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.groups[group]
	if g == nil {
		g = map[*remoting.Conn]*Channel{}
		m.groups[group] = g
	}
	if old := g[ch.Conn]; old != nil {
		old.LastUpdate = m.now()
		old.ClientID = ch.ClientID
		return
	}
	c := ch
	c.LastUpdate = m.now()
	g[ch.Conn] = &c
	m.log.Info().Str("group", group).Str("client", ch.ClientID).Str("remote", ch.Conn.RemoteAddr()).Msg("new producer connected")
}

// Unregister removes a producer channel.
func (m *ProducerManager) Unregister(group string, conn *remoting.Conn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g := m.groups[group]; g != nil {
		delete(g, conn)
		if len(g) == 0 {
			delete(m.groups, group)
		}
	}
}

// ConnClosed removes conn from every group.
func (m *ProducerManager) ConnClosed(conn *remoting.Conn) {
	m.removeWhere(func(c *Channel) bool { return c.Conn == conn })
}

// ScanExpired drops and closes channels without a heartbeat for 120 s.
func (m *ProducerManager) ScanExpired() {
	deadline := m.now().Add(-channelExpire)
	m.removeWhere(func(c *Channel) bool {
		if c.LastUpdate.Before(deadline) {
			m.log.Warn().Str("client", c.ClientID).Str("remote", c.Conn.RemoteAddr()).Msg("producer channel expired, closing it")
			_ = c.Conn.Close()
			return true
		}
		return false
	})
}

func (m *ProducerManager) removeWhere(pred func(*Channel) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, g := range m.groups {
		for k, c := range g {
			if pred(c) {
				delete(g, k)
			}
		}
		if len(g) == 0 {
			delete(m.groups, name)
		}
	}
}

// AvailableChannel returns a random live channel of group (Java: getAvailableChannel),
// or nil.
func (m *ProducerManager) AvailableChannel(group string) *Channel {
	m.mu.RLock()
	defer m.mu.RUnlock()
	g := m.groups[group]
	live := make([]*Channel, 0, len(g))
	for _, c := range g {
		if !c.Conn.Closed() {
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		return nil
	}
	c := *live[rand.IntN(len(live))]
	return &c
}

// FindByClientID returns any producer channel of clientID (Java: findChannel), or nil.
func (m *ProducerManager) FindByClientID(clientID string) *Channel {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, g := range m.groups {
		for _, c := range g {
			if c.ClientID == clientID && !c.Conn.Closed() {
				cc := *c
				return &cc
			}
		}
	}
	return nil
}

// Groups returns a snapshot: group → its channels.
func (m *ProducerManager) Groups() map[string][]Channel {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[string][]Channel, len(m.groups))
	for name, g := range m.groups {
		for _, c := range g {
			out[name] = append(out[name], *c)
		}
	}
	return out
}
