package broker

// CONSUMER_SEND_MSG_BACK (36): retry and dead-letter queues (Java:
// SendMessageProcessor#asyncConsumerSendMsgBack). Built by the message-semantics work
// (issue 4); until then the code is not supported and clients fall back to sending to
// %RETRY%<group> themselves, which send_message.go handles.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (b *Broker) consumerSendMsgBack(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return nil, protocol.NotSupported(req.Code)
}
