package clients

import (
	"sync"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// LockMaxLiveTime is how long a queue lock lives without renewal: another client of the
// group may take the queue after it (rocketmq.broker.rebalance.lockMaxLiveTime's default).
const LockMaxLiveTime = 60 * time.Second

type lockEntry struct {
	clientID   string
	lastUpdate time.Time
}

// LockTable is Java's RebalanceLockManager: per consumer group, which client holds which
// queue for ordered consumption (LOCK_BATCH_MQ, UNLOCK_BATCH_MQ).
type LockTable struct {
	mu     sync.Mutex
	groups map[string]map[protocol.MessageQueue]*lockEntry
	now    func() time.Time
}

// NewLockTable returns an empty table.
func NewLockTable() *LockTable {
	return &LockTable{groups: map[string]map[protocol.MessageQueue]*lockEntry{}, now: time.Now}
}

// TryLock locks the queues it can for clientID (free, already its own, or expired) and
// returns them.
func (t *LockTable) TryLock(group, clientID string, mqs []protocol.MessageQueue) []protocol.MessageQueue {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.groups[group]
	if g == nil {
		g = map[protocol.MessageQueue]*lockEntry{}
		t.groups[group] = g
	}
	locked := make([]protocol.MessageQueue, 0, len(mqs))
	for _, mq := range mqs {
		e := g[mq]
		switch {
		case e == nil:
			g[mq] = &lockEntry{clientID: clientID, lastUpdate: now}
		case e.clientID == clientID:
			e.lastUpdate = now
		case now.Sub(e.lastUpdate) > LockMaxLiveTime:
			e.clientID, e.lastUpdate = clientID, now
		default:
			continue
		}
		locked = append(locked, mq)
	}
	return locked
}

// Unlock releases the queues clientID holds.
func (t *LockTable) Unlock(group, clientID string, mqs []protocol.MessageQueue) {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.groups[group]
	for _, mq := range mqs {
		if e := g[mq]; e != nil && e.clientID == clientID {
			delete(g, mq)
		}
	}
	if len(g) == 0 {
		delete(t.groups, group)
	}
}
