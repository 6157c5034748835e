package broker

// UPDATE_AND_CREATE_TOPIC (17), DELETE_TOPIC_IN_BROKER (215), GET_ALL_TOPIC_CONFIG (21),
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201), GET_ALL_CONSUMER_OFFSET (43).
// Java: AdminBrokerProcessor. Like 4.9.8, a new topic is registered with the name servers
// at once, and the header's order flag is not copied into the topic config.
//
// Unlike Java, which accepts any count, UPDATE_AND_CREATE_TOPIC refuses read or write queue
// numbers above protocol.MaxQueueNums with SYSTEM_ERROR: Java's per-queue answers
// (GET_TOPIC_STATS_INFO, GET_CONSUME_STATS) for a topic of 5,000,000 queues end in an
// OutOfMemoryError answer, and would end a Go process.

import (
	"github.com/skyrocket-mq/skyrocket/store/timer"
	"strconv"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func formatInt64(v int64) string { return strconv.FormatInt(v, 10) }

// slaveRefusal is AdminBrokerProcessor#validateSlave.
func (b *Broker) slaveRefusal() error {
	if b.opts.Role == RoleSlave {
		return protocol.Errorf(protocol.ResSystemError, "Can't modify topic or subscription group from slave broker, please execute it from master broker.")
	}
	return nil
}

func (b *Broker) updateAndCreateTopic(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	if err := b.slaveRefusal(); err != nil {
		return nil, err
	}
	var h protocol.CreateTopicRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	b.log.Info().Str("remote", ctx.Conn.RemoteAddr()).Str("topic", h.Topic).Msg("updateAndCreateTopic called")
	if pe := meta.ValidateTopic(h.Topic); pe != nil {
		return nil, pe
	}
	if b.topics.IsSystemTopic(h.Topic) {
		return nil, protocol.Errorf(protocol.ResSystemError, "The topic[%s] is conflict with system topic.", h.Topic)
	}
	if h.ReadQueueNums > protocol.MaxQueueNums || h.WriteQueueNums > protocol.MaxQueueNums {
		return nil, protocol.Errorf(protocol.ResSystemError,
			"The topic[%s] asks for %d read and %d write queues; this broker allows at most %d queues per topic.",
			h.Topic, h.ReadQueueNums, h.WriteQueueNums, protocol.MaxQueueNums)
	}
	tc := protocol.NewTopicConfig(h.Topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = h.ReadQueueNums, h.WriteQueueNums, h.Perm
	tc.TopicFilterType = h.TopicFilterType
	if tc.TopicFilterType != "MULTI_TAG" {
		tc.TopicFilterType = "SINGLE_TAG"
	}
	tc.TopicSysFlag = h.TopicSysFlag
	b.topics.Update(tc)
	b.awaitRegistered(b.announceTopic(tc))
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

func (b *Broker) deleteTopicInBroker(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	if err := b.slaveRefusal(); err != nil {
		return nil, err
	}
	var h protocol.DeleteTopicRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	b.log.Info().Str("remote", ctx.Conn.RemoteAddr()).Str("topic", h.Topic).Msg("deleteTopic called")
	if pe := meta.ValidateTopic(h.Topic); pe != nil {
		return nil, pe
	}
	if b.topics.IsSystemTopic(h.Topic) {
		return nil, protocol.Errorf(protocol.ResSystemError, "The topic[%s] is conflict with system topic.", h.Topic)
	}
	b.topics.Delete(h.Topic)
	keep := map[string]bool{}
	for _, t := range b.topics.Names() {
		keep[t] = true
	}
	keep[timer.Topic] = true // the timing wheel's parked messages (timer.go), not in the topic table
	b.store.CleanUnusedTopics(keep)
	if b.autoDeleteUnusedStats() {
		b.stats.OnTopicDeleted(h.Topic)
	}
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

func (b *Broker) getAllTopicConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	w := b.topics.Wrapper()
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = w.AppendJSON(nil)
	return resp, nil
}

func (b *Broker) getAllSubscriptionGroupConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = b.subs.AppendJSON(nil)
	return resp, nil
}

func (b *Broker) getAllConsumerOffset(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Body = b.offsets.AppendJSON(nil)
	return resp, nil
}
