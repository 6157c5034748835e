package broker

// HEART_BEAT (34), UNREGISTER_CLIENT (35), CHECK_CLIENT_CONFIG (46).
// Java: ClientManageProcessor. A heartbeat registers producer groups and consumer groups
// with their subscriptions (pulls filter with them), auto-creates the consumer group and
// its %RETRY% topic, and notifies the group's clients when membership changed. A new
// %RETRY% topic is registered with the name servers before the answer, as in Java, but
// the event loop does not wait: the answer goes out from the registering goroutine. The
// response carries the broker's version (Java clients require ≥ V4_1_0 for SQL92).

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/clients"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (b *Broker) heartBeat(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var hb protocol.HeartbeatData
	if err := protocol.UnmarshalBody(req.Body, &hb); err != nil {
		return nil, protocol.Errorf(protocol.ResSystemError, "%v", err)
	}
	for i := range hb.ConsumerDataSet {
		if pe := meta.ValidateGroup(hb.ConsumerDataSet[i].GroupName); pe != nil {
			return nil, pe // before anything of the heartbeat is registered
		}
	}
	ch := clients.Channel{Conn: ctx.Conn, ClientID: hb.ClientID, Language: req.Language, Version: req.Version}
	var gate <-chan struct{} // the last new %RETRY% topic's registration: batches go in order
	for i := range hb.ConsumerDataSet {
		data := &hb.ConsumerDataSet[i]
		notify := true
		if sg, ok := b.subs.Find(data.GroupName); ok {
			notify = sg.NotifyConsumerIdsChangedEnable
			var sysFlag int32
			if data.UnitMode {
				sysFlag = topicFlagUnitSub
			}
			if tc, created := b.topics.CreateIfAbsent(meta.RetryTopic(data.GroupName), sg.RetryQueueNums, protocol.PermWrite|protocol.PermRead, sysFlag); created {
				if g := b.announceTopic(tc); g != nil {
					gate = g
				}
			}
		}
		if b.consumers.Register(data, ch, notify) {
			b.log.Info().Str("group", data.GroupName).Str("client", hb.ClientID).Str("remote", ctx.Conn.RemoteAddr()).Msg("registered consumer group changed")
		}
		b.registerFilters(data)
	}
	for _, p := range hb.ProducerDataSet {
		b.producers.Register(p.GroupName, ch)
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	if gate != nil { // answered once the name servers have the new topics, off the loop
		go func() {
			<-gate
			ctx.Reply(resp)
		}()
		return nil, nil
	}
	return resp, nil
}

func (b *Broker) unregisterClient(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.UnregisterClientRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	if h.ProducerGroup != "" {
		b.producers.Unregister(h.ProducerGroup, ctx.Conn)
	}
	if h.ConsumerGroup != "" {
		notify := true
		if sg, ok := b.subs.Find(h.ConsumerGroup); ok {
			notify = sg.NotifyConsumerIdsChangedEnable
		}
		b.consumers.Unregister(h.ConsumerGroup, ctx.Conn, notify)
	}
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}

func (b *Broker) checkClientConfig(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var body struct {
		ClientID         string                     `json:"clientId"`
		Group            string                     `json:"group"`
		SubscriptionData *protocol.SubscriptionData `json:"subscriptionData"`
	}
	if len(req.Body) > 0 {
		if err := protocol.UnmarshalBody(req.Body, &body); err != nil {
			return nil, protocol.Errorf(protocol.ResSystemError, "%v", err)
		}
	}
	if sub := body.SubscriptionData; sub != nil && !isTagType(sub.ExpressionType) {
		if !b.opts.EnablePropertyFilter {
			return nil, protocol.Errorf(protocol.ResSystemError, "The broker does not support consumer to filter message by %s", sub.ExpressionType)
		}
		if err := compileExpression(sub.ExpressionType, sub.SubString); err != nil {
			b.log.Warn().Str("client", body.ClientID).Str("group", body.Group).Str("expression", sub.SubString).Err(err).
				Msg("client filter message, but failed to compile expression")
			return nil, &protocol.Error{Code: protocol.ResSubscriptionParseFailed, Remark: err.Error()}
		}
	}
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}
