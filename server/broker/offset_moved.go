package broker

// OFFSET_MOVED_EVENT records (Java: PullMessageProcessor#generateOffsetMovedEvent): when a
// master corrects a consumer's out-of-range pull offset it also stores an event in the
// OFFSET_MOVED_EVENT topic (queue 0, tags and keys = the group, DELAY=0), whose body is
// the OffsetMovedEvent JSON. Tools and Java brokers read it; storing it keeps CommitLog
// offsets and offset msgIds in step with a Java broker's.

import (
	"net/netip"
	"strings"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
)

func (b *Broker) offsetMovedEvent(group, topic string, queueID int32, requestOffset, newOffset int64) {
	if b.opts.Role == RoleSlave && !b.opts.Store.OffsetCheckInSlave {
		return
	}
	ev := protocol.OffsetMovedEvent{ConsumerGroup: group, MessageQueue: b.mq(topic, queueID), OffsetRequest: requestOffset, OffsetNew: newOffset}
	body := ev.AppendJSON(nil)
	var props message.Properties
	props.Set(message.PropertyTags, group)
	props.Set(message.PropertyDelayTimeLevel, "0")
	props.Set(message.PropertyKeys, group)
	host := b.storeHost
	if ap, err := netip.ParseAddrPort(b.addr); err == nil {
		host = ap
	}
	m := message.Message{Topic: meta.TopicOffsetMovedEvent, Body: body, BornTimestamp: time.Now().UnixMilli(),
		BornHost: host, StoreHost: host, Properties: props.AppendTo(nil)}
	if _, err := b.store.PutMessage(&m); err != nil {
		b.log.Warn().Err(err).Str("group", strings.Clone(group)).Msg("generateOffsetMovedEvent failed")
	}
}
