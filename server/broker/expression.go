package broker

// SQL92 property filters are built by the message-semantics work (issue 4). Until then
// a SQL92 subscription is refused with Java's FILTER_DATA_NOT_EXIST answer at pull time
// and SUBSCRIPTION_PARSE_FAILED at CHECK_CLIENT_CONFIG, so a client sees a clear error
// instead of unfiltered messages.

import (
	"errors"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/store"
)

var errSQL92NotBuilt = errors.New("SQL92 filtering is not supported by this broker yet")

func compileExpression(typ, expr string) error { return errSQL92NotBuilt }

func (b *Broker) registerFilters(*protocol.ConsumerData) {}

func (b *Broker) filtersOnConsumerEvent(ConsumerEvent, string, *ConsumerGroup) {}

func (b *Broker) expressionFilter(_ *protocol.PullMessageRequestHeader, _ *protocol.SubscriptionData, resp *protocol.Command) (store.Filter, *protocol.Command) {
	return nil, fail(resp, protocol.ResFilterDataNotExist, "The broker's consumer filter data is not exist!Your expression may be wrong!")
}
