package broker

// Transactional half messages are built by the message-semantics work (issue 4). Until
// then they are refused with NO_PERMISSION, as a broker with rejectTransactionMessage
// does, so no half message is ever delivered as a normal one.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (b *Broker) prepareHalfMessage(_ *remoting.Context, _ *sendScratch, resp *protocol.Command) (*protocol.Command, error) {
	return fail(resp, protocol.ResNoPermission, "the broker["+b.opts.BrokerIP1+"] sending transaction message is forbidden"), nil
}

func (b *Broker) endTransaction(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return nil, protocol.NotSupported(req.Code)
}

func (b *Broker) startTransactionCheck() {}

func (b *Broker) stopTransactionCheck() {}
