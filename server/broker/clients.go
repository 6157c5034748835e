package broker

import (
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// channelExpire is how long a client channel lives without a heartbeat (Java:
// ConsumerManager/ProducerManager CHANNEL_EXPIRED_TIMEOUT).
const channelExpire = 120 * time.Second

// ClientChannel is one client connection of a group (Java: ClientChannelInfo).
type ClientChannel struct {
	Conn       *remoting.Conn
	ClientID   string
	Language   protocol.LanguageCode
	Version    int32
	LastUpdate time.Time
}

// ConsumerGroup is Java's ConsumerGroupInfo.
type ConsumerGroup struct {
	Name             string
	ConsumeType      string
	MessageModel     string
	ConsumeFromWhere string
	Subscriptions    map[string]protocol.SubscriptionData // topic → subscription
	Channels         map[*remoting.Conn]*ClientChannel
	LastUpdate       time.Time
}

// ClientIDs returns the group's client ids, sorted (GET_CONSUMER_LIST_BY_GROUP).
func (g *ConsumerGroup) ClientIDs() []string {
	out := make([]string, 0, len(g.Channels))
	for _, c := range g.Channels {
		out = append(out, c.ClientID)
	}
	sort.Strings(out)
	return out
}

// ConsumerEvent is what ConsumerManager reports to its listener.
type ConsumerEvent int

const (
	ConsumerChanged    ConsumerEvent = iota // the group's channels changed: notify its clients
	ConsumerRegister                        // subscriptions registered (SQL92 filters)
	ConsumerUnregister                      // the group is gone
)

// ConsumerManager is Java's ConsumerManager: consumer groups, their channels and the
// subscriptions their heartbeats registered. Pulls filter with those subscriptions.
type ConsumerManager struct {
	mu       sync.RWMutex
	groups   map[string]*ConsumerGroup
	log      zerolog.Logger
	listener func(ev ConsumerEvent, group string, g *ConsumerGroup)
	now      func() time.Time
}

// NewConsumerManager returns an empty manager; listener may be nil.
func NewConsumerManager(log zerolog.Logger, listener func(ConsumerEvent, string, *ConsumerGroup)) *ConsumerManager {
	return &ConsumerManager{groups: map[string]*ConsumerGroup{}, log: log, listener: listener, now: time.Now}
}

func (m *ConsumerManager) emit(ev ConsumerEvent, group string, g *ConsumerGroup) {
	if m.listener != nil {
		m.listener(ev, group, g)
	}
}

// Register records a consumer heartbeat (Java: registerConsumer). It reports whether the
// group's channels or topics changed, and then notifies the group when notify is set.
func (m *ConsumerManager) Register(data *protocol.ConsumerData, ch ClientChannel, notify bool) bool {
	now := m.now()
	m.mu.Lock()
	g := m.groups[data.GroupName]
	if g == nil {
		g = &ConsumerGroup{Name: data.GroupName, Subscriptions: map[string]protocol.SubscriptionData{}, Channels: map[*remoting.Conn]*ClientChannel{}}
		m.groups[data.GroupName] = g
	}
	g.ConsumeType, g.MessageModel, g.ConsumeFromWhere = data.ConsumeType, data.MessageModel, data.ConsumeFromWhere
	changed := false
	if old := g.Channels[ch.Conn]; old == nil {
		c := ch
		c.LastUpdate = now
		g.Channels[ch.Conn] = &c
		changed = true
		m.log.Info().Str("group", data.GroupName).Str("client", ch.ClientID).Str("remote", ch.Conn.RemoteAddr()).Msg("new consumer connected")
	} else {
		if old.ClientID != ch.ClientID {
			old.ClientID = ch.ClientID
		}
		old.LastUpdate = now
	}
	subChanged := false
	seen := make(map[string]bool, len(data.SubscriptionDataSet))
	for _, sub := range data.SubscriptionDataSet {
		seen[sub.Topic] = true
		old, ok := g.Subscriptions[sub.Topic]
		if !ok {
			g.Subscriptions[sub.Topic] = sub
			subChanged = true
		} else if sub.SubVersion > old.SubVersion {
			g.Subscriptions[sub.Topic] = sub
		}
	}
	for topic := range g.Subscriptions {
		if !seen[topic] {
			delete(g.Subscriptions, topic)
			subChanged = true
		}
	}
	g.LastUpdate = now
	snapshot := g.cloneLocked()
	m.mu.Unlock()
	if (changed || subChanged) && notify {
		m.emit(ConsumerChanged, data.GroupName, snapshot)
	}
	m.emit(ConsumerRegister, data.GroupName, snapshot)
	return changed || subChanged
}

func (g *ConsumerGroup) cloneLocked() *ConsumerGroup {
	c := *g
	c.Subscriptions = make(map[string]protocol.SubscriptionData, len(g.Subscriptions))
	for k, v := range g.Subscriptions {
		c.Subscriptions[k] = v
	}
	c.Channels = make(map[*remoting.Conn]*ClientChannel, len(g.Channels))
	for k, v := range g.Channels {
		cc := *v
		c.Channels[k] = &cc
	}
	return &c
}

// Unregister removes a client of a group (UNREGISTER_CLIENT).
func (m *ConsumerManager) Unregister(group string, conn *remoting.Conn, notify bool) {
	m.mu.Lock()
	g := m.groups[group]
	if g == nil {
		m.mu.Unlock()
		return
	}
	delete(g.Channels, conn)
	var snapshot *ConsumerGroup
	gone := len(g.Channels) == 0
	if gone {
		delete(m.groups, group)
	} else {
		snapshot = g.cloneLocked()
	}
	m.mu.Unlock()
	if gone {
		m.emit(ConsumerUnregister, group, nil)
	} else if notify {
		m.emit(ConsumerChanged, group, snapshot)
	}
}

// ConnClosed removes conn from every group (Java: doChannelCloseEvent).
func (m *ConsumerManager) ConnClosed(conn *remoting.Conn) {
	m.removeWhere(func(c *ClientChannel) bool { return c.Conn == conn })
}

// ScanExpired drops channels without a heartbeat for 120 s, closing them.
func (m *ConsumerManager) ScanExpired() {
	deadline := m.now().Add(-channelExpire)
	m.removeWhere(func(c *ClientChannel) bool {
		if c.LastUpdate.Before(deadline) {
			m.log.Warn().Str("client", c.ClientID).Str("remote", c.Conn.RemoteAddr()).Msg("consumer channel expired, closing it")
			_ = c.Conn.Close()
			return true
		}
		return false
	})
}

func (m *ConsumerManager) removeWhere(pred func(*ClientChannel) bool) {
	type ev struct {
		name string
		g    *ConsumerGroup
		gone bool
	}
	var evs []ev
	m.mu.Lock()
	for name, g := range m.groups {
		removed := false
		for k, c := range g.Channels {
			if pred(c) {
				delete(g.Channels, k)
				removed = true
			}
		}
		if !removed {
			continue
		}
		if len(g.Channels) == 0 {
			delete(m.groups, name)
			evs = append(evs, ev{name: name, gone: true})
		} else {
			evs = append(evs, ev{name: name, g: g.cloneLocked()})
		}
	}
	m.mu.Unlock()
	for _, e := range evs {
		if e.gone {
			m.emit(ConsumerUnregister, e.name, nil)
		} else {
			m.emit(ConsumerChanged, e.name, e.g)
		}
	}
}

// Group returns a snapshot of a group, or nil.
func (m *ConsumerManager) Group(group string) *ConsumerGroup {
	m.mu.RLock()
	defer m.mu.RUnlock()
	g := m.groups[group]
	if g == nil {
		return nil
	}
	return g.cloneLocked()
}

// Subscription returns the subscription a group's heartbeat registered for topic.
func (m *ConsumerManager) Subscription(group, topic string) (protocol.SubscriptionData, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	g := m.groups[group]
	if g == nil {
		return protocol.SubscriptionData{}, false
	}
	s, ok := g.Subscriptions[topic]
	return s, ok
}

// FindChannel returns a group's channel of clientID.
func (m *ConsumerManager) FindChannel(group, clientID string) *ClientChannel {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if g := m.groups[group]; g != nil {
		for _, c := range g.Channels {
			if c.ClientID == clientID {
				cc := *c
				return &cc
			}
		}
	}
	return nil
}

// GroupsOfTopic returns the groups subscribed to topic (Java: queryTopicConsumeByWho).
func (m *ConsumerManager) GroupsOfTopic(topic string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	for name, g := range m.groups {
		if _, ok := g.Subscriptions[topic]; ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Groups returns every online group name, sorted.
func (m *ConsumerManager) Groups() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.groups))
	for k := range m.groups {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ProducerManager is Java's ProducerManager: producer groups and their channels, used for
// transaction check-back and request-reply.
type ProducerManager struct {
	mu     sync.RWMutex
	groups map[string]map[*remoting.Conn]*ClientChannel
	log    zerolog.Logger
	now    func() time.Time
}

// NewProducerManager returns an empty manager.
func NewProducerManager(log zerolog.Logger) *ProducerManager {
	return &ProducerManager{groups: map[string]map[*remoting.Conn]*ClientChannel{}, log: log, now: time.Now}
}

// Register records a producer heartbeat.
func (m *ProducerManager) Register(group string, ch ClientChannel) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.groups[group]
	if g == nil {
		g = map[*remoting.Conn]*ClientChannel{}
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
	m.removeWhere(func(c *ClientChannel) bool { return c.Conn == conn })
}

// ScanExpired drops and closes channels without a heartbeat for 120 s.
func (m *ProducerManager) ScanExpired() {
	deadline := m.now().Add(-channelExpire)
	m.removeWhere(func(c *ClientChannel) bool {
		if c.LastUpdate.Before(deadline) {
			m.log.Warn().Str("client", c.ClientID).Str("remote", c.Conn.RemoteAddr()).Msg("producer channel expired, closing it")
			_ = c.Conn.Close()
			return true
		}
		return false
	})
}

func (m *ProducerManager) removeWhere(pred func(*ClientChannel) bool) {
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
func (m *ProducerManager) AvailableChannel(group string) *ClientChannel {
	m.mu.RLock()
	defer m.mu.RUnlock()
	g := m.groups[group]
	live := make([]*ClientChannel, 0, len(g))
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
func (m *ProducerManager) FindByClientID(clientID string) *ClientChannel {
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
func (m *ProducerManager) Groups() map[string][]ClientChannel {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[string][]ClientChannel, len(m.groups))
	for name, g := range m.groups {
		for _, c := range g {
			out[name] = append(out[name], *c)
		}
	}
	return out
}
