package broker

// Delay levels: the schedule service that moves messages parked in SCHEDULE_TOPIC_XXXX to
// their real topic when due, with delayOffset.json (Java: ScheduleMessageService), and
// GET_ALL_DELAY_OFFSET (45). Built by the message-semantics work (issue 4); until then the
// service does not run and the code is not supported.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (b *Broker) startSchedule() error { return nil }

func (b *Broker) stopSchedule() {}

func (b *Broker) getAllDelayOffset(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return nil, protocol.NotSupported(req.Code)
}
