package broker

// QUERY_MESSAGE (12), VIEW_MESSAGE_BY_ID (33) (Java: QueryMessageProcessor). Not built yet
// (issue 4): the codes are not supported.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (b *Broker) queryMessage(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return nil, protocol.NotSupported(req.Code)
}

func (b *Broker) viewMessageByID(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return nil, protocol.NotSupported(req.Code)
}
