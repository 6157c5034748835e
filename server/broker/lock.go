package broker

// LOCK_BATCH_MQ (41), UNLOCK_BATCH_MQ (42): ordered-consumption queue locks.
// Java: AdminBrokerProcessor#lockBatchMQ / #unlockBatchMQ, RebalanceLockManager. A client
// holds a queue for its group until it unlocks it or stops renewing for
// rebalanceLockMaxLiveTime (60 s); another client of the group may then take it over.
// lockInStrictMode (cross-broker locking) is not built: each broker answers for itself,
// as Java does with the default lockInStrictMode=false.

import (
	"sync"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// lockMaxLiveTime is rocketmq.broker.rebalance.lockMaxLiveTime's default.
const lockMaxLiveTime = 60 * time.Second

type lockEntry struct {
	clientID   string
	lastUpdate time.Time
}

// lockTable is Java's RebalanceLockManager.
type lockTable struct {
	mu     sync.Mutex
	groups map[string]map[protocol.MessageQueue]*lockEntry
	now    func() time.Time
}

func newLockTable() *lockTable {
	return &lockTable{groups: map[string]map[protocol.MessageQueue]*lockEntry{}, now: time.Now}
}

// tryLock locks the queues it can for clientID and returns them.
func (t *lockTable) tryLock(group, clientID string, mqs []protocol.MessageQueue) []protocol.MessageQueue {
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
		case now.Sub(e.lastUpdate) > lockMaxLiveTime:
			e.clientID, e.lastUpdate = clientID, now
		default:
			continue
		}
		locked = append(locked, mq)
	}
	return locked
}

// unlock releases the queues clientID holds.
func (t *lockTable) unlock(group, clientID string, mqs []protocol.MessageQueue) {
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

func decodeLockBody(req *protocol.Command) (protocol.LockBatchRequestBody, error) {
	var body protocol.LockBatchRequestBody
	if err := protocol.UnmarshalBody(req.Body, &body); err != nil {
		return body, protocol.Errorf(protocol.ResSystemError, "%v", err)
	}
	return body, nil
}

func (b *Broker) lockBatchMQ(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	body, err := decodeLockBody(req)
	if err != nil {
		return nil, err
	}
	locked := b.locks.tryLock(body.ConsumerGroup, body.ClientID, body.MqSet)
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	out := append(make([]byte, 0, 64+len(locked)*64), `{"lockOKMQSet":[`...)
	for i, mq := range locked {
		if i > 0 {
			out = append(out, ',')
		}
		out = mq.AppendJSON(out)
	}
	resp.Body = append(out, "]}"...)
	return resp, nil
}

func (b *Broker) unlockBatchMQ(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	body, err := decodeLockBody(req)
	if err != nil {
		return nil, err
	}
	b.locks.unlock(body.ConsumerGroup, body.ClientID, body.MqSet)
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}
