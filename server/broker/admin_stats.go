package broker

// VIEW_BROKER_STATS_DATA (315) and GET_BROKER_CONSUME_STATS (317). Java:
// AdminBrokerProcessor#ViewBrokerStatsData / #fetchAllConsumeStatsInBroker.
//
//   - 315 answers BrokerStatsData {"statsDay":{..},"statsHour":{..},"statsMinute":{..}},
//     each {"avgpt":double,"sum":long,"tps":double}, for one item of a stats set
//     (package stats); an unknown set or key is SYSTEM_ERROR "The stats <name> <key> not exist".
//   - 317 answers ConsumeStatsList {"brokerAddr","consumeStatsList":[{group:[ConsumeStats..]}..],
//     "totalDiff"}: one entry per subscription group (an empty list when it has no
//     offsets), one ConsumeStats per topic it has offsets on, over the topic's write
//     queues; with isOrder only order topics. Topics the group's online consumers do not
//     subscribe are left out, as in GET_CONSUME_STATS.

import (
	"strconv"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/stats"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (b *Broker) viewBrokerStatsData(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.ViewBrokerStatsDataRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	w, ok := b.stats.View(h.StatsName, h.StatsKey)
	if !ok {
		return nil, protocol.Errorf(protocol.ResSystemError, "The stats <%s> <%s> not exist", h.StatsName, h.StatsKey)
	}
	out := []byte(`{"statsDay":`)
	out = appendStatsItem(out, w.Day)
	out = append(out, `,"statsHour":`...)
	out = appendStatsItem(out, w.Hour)
	out = append(out, `,"statsMinute":`...)
	out = appendStatsItem(out, w.Minute)
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = append(out, '}')
	return resp, nil
}

// appendStatsItem writes a BrokerStatsItem.
func appendStatsItem(dst []byte, w stats.Window) []byte {
	dst = append(dst, `{"avgpt":`...)
	dst = appendJavaDouble(dst, w.AvgPT)
	dst = append(dst, `,"sum":`...)
	dst = strconv.AppendInt(dst, w.Sum, 10)
	dst = append(dst, `,"tps":`...)
	dst = appendJavaDouble(dst, w.TPS)
	return append(dst, '}')
}

func (b *Broker) getBrokerConsumeStats(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumeStatsInBrokerHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	var totalDiff int64
	out := []byte(`{"brokerAddr":`)
	out = compat.AppendJSONString(out, b.addr)
	out = append(out, `,"consumeStatsList":[`...)
	for gi, group := range b.subs.Groups() {
		if gi > 0 {
			out = append(out, ',')
		}
		out = append(out, '{')
		out = appendJSONKey(out, group)
		out = append(out, '[')
		n := 0
		for _, topic := range b.offsets.TopicsOfGroup(group) {
			tc, ok := b.topics.Get(topic)
			if !ok {
				b.log.Warn().Str("topic", topic).Msg("consumeStats, topic config not exist")
				continue
			}
			if h.IsOrder && !tc.Order {
				continue
			}
			if !b.groupConsumes(group, topic) {
				continue
			}
			if n > 0 {
				out = append(out, ',')
			}
			n++
			var diff int64
			out, diff = b.appendConsumeStats(out, group, topic, protocol.ClampQueueNums(tc.WriteQueueNums))
			totalDiff += diff
		}
		out = append(out, "]}"...)
	}
	out = append(out, `],"totalDiff":`...)
	out = strconv.AppendInt(out, totalDiff, 10)
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = append(out, '}')
	return resp, nil
}

// groupConsumes is false when the group has online consumers and none subscribes topic
// (Java: findSubscriptionData == null && findSubscriptionDataCount > 0).
func (b *Broker) groupConsumes(group, topic string) bool {
	g := b.consumers.Group(group)
	if g == nil || len(g.Subscriptions) == 0 {
		return true
	}
	_, ok := g.Subscriptions[topic]
	return ok
}

// appendConsumeStats writes a ConsumeStats of group on queues 0..queues-1 of topic and
// returns its total diff (Java: ConsumeStats#computeTotalDiff).
func (b *Broker) appendConsumeStats(dst []byte, group, topic string, queues int32) ([]byte, int64) {
	var diff int64
	dst = append(dst, `{"consumeTps":`...)
	dst = appendJavaDouble(dst, b.stats.GroupGetTPS(group, topic))
	dst = append(dst, `,"offsetTable":{`...)
	for i := int32(0); i < queues; i++ {
		brokerOffset := max64(b.store.MaxOffsetInQueue(topic, i), 0)
		consumerOffset := max64(b.offsets.Query(group, topic, i), 0)
		var last int64
		if consumerOffset > 0 {
			if ts := b.store.MessageStoreTimestamp(topic, i, consumerOffset-1); ts > 0 {
				last = ts
			}
		}
		diff += brokerOffset - consumerOffset
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = b.mq(topic, i).AppendJSON(dst)
		dst = append(dst, `:{"brokerOffset":`...)
		dst = strconv.AppendInt(dst, brokerOffset, 10)
		dst = append(dst, `,"consumerOffset":`...)
		dst = strconv.AppendInt(dst, consumerOffset, 10)
		dst = append(dst, `,"lastTimestamp":`...)
		dst = strconv.AppendInt(dst, last, 10)
		dst = append(dst, '}')
	}
	return append(dst, "}}"...), diff
}
