package broker

// LOCK_BATCH_MQ (41), UNLOCK_BATCH_MQ (42): ordered-consumption queue locks.
// Java: AdminBrokerProcessor#lockBatchMQ / #unlockBatchMQ over RebalanceLockManager
// (clients.LockTable). A client holds a queue for its group until it unlocks it or
// stops renewing for rebalanceLockMaxLiveTime (60 s); another client of the group may
// then take it over.
// lockInStrictMode (cross-broker locking) is not built: each broker answers for itself,
// as Java does with the default lockInStrictMode=false.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func decodeLockBody(req *protocol.Command) (protocol.LockBatchRequestBody, error) {
	body, err := protocol.DecodeLockBatchRequestBody(req.Body)
	if err != nil {
		return body, protocol.Errorf(protocol.ResSystemError, "%v", err)
	}
	return body, nil
}

func (b *Broker) lockBatchMQ(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	body, err := decodeLockBody(req)
	if err != nil {
		return nil, err
	}
	locked := protocol.LockBatchResponseBody{LockOKMQSet: b.locks.TryLock(body.ConsumerGroup, body.ClientID, body.MqSet)}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = locked.AppendJSON(make([]byte, 0, 64+len(locked.LockOKMQSet)*64))
	return resp, nil
}

func (b *Broker) unlockBatchMQ(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	body, err := decodeLockBody(req)
	if err != nil {
		return nil, err
	}
	b.locks.Unlock(body.ConsumerGroup, body.ClientID, body.MqSet)
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}
