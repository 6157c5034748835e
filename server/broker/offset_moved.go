package broker

// OFFSET_MOVED_EVENT records (Java: PullMessageProcessor#generateOffsetMovedEvent): when a
// master corrects a consumer's out-of-range pull offset it also stores an event in the
// OFFSET_MOVED_EVENT topic (queue 0, tags and keys = the group, DELAY=0), whose body is
// the OffsetMovedEvent JSON. Tools and Java brokers read it; storing it keeps CommitLog
// offsets and offset msgIds in step with a Java broker's.

import (
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
)

func (b *Broker) offsetMovedEvent(group, topic string, queueID int32, requestOffset, newOffset int64) {
	if b.opts.Role == RoleSlave && !b.opts.Store.OffsetCheckInSlave {
		return
	}
	body := []byte(`{"consumerGroup":`)
	body = compat.AppendJSONString(body, group)
	body = append(body, `,"messageQueue":`...)
	body = b.mq(topic, queueID).AppendJSON(body)
	body = append(body, `,"offsetNew":`...)
	body = strconv.AppendInt(body, newOffset, 10)
	body = append(body, `,"offsetRequest":`...)
	body = strconv.AppendInt(body, requestOffset, 10)
	body = append(body, '}')
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
