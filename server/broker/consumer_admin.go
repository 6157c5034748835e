package broker

// Consumer and topic views for mqadmin, the dashboard and the exporter, and the
// broker→client calls they relay. Java: AdminBrokerProcessor, Broker2Client.
//
//   GET_TOPIC_STATS_INFO (202), GET_CONSUMER_CONNECTION_LIST (203),
//   GET_PRODUCER_CONNECTION_LIST (204), GET_CONSUME_STATS (208),
//   INVOKE_BROKER_TO_RESET_OFFSET (222) → RESET_CONSUMER_CLIENT_OFFSET (220),
//   INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223) → GET_CONSUMER_STATUS_FROM_CLIENT (221),
//   QUERY_TOPIC_CONSUME_BY_WHO (300), GET_CONSUMER_RUNNING_INFO (307) and
//   CONSUME_MESSAGE_DIRECTLY (309), relayed to the client verbatim.
//
// The bodies are protocol types (protocol/body_admin.go). Those keyed by MessageQueue are
// written in fastjson's object-key form, the only form Java tools read and the one the Go
// client's reset-offset parser expects, in queue order.

import (
	"context"
	"sort"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/clients"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (b *Broker) mq(topic string, queue int32) protocol.MessageQueue {
	return protocol.MessageQueue{Topic: topic, BrokerName: b.opts.BrokerName, QueueID: queue}
}

func (b *Broker) getTopicStatsInfo(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetTopicStatsInfoRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	tc, ok := b.topics.Get(h.Topic)
	if !ok {
		return nil, protocol.Errorf(protocol.ResTopicNotExist, "topic[%s] not exist", h.Topic)
	}
	// The answer is proportional to the queue count, which every path that sets one bounds
	// by protocol.MaxQueueNums (Java: none; it answers OutOfMemoryError for millions).
	n := protocol.ClampQueueNums(tc.WriteQueueNums)
	stats := protocol.TopicStatsTable{OffsetTable: make([]protocol.MessageQueueEntry[protocol.TopicOffset], 0, n)}
	for i := int32(0); i < n; i++ {
		min := max64(b.store.MinOffsetInQueue(h.Topic, i), 0)
		maxOff := max64(b.store.MaxOffsetInQueue(h.Topic, i), 0)
		var ts int64
		if maxOff > 0 {
			ts = b.store.MessageStoreTimestamp(h.Topic, i, maxOff-1)
		}
		stats.OffsetTable = append(stats.OffsetTable, protocol.MessageQueueEntry[protocol.TopicOffset]{
			Queue: b.mq(h.Topic, i), Value: protocol.TopicOffset{MinOffset: min, MaxOffset: maxOff, LastUpdateTimestamp: ts}})
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = stats.AppendJSON(nil)
	return resp, nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// connections lists the channels as a Connection set, by client id.
func connections(chans []*clients.Channel) []protocol.Connection {
	sort.Slice(chans, func(i, j int) bool { return chans[i].ClientID < chans[j].ClientID })
	set := make([]protocol.Connection, len(chans))
	for i, c := range chans {
		set[i] = protocol.Connection{ClientID: c.ClientID, ClientAddr: c.Conn.RemoteAddr(), Language: c.Language, Version: c.Version}
	}
	return set
}

func (b *Broker) getConsumerConnectionList(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumerConnectionListRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	g := b.consumers.Group(h.ConsumerGroup)
	if g == nil {
		return nil, protocol.Errorf(protocol.ResConsumerNotOnline, "the consumer group[%s] not online", h.ConsumerGroup)
	}
	chans := make([]*clients.Channel, 0, len(g.Channels))
	for _, c := range g.Channels {
		chans = append(chans, c)
	}
	cc := protocol.ConsumerConnection{ConnectionSet: connections(chans), ConsumeType: g.ConsumeType, MessageModel: g.MessageModel,
		ConsumeFromWhere: g.ConsumeFromWhere, SubscriptionTable: g.Subscriptions}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = cc.AppendJSON(nil)
	return resp, nil
}

func (b *Broker) getProducerConnectionList(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetProducerConnectionListRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	groups := b.producers.Groups()
	list, ok := groups[h.ProducerGroup]
	if !ok {
		return nil, protocol.Errorf(protocol.ResSystemError, "the producer group[%s] not exist", h.ProducerGroup)
	}
	chans := make([]*clients.Channel, len(list))
	for i := range list {
		chans[i] = &list[i]
	}
	pc := protocol.ProducerConnection{ConnectionSet: connections(chans)}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = pc.AppendJSON(nil)
	return resp, nil
}

func (b *Broker) getConsumeStats(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumeStatsRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	topics := []string{h.Topic}
	if isBlank(h.Topic) {
		topics = b.offsets.TopicsOfGroup(h.ConsumerGroup)
	}
	g := b.consumers.Group(h.ConsumerGroup)
	var cs protocol.ConsumeStats
	for _, topic := range topics {
		tc, ok := b.topics.Get(topic)
		if !ok {
			b.log.Warn().Str("topic", topic).Msg("consumeStats, topic config not exist")
			continue
		}
		if g != nil && len(g.Subscriptions) > 0 {
			if _, ok := g.Subscriptions[topic]; !ok {
				continue
			}
		}
		for i := int32(0); i < protocol.ClampQueueNums(tc.ReadQueueNums); i++ {
			brokerOffset := max64(b.store.MaxOffsetInQueue(topic, i), 0)
			consumerOffset := max64(b.offsets.Query(h.ConsumerGroup, topic, i), 0)
			var last int64
			if consumerOffset-1 >= 0 {
				if ts := b.store.MessageStoreTimestamp(topic, i, consumerOffset-1); ts > 0 {
					last = ts
				}
			}
			cs.OffsetTable = append(cs.OffsetTable, protocol.MessageQueueEntry[protocol.OffsetWrapper]{Queue: b.mq(topic, i),
				Value: protocol.OffsetWrapper{BrokerOffset: brokerOffset, ConsumerOffset: consumerOffset, LastTimestamp: last}})
		}
		cs.ConsumeTps += b.stats.GroupGetTPS(h.ConsumerGroup, topic)
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = cs.AppendJSON(nil)
	return resp, nil
}

func (b *Broker) queryTopicConsumeByWho(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryTopicConsumeByWhoRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, g := range b.consumers.GroupsOfTopic(h.Topic) {
		set[g] = true
	}
	for _, g := range b.offsets.GroupsOfTopic(h.Topic) {
		set[g] = true
	}
	list := protocol.GroupList{GroupList: make([]string, 0, len(set))}
	for g := range set {
		list.GroupList = append(list.GroupList, g)
	}
	sort.Strings(list.GroupList)
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = list.AppendJSON(nil)
	return resp, nil
}

// callConsumer relays a request to one client of a group and returns its answer verbatim
// (Java: AdminBrokerProcessor#callConsumer).
func (b *Broker) callConsumer(code protocol.RequestCode, req *protocol.Command, group, clientID string) (*protocol.Command, error) {
	ch := b.consumers.FindChannel(group, clientID)
	if ch == nil {
		return nil, protocol.Errorf(protocol.ResSystemError, "The Consumer <%s> <%s> not online", group, clientID)
	}
	if ch.Version < protocol.VersionV3_1_8_Snapshot {
		return nil, protocol.Errorf(protocol.ResSystemError, "The Consumer <%s> Version <%s> too low to finish, please upgrade it to V3_1_8_SNAPSHOT",
			clientID, protocol.VersionDesc(ch.Version))
	}
	fwd := protocol.NewRequest(code)
	fwd.Ext = append(fwd.Ext[:0], req.Ext...)
	fwd.Body = req.Body
	resp, err := ch.Conn.Invoke(context.Background(), fwd, callClientTimeout)
	if err != nil {
		if remoting.IsTimeout(err) {
			return nil, protocol.Errorf(protocol.ResConsumeMsgTimeout, "consumer <%s> <%s> Timeout: %v", group, clientID, err)
		}
		return nil, protocol.Errorf(protocol.ResSystemError, "invoke consumer <%s> <%s> Exception: %v", group, clientID, err)
	}
	out := protocol.NewResponse(req, protocol.ResponseCode(resp.Code), resp.Remark)
	out.HasRemark = resp.HasRemark
	out.Ext = append(out.Ext[:0], resp.Ext...)
	out.Body = resp.Body
	out.Language, out.Version = resp.Language, resp.Version
	return out, nil
}

func (b *Broker) getConsumerRunningInfo(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumerRunningInfoRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	return b.callConsumer(protocol.CodeGetConsumerRunningInfo, req, h.ConsumerGroup, h.ClientID)
}

func (b *Broker) consumeMessageDirectly(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.ConsumeMessageDirectlyResultRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	req.Ext.Set("brokerName", b.opts.BrokerName)
	if _, off, err := message.DecodeOffsetMsgID(h.MsgID); err == nil {
		if rec, release, err := b.store.MessageByOffset(off); err == nil {
			req.Body = append([]byte(nil), rec...)
			release()
		}
	}
	return b.callConsumer(protocol.CodeConsumeMessageDirectly, req, h.ConsumerGroup, h.ClientID)
}

// invokeBrokerToResetOffset computes the reset offsets of a group's topic and pushes them
// to every client of the group (Java: Broker2Client#resetOffset).
func (b *Broker) invokeBrokerToResetOffset(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.ResetOffsetRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	b.log.Info().Str("remote", ctx.Conn.RemoteAddr()).Str("topic", h.Topic).Str("group", h.Group).Int64("timestamp", h.Timestamp).
		Bool("force", h.IsForce).Msg("[reset-offset] reset offset started")
	tc, ok := b.topics.Get(h.Topic)
	if !ok {
		return nil, protocol.Errorf(protocol.ResSystemError, "[reset-offset] reset offset failed, no topic in this broker. topic=%s", h.Topic)
	}
	var table protocol.ResetOffsetBody
	for i := int32(0); i < protocol.ClampQueueNums(tc.WriteQueueNums); i++ {
		consumerOffset := b.offsets.Query(h.Group, h.Topic, i)
		if consumerOffset == -1 {
			return nil, protocol.Errorf(protocol.ResSystemError, "THe consumer group <%s> not exist", h.Group)
		}
		var target int64
		if h.Timestamp == -1 {
			target = b.store.MaxOffsetInQueue(h.Topic, i)
		} else {
			target = b.store.OffsetInQueueByTime(h.Topic, i, h.Timestamp)
		}
		if target < 0 {
			target = 0
		}
		offset := consumerOffset
		if h.IsForce || target < consumerOffset {
			offset = target
		}
		table.OffsetTable = append(table.OffsetTable, protocol.MessageQueueEntry[int64]{Queue: b.mq(h.Topic, i), Value: offset})
	}
	mapBody := table.AppendJSON(nil)
	push := mapBody
	if req.Language == protocol.LanguageCPP { // ResetOffsetBodyForC: a list of MessageQueueForC
		push = table.AppendJSONForC(nil)
	}
	g := b.consumers.Group(h.Group)
	if g == nil || len(g.Channels) == 0 {
		return nil, protocol.Errorf(protocol.ResConsumerNotOnline, "Consumer not online, so can not reset offset, Group: %s Topic: %s Timestamp: %d",
			h.Group, h.Topic, h.Timestamp)
	}
	for conn, ch := range g.Channels {
		if ch.Version < protocol.VersionV3_0_7_Snapshot {
			return nil, protocol.Errorf(protocol.ResSystemError, "the client does not support this feature. version=%s", protocol.VersionDesc(ch.Version))
		}
		r := protocol.NewRequest(protocol.CodeResetConsumerClientOffset)
		ph := protocol.ResetOffsetRequestHeader{Topic: h.Topic, Group: h.Group, Timestamp: h.Timestamp}
		ph.Encode(&r.Ext)
		r.Body = push
		if err := conn.InvokeOneway(r); err != nil {
			b.log.Warn().Err(err).Str("client", ch.ClientID).Msg("[reset-offset] reset offset exception")
		} else {
			b.log.Info().Str("topic", h.Topic).Str("group", h.Group).Str("client", ch.ClientID).Msg("[reset-offset] reset offset success")
		}
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = mapBody
	return resp, nil
}

// invokeBrokerToGetConsumerStatus asks each client of a group for its offsets (Java:
// Broker2Client#getConsumeStatus) and answers GetConsumerStatusBody.
func (b *Broker) invokeBrokerToGetConsumerStatus(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumerStatusRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	g := b.consumers.Group(h.Group)
	if g == nil || len(g.Channels) == 0 {
		return nil, protocol.Errorf(protocol.ResSystemError, "No Any Consumer online in the consumer group: [%s]", h.Group)
	}
	chans := make([]*clients.Channel, 0, len(g.Channels))
	for _, c := range g.Channels {
		chans = append(chans, c)
	}
	sort.Slice(chans, func(i, j int) bool { return chans[i].ClientID < chans[j].ClientID })
	var status protocol.GetConsumerStatusBody
	for _, ch := range chans {
		if ch.Version < protocol.VersionV3_0_7_Snapshot {
			return nil, protocol.Errorf(protocol.ResSystemError, "the client does not support this feature. version=%s", protocol.VersionDesc(ch.Version))
		}
		if !isBlank(h.ClientAddr) && h.ClientAddr != ch.ClientID {
			continue
		}
		ask := protocol.NewRequest(protocol.CodeGetConsumerStatusFromClient)
		ah := protocol.GetConsumerStatusRequestHeader{Topic: h.Topic, Group: h.Group}
		ah.Encode(&ask.Ext)
		r, err := ch.Conn.Invoke(context.Background(), ask, 5*callClientTimeout/10)
		if err != nil {
			b.log.Warn().Err(err).Str("topic", h.Topic).Str("group", h.Group).Msg("[get-consumer-status] get consumer status exception")
		} else if r.ResponseCode() == protocol.ResSuccess && len(r.Body) > 0 {
			client, err := protocol.DecodeGetConsumerStatusBody(r.Body)
			if err != nil {
				b.log.Warn().Err(err).Str("client", ch.ClientID).Msg("[get-consumer-status] bad body")
			} else {
				status.ConsumerTable = append(status.ConsumerTable, protocol.ClientQueueOffsets{ClientID: ch.ClientID, Table: client.MessageQueueTable})
			}
		}
		if !isBlank(h.ClientAddr) {
			break
		}
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = status.AppendJSON(nil)
	return resp, nil
}
