package clients

import (
	"sort"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// ConsumerGroup is Java's ConsumerGroupInfo.
type ConsumerGroup struct {
	Name             string
	ConsumeType      string
	MessageModel     string
	ConsumeFromWhere string
	Subscriptions    map[string]protocol.SubscriptionData // topic → subscription
	Channels         map[*remoting.Conn]*Channel
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
func (m *ConsumerManager) Register(data *protocol.ConsumerData, ch Channel, notify bool) bool {
	now := m.now()
	m.mu.Lock()
	g := m.groups[data.GroupName]
	if g == nil {
		g = &ConsumerGroup{Name: data.GroupName, Subscriptions: map[string]protocol.SubscriptionData{}, Channels: map[*remoting.Conn]*Channel{}}
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
	c.Channels = make(map[*remoting.Conn]*Channel, len(g.Channels))
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
	m.removeWhere(func(c *Channel) bool { return c.Conn == conn })
}

// ScanExpired drops channels without a heartbeat for 120 s, closing them.
func (m *ConsumerManager) ScanExpired() {
	deadline := m.now().Add(-channelExpire)
	m.removeWhere(func(c *Channel) bool {
		if c.LastUpdate.Before(deadline) {
			m.log.Warn().Str("client", c.ClientID).Str("remote", c.Conn.RemoteAddr()).Msg("consumer channel expired, closing it")
			_ = c.Conn.Close()
			return true
		}
		return false
	})
}

func (m *ConsumerManager) removeWhere(pred func(*Channel) bool) {
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
	gs, ok := m.FindSubscription(group, topic)
	return gs.Subscription, ok && gs.Subscribed
}

// GroupSubscription is what a pull without FLAG_SUBSCRIPTION reads of its group (Java:
// PullMessageProcessor reads ConsumerGroupInfo#getMessageModel and #findSubscriptionData).
type GroupSubscription struct {
	MessageModel string
	Subscription protocol.SubscriptionData // the one registered for the topic asked about
	Subscribed   bool                      // false: the group does not subscribe the topic
}

// FindSubscription looks up group's message model and its subscription to topic
// without copying the group (Group copies every subscription and channel, which a pull
// per queue per consumer would pay each time). The SubscriptionData is a shallow copy:
// the heartbeat that registered it owns its TagsSet and CodeSet, which are replaced,
// never changed, by later heartbeats, so they are safe to read. ok is false when no
// consumer of the group is online.
func (m *ConsumerManager) FindSubscription(group, topic string) (gs GroupSubscription, ok bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	g := m.groups[group]
	if g == nil {
		return gs, false
	}
	gs.MessageModel = g.MessageModel
	gs.Subscription, gs.Subscribed = g.Subscriptions[topic]
	return gs, true
}

// FindChannel returns a group's channel of clientID.
func (m *ConsumerManager) FindChannel(group, clientID string) *Channel {
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
