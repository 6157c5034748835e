package broker

// RESUME_CHECK_HALF_MESSAGE (323): puts the message a msgId (offset msgId) names back
// into the half queue (RMQ_SYS_TRANS_HALF_TOPIC, queue 0) with TRANSACTION_CHECK_TIMES
// reset to 0, so the transaction check asks its producer again. Java:
// AdminBrokerProcessor#resumeCheckHalfMessage and #toMessageExtBrokerInner: body, flag,
// sysFlag, born and store hosts, born time and reconsume times are kept; like Java it
// does not check that the message was a half message. Any failure (a bad msgId, no
// record there) is SYSTEM_ERROR "Exception was thrown when putting message back to
// RMQ_SYS_TRANS_HALF_TOPIC."; a refused put "Put message back to
// RMQ_SYS_TRANS_HALF_TOPIC failed.".

import (
	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

func (b *Broker) resumeCheckHalfMessage(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.ResumeCheckHalfMessageRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	const failed = "Exception was thrown when putting message back to RMQ_SYS_TRANS_HALF_TOPIC."
	_, offset, err := message.DecodeOffsetMsgID(h.MsgID)
	if err != nil {
		b.log.Error().Err(err).Str("msgId", h.MsgID).Msg(failed)
		return nil, protocol.Errorf(protocol.ResSystemError, failed)
	}
	msg, err := b.tx.LookHalf(offset)
	if err != nil {
		b.log.Error().Err(err).Str("msgId", h.MsgID).Msg(failed)
		return nil, protocol.Errorf(protocol.ResSystemError, failed)
	}
	msg.Props.Set(message.PropertyTransactionCheckTimes, "0")
	r := &msg.Record
	m := message.Message{Topic: meta.TopicTransHalf, QueueID: 0, Flag: r.Flag, Body: r.Body, SysFlag: r.SysFlag,
		BornTimestamp: r.BornTimestamp, BornHost: r.BornHost, StoreHost: r.StoreHost, ReconsumeTimes: r.ReconsumeTimes,
		Properties: msg.Props.AppendTo(nil)}
	res, err := b.store.PutMessage(&m)
	if err != nil || res.Status != store.PutOK {
		b.log.Error().Err(err).Str("status", res.Status.String()).Msg("Put message back to RMQ_SYS_TRANS_HALF_TOPIC failed.")
		return nil, protocol.Errorf(protocol.ResSystemError, "Put message back to RMQ_SYS_TRANS_HALF_TOPIC failed.")
	}
	realTopic, _ := msg.Props.Get(message.PropertyRealTopic)
	b.log.Info().Str("realTopic", realTopic).Msg("Put message back to RMQ_SYS_TRANS_HALF_TOPIC.")
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}
