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
	data := protocol.BrokerStatsData{StatsMinute: brokerStatsItem(w.Minute), StatsHour: brokerStatsItem(w.Hour), StatsDay: brokerStatsItem(w.Day)}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = data.AppendJSON(nil)
	return resp, nil
}

func brokerStatsItem(w stats.Window) protocol.BrokerStatsItem {
	return protocol.BrokerStatsItem{Sum: w.Sum, Tps: w.TPS, Avgpt: w.AvgPT}
}

func (b *Broker) getBrokerConsumeStats(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumeStatsInBrokerHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	list := protocol.ConsumeStatsList{BrokerAddr: b.addr}
	for _, group := range b.subs.Groups() {
		gs := protocol.GroupConsumeStats{Group: group}
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
			cs := b.consumeStats(group, topic, protocol.ClampQueueNums(tc.WriteQueueNums))
			list.TotalDiff += cs.TotalDiff()
			gs.Stats = append(gs.Stats, cs)
		}
		list.ConsumeStatsList = append(list.ConsumeStatsList, gs)
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = list.AppendJSON(nil)
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

// consumeStats is the ConsumeStats of group on queues 0..queues-1 of topic.
func (b *Broker) consumeStats(group, topic string, queues int32) protocol.ConsumeStats {
	cs := protocol.ConsumeStats{ConsumeTps: b.stats.GroupGetTPS(group, topic),
		OffsetTable: make([]protocol.MessageQueueEntry[protocol.OffsetWrapper], 0, queues)}
	for i := int32(0); i < queues; i++ {
		brokerOffset := max64(b.store.MaxOffsetInQueue(topic, i), 0)
		consumerOffset := max64(b.offsets.Query(group, topic, i), 0)
		var last int64
		if consumerOffset > 0 {
			if ts := b.store.MessageStoreTimestamp(topic, i, consumerOffset-1); ts > 0 {
				last = ts
			}
		}
		cs.OffsetTable = append(cs.OffsetTable, protocol.MessageQueueEntry[protocol.OffsetWrapper]{Queue: b.mq(topic, i),
			Value: protocol.OffsetWrapper{BrokerOffset: brokerOffset, ConsumerOffset: consumerOffset, LastTimestamp: last}})
	}
	return cs
}
