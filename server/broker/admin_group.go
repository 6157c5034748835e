package broker

// Consumer group administration. Java: AdminBrokerProcessor.
//
//   - UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200): body SubscriptionGroupConfig (fields
//     missing from the body keep Java's defaults); stored and persisted with a new
//     DataVersion. Refused on a slave.
//   - DELETE_SUBSCRIPTIONGROUP (207): groupName, removeOffset (drops the group's
//     committed offsets too); the group's statistics go when autoDeleteUnusedStats.
//     Refused on a slave.
//   - QUERY_CONSUME_TIME_SPAN (303): per write queue of a topic, the store times of the
//     first and last message, of the last consumed one, and how long the next one has
//     waited. Java's arithmetic is kept as is, including for queues without messages or
//     offsets (store times of -1, a delay measured from -1).
//   - QUERY_CORRECTION_OFFSET (308): per queue, the smallest offset committed on topic
//     by the groups not listed in filterGroups (offsets below the queue's min offset
//     ignored), then Long.MAX_VALUE where compareGroup has gone further. Java removes
//     the filtered groups' offsets from its table while computing this (it iterates
//     keySet() and removes); Skyrocket leaves them alone.
//   - CLONE_GROUP_OFFSET (314): copies srcGroup's offsets to destGroup for the header's
//     topic. Java checks each topic the source group has offsets on but clones only the
//     header's topic, so without a topic nothing is cloned; kept. Java replaces the
//     destination's table of that topic; here queues only the destination has keep
//     their offsets.

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (b *Broker) updateAndCreateSubscriptionGroup(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	if err := b.slaveRefusal(); err != nil {
		return nil, err
	}
	b.log.Info().Str("remote", remoteOf(ctx)).Msg("updateAndCreateSubscriptionGroup called")
	if len(req.Body) > 0 {
		c := protocol.NewSubscriptionGroupConfig("")
		if err := decodeFastJSON(req.Body, &c); err != nil {
			return nil, protocol.Errorf(protocol.ResSystemError, "decode SubscriptionGroupConfig: %v", err)
		}
		if pe := meta.ValidateGroup(c.GroupName); pe != nil {
			return nil, pe
		}
		b.subs.Update(c)
	}
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

// decodeFastJSON reads a body written by fastjson (unquoted or object keys allowed).
func decodeFastJSON(body []byte, v any) error {
	std, err := compat.NormalizeJSON(body)
	if err != nil {
		return err
	}
	return protocol.UnmarshalBody(std, v)
}

func (b *Broker) deleteSubscriptionGroup(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	if err := b.slaveRefusal(); err != nil {
		return nil, err
	}
	var h protocol.DeleteSubscriptionGroupRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	b.log.Info().Str("remote", remoteOf(ctx)).Str("group", h.GroupName).Msg("deleteSubscriptionGroup called")
	if !b.subs.Delete(h.GroupName) {
		b.log.Warn().Str("group", h.GroupName).Msg("delete subscription group failed, group not exist")
	}
	if h.RemoveOffset {
		b.offsets.RemoveGroup(h.GroupName)
	}
	if b.autoDeleteUnusedStats() {
		b.stats.OnGroupDeleted(h.GroupName)
	}
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

func (b *Broker) queryConsumeTimeSpan(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryConsumeTimeSpanRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	tc, ok := b.topics.Get(h.Topic)
	if !ok {
		return nil, protocol.Errorf(protocol.ResTopicNotExist, "topic[%s] not exist", h.Topic)
	}
	var span protocol.QueryConsumeTimeSpanBody
	now := time.Now().UnixMilli()
	for i := int32(0); i < tc.WriteQueueNums; i++ {
		minTime := b.store.EarliestMessageTime(h.Topic, i)
		maxOffset := b.store.MaxOffsetInQueue(h.Topic, i)
		maxTime := b.store.MessageStoreTimestamp(h.Topic, i, maxOffset-1)
		consumeTime := minTime
		consumerOffset := b.offsets.Query(h.Group, h.Topic, i)
		if consumerOffset > 0 {
			consumeTime = b.store.MessageStoreTimestamp(h.Topic, i, consumerOffset-1)
		}
		var delay int64
		if consumerOffset < maxOffset {
			delay = now - b.store.MessageStoreTimestamp(h.Topic, i, consumerOffset)
		}
		span.ConsumeTimeSpanSet = append(span.ConsumeTimeSpanSet, protocol.QueueTimeSpan{MessageQueue: b.mq(h.Topic, i),
			MinTimeStamp: minTime, MaxTimeStamp: maxTime, ConsumeTimeStamp: consumeTime, DelayTime: delay})
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = span.AppendJSON(nil)
	return resp, nil
}

func (b *Broker) queryCorrectionOffset(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryCorrectionOffsetHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	filtered := map[string]bool{}
	if !isBlank(h.FilterGroups) {
		for _, g := range strings.Split(h.FilterGroups, ",") {
			filtered[g] = true
		}
	}
	correction := map[int32]int64{}
	for _, group := range b.offsets.GroupsOfTopic(h.Topic) {
		if filtered[group] {
			continue
		}
		for q, off := range b.offsets.QueryAll(group, h.Topic) {
			if off < b.store.MinOffsetInQueue(h.Topic, q) {
				continue
			}
			if cur, ok := correction[q]; !ok || off < cur {
				correction[q] = off
			}
		}
	}
	for q, off := range b.offsets.QueryAll(h.CompareGroup, h.Topic) {
		// Java reads correction.get(q) unboxed and fails on a queue only the compare group
		// has; such queues are skipped here.
		if cur, ok := correction[q]; ok && cur > off {
			correction[q] = math.MaxInt64
		}
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	body := protocol.QueryCorrectionOffsetBody{CorrectionOffsets: correction}
	resp.Body = body.AppendJSON(nil)
	return resp, nil
}

func (b *Broker) cloneGroupOffset(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.CloneGroupOffsetRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	topics := []string{h.Topic}
	if isBlank(h.Topic) {
		topics = b.offsets.TopicsOfGroup(h.SrcGroup)
	}
	for _, topic := range topics {
		if _, ok := b.topics.Get(topic); !ok {
			b.log.Warn().Str("topic", topic).Msg("[cloneGroupOffset], topic config not exist")
			continue
		}
		if !h.Offline && !b.groupConsumes(h.SrcGroup, topic) {
			b.log.Warn().Str("group", h.SrcGroup).Str("topic", topic).Msg("[cloneGroupOffset], the consumer group's topic not exist")
			continue
		}
		// Java: ConsumerOffsetManager#cloneOffset(src, dest, requestHeader.getTopic()).
		src := b.offsets.QueryAll(h.SrcGroup, h.Topic)
		queues := make([]int32, 0, len(src))
		for q := range src {
			queues = append(queues, q)
		}
		sort.Slice(queues, func(i, j int) bool { return queues[i] < queues[j] })
		for _, q := range queues {
			b.offsets.Commit(h.DestGroup, h.Topic, q, src[q])
		}
	}
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}
