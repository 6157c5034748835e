package broker

// SEND_REPLY_MESSAGE (324), SEND_REPLY_MESSAGE_V2 (325): request-reply (Java:
// ReplyMessageProcessor). Not built yet (issue 4): the codes are not supported.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (b *Broker) sendReplyMessage(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return nil, protocol.NotSupported(req.Code)
}
