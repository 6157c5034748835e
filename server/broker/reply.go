package broker

// SEND_REPLY_MESSAGE (324), SEND_REPLY_MESSAGE_V2 (325): request-reply. Java:
// ReplyMessageProcessor. The reply is checked like a send, pushed at once with
// PUSH_REPLY_MESSAGE_TO_CLIENT (326) to the producer channel of the client named in
// REPLY_TO_CLIENT (found through producer heartbeats), and then stored
// (storeReplyMessageEnable, default true) with the client's properties as sent. The code
// tells whether the push succeeded; the header carries the stored message's msgId.

import (
	"context"
	"net/netip"
	"strconv"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// callClientTimeout is Broker2Client#callClient's timeout.
const callClientTimeout = 10 * time.Second

func (b *Broker) sendReplyMessage(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.SendMessageRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	resp := b.newSendResponse(req)
	tc, gate, errResp := b.msgCheck(ctx, &h, resp)
	if errResp != nil {
		return errResp, nil
	}
	b.awaitRegistered(gate) // on the send pool, as Java's send thread waits
	queueID := h.QueueID
	if queueID < 0 {
		queueID = randomQueue(tc.WriteQueueNums)
	}
	born := bornHost(ctx.Conn)
	props := message.ParseProperties(h.Properties)

	pushOK, remark := b.pushReply(&h, born, &props, req.Body)
	if !pushOK {
		resp.Code = int32(protocol.ResSystemError)
		resp.SetRemark(remark)
	} else {
		rh := protocol.SendMessageResponseHeader{MsgID: "0", QueueID: queueID}
		rh.Encode(&resp.Ext)
	}
	if !b.opts.StoreReplyMessageEnable {
		return resp, nil
	}
	m := message.Message{Topic: h.Topic, QueueID: queueID, Flag: h.Flag, Body: req.Body, SysFlag: h.SysFlag,
		BornTimestamp: h.BornTimestamp, BornHost: born, StoreHost: b.storeHost, ReconsumeTimes: h.ReconsumeTimes,
		Properties: []byte(h.Properties)}
	res, err := b.store.PutMessage(&m)
	if err != nil {
		b.log.Warn().Err(err).Str("topic", h.Topic).Msg("process reply message, store putMessage failed")
		return resp, nil
	}
	b.stats.IncTopicPut(m.Topic, m.QueueID, res)
	resp.Ext.Delete("msgId")
	resp.Ext.Delete("queueId")
	resp.Ext.Delete("queueOffset")
	b.fillSendOK(resp, res, queueID)
	return resp, nil
}

// pushReply sends the reply to the requesting client (Java: pushReplyMessage).
func (b *Broker) pushReply(h *protocol.SendMessageRequestHeader, born netip.AddrPort, props *message.Properties, body []byte) (bool, string) {
	sender, ok := props.Get(message.PropertyMessageReplyToClient)
	if !ok {
		b.log.Warn().Msg("REPLY_TO_CLIENT is null, can not reply message")
		return false, "reply message properties[" + message.PropertyMessageReplyToClient + "] is null"
	}
	ch := b.producers.FindByClientID(sender)
	if ch == nil {
		remark := "push reply message fail, channel of <" + sender + "> not found."
		b.log.Warn().Msg(remark)
		return false, remark
	}
	props.Set(message.PropertyPushReplyTime, strconv.FormatInt(time.Now().UnixMilli(), 10))
	rh := protocol.ReplyMessageRequestHeader{ProducerGroup: h.ProducerGroup, Topic: h.Topic, DefaultTopic: h.DefaultTopic,
		DefaultTopicQueueNums: h.DefaultTopicQueueNums, QueueID: h.QueueID, SysFlag: h.SysFlag, BornTimestamp: h.BornTimestamp,
		Flag: h.Flag, Properties: props.String(), ReconsumeTimes: h.ReconsumeTimes, HasReconsumeTimes: true, UnitMode: h.UnitMode,
		BornHost: born.String(), StoreHost: b.storeHost.String(), StoreTimestamp: time.Now().UnixMilli()}
	push := protocol.NewRequest(protocol.CodePushReplyMessageToClient)
	rh.Encode(&push.Ext)
	push.Body = body
	r, err := ch.Conn.Invoke(context.Background(), push, callClientTimeout)
	if err != nil {
		b.log.Warn().Err(err).Str("client", sender).Msg("push reply message fail")
		return false, "push reply message to " + sender + "fail."
	}
	if r.ResponseCode() != protocol.ResSuccess {
		b.log.Warn().Str("client", sender).Str("remark", r.Remark).Msg("push reply message return fail")
		return false, "push reply message to " + sender + "fail."
	}
	return true, ""
}
