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
// Bodies keyed by MessageQueue are written in fastjson's object-key form, the only form
// Java tools read and the one the Go client's reset-offset parser expects.

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/compat"
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
	out := []byte(`{"offsetTable":{`)
	for i := int32(0); i < protocol.ClampQueueNums(tc.WriteQueueNums); i++ {
		min := max64(b.store.MinOffsetInQueue(h.Topic, i), 0)
		maxOff := max64(b.store.MaxOffsetInQueue(h.Topic, i), 0)
		var ts int64
		if maxOff > 0 {
			ts = b.store.MessageStoreTimestamp(h.Topic, i, maxOff-1)
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = b.mq(h.Topic, i).AppendJSON(out)
		out = append(out, `:{"lastUpdateTimestamp":`...)
		out = strconv.AppendInt(out, ts, 10)
		out = append(out, `,"maxOffset":`...)
		out = strconv.AppendInt(out, maxOff, 10)
		out = append(out, `,"minOffset":`...)
		out = strconv.AppendInt(out, min, 10)
		out = append(out, '}')
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = append(out, "}}"...)
	return resp, nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// appendConnections writes a Connection set (Java: Connection, fields alphabetical).
func appendConnections(dst []byte, chans []*clients.Channel) []byte {
	sort.Slice(chans, func(i, j int) bool { return chans[i].ClientID < chans[j].ClientID })
	dst = append(dst, `"connectionSet":[`...)
	for i, c := range chans {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"clientAddr":`...)
		dst = compat.AppendJSONString(dst, c.Conn.RemoteAddr())
		dst = append(dst, `,"clientId":`...)
		dst = compat.AppendJSONString(dst, c.ClientID)
		dst = append(dst, `,"language":"`...)
		dst = append(dst, c.Language.String()...)
		dst = append(dst, `","version":`...)
		dst = strconv.AppendInt(dst, int64(c.Version), 10)
		dst = append(dst, '}')
	}
	return append(dst, ']')
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
	out := appendConnections([]byte{'{'}, chans)
	out = append(out, `,"consumeFromWhere":`...)
	out = compat.AppendJSONString(out, g.ConsumeFromWhere)
	out = append(out, `,"consumeType":`...)
	out = compat.AppendJSONString(out, g.ConsumeType)
	out = append(out, `,"messageModel":`...)
	out = compat.AppendJSONString(out, g.MessageModel)
	out = append(out, `,"subscriptionTable":{`...)
	topics := make([]string, 0, len(g.Subscriptions))
	for t := range g.Subscriptions {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	for i, t := range topics {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendJSONKey(out, t)
		sub := g.Subscriptions[t]
		out = sub.AppendJSON(out)
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = append(out, "}}"...)
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
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = append(appendConnections([]byte{'{'}, chans), '}')
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
	var entries []byte
	tps := 0.0
	n := 0
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
			if n > 0 {
				entries = append(entries, ',')
			}
			n++
			entries = b.mq(topic, i).AppendJSON(entries)
			entries = append(entries, `:{"brokerOffset":`...)
			entries = strconv.AppendInt(entries, brokerOffset, 10)
			entries = append(entries, `,"consumerOffset":`...)
			entries = strconv.AppendInt(entries, consumerOffset, 10)
			entries = append(entries, `,"lastTimestamp":`...)
			entries = strconv.AppendInt(entries, last, 10)
			entries = append(entries, '}')
		}
		tps += b.stats.GroupGetTPS(h.ConsumerGroup, topic)
	}
	out := []byte(`{"consumeTps":`)
	out = appendJavaDouble(out, tps)
	out = append(out, `,"offsetTable":{`...)
	out = append(out, entries...)
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = append(out, "}}"...)
	return resp, nil
}

// appendJavaDouble writes a double as fastjson does (always with a fraction: 0.0, 1.5).
func appendJavaDouble(dst []byte, v float64) []byte {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	dst = append(dst, s...)
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || s[i] == 'e' || s[i] == 'E' {
			return dst
		}
	}
	return append(dst, ".0"...)
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
	groups := make([]string, 0, len(set))
	for g := range set {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	out := []byte(`{"groupList":[`)
	for i, g := range groups {
		if i > 0 {
			out = append(out, ',')
		}
		out = compat.AppendJSONString(out, g)
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = append(out, "]}"...)
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
	type entry struct {
		queue  int32
		offset int64
	}
	var table []entry
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
		if h.IsForce || target < consumerOffset {
			table = append(table, entry{i, target})
		} else {
			table = append(table, entry{i, consumerOffset})
		}
	}
	mapBody := []byte(`{"offsetTable":{`)
	for i, e := range table {
		if i > 0 {
			mapBody = append(mapBody, ',')
		}
		mapBody = b.mq(h.Topic, e.queue).AppendJSON(mapBody)
		mapBody = append(mapBody, ':')
		mapBody = strconv.AppendInt(mapBody, e.offset, 10)
	}
	mapBody = append(mapBody, "}}"...)
	push := mapBody
	if req.Language == protocol.LanguageCPP { // ResetOffsetBodyForC: a list of MessageQueueForC
		push = []byte(`{"offsetTable":[`)
		for i, e := range table {
			if i > 0 {
				push = append(push, ',')
			}
			push = append(push, `{"brokerName":`...)
			push = compat.AppendJSONString(push, b.opts.BrokerName)
			push = append(push, `,"offset":`...)
			push = strconv.AppendInt(push, e.offset, 10)
			push = append(push, `,"queueId":`...)
			push = strconv.AppendInt(push, int64(e.queue), 10)
			push = append(push, `,"topic":`...)
			push = compat.AppendJSONString(push, h.Topic)
			push = append(push, '}')
		}
		push = append(push, "]}"...)
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
	table := []byte(`{"consumerTable":{`)
	n := 0
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
			mqTable, err := parseMessageQueueTable(r.Body)
			if err != nil {
				b.log.Warn().Err(err).Str("client", ch.ClientID).Msg("[get-consumer-status] bad body")
			} else {
				if n > 0 {
					table = append(table, ',')
				}
				n++
				table = appendJSONKey(table, ch.ClientID)
				table = append(table, mqTable...)
			}
		}
		if !isBlank(h.ClientAddr) {
			break
		}
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = append(table, `},"messageQueueTable":{}}`...)
	return resp, nil
}

// parseMessageQueueTable reads a client's {"messageQueueTable":{{mq}:offset}} (written by
// hand in fastjson's dialect by the Go client) and re-writes the table in Java's form.
func parseMessageQueueTable(body []byte) ([]byte, error) {
	std, err := compat.NormalizeJSON(body)
	if err != nil {
		return nil, err
	}
	var v struct {
		MessageQueueTable map[string]int64 `json:"messageQueueTable"`
	}
	if err := protocol.UnmarshalBody(std, &v); err != nil {
		return nil, err
	}
	type kv struct {
		mq  protocol.MessageQueue
		off int64
	}
	var list []kv
	for k, off := range v.MessageQueueTable {
		topic, broker, q, err := compat.ParseMessageQueueKey(k)
		if err != nil {
			return nil, fmt.Errorf("message queue key %q: %w", k, err)
		}
		list = append(list, kv{protocol.MessageQueue{Topic: topic, BrokerName: broker, QueueID: q}, off})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].mq.Topic != list[j].mq.Topic {
			return list[i].mq.Topic < list[j].mq.Topic
		}
		if list[i].mq.BrokerName != list[j].mq.BrokerName {
			return list[i].mq.BrokerName < list[j].mq.BrokerName
		}
		return list[i].mq.QueueID < list[j].mq.QueueID
	})
	out := []byte{'{'}
	for i, e := range list {
		if i > 0 {
			out = append(out, ',')
		}
		out = e.mq.AppendJSON(out)
		out = append(out, ':')
		out = strconv.AppendInt(out, e.off, 10)
	}
	return append(out, '}'), nil
}
