package broker

// GET_CONSUMER_LIST_BY_GROUP (38), QUERY_CONSUMER_OFFSET (14), UPDATE_CONSUMER_OFFSET (15).
// Java: ConsumerManageProcessor. An unknown offset answers QUERY_NOT_FOUND (the client
// then applies ConsumeFromWhere), except on a young queue whose first message is still
// in memory, which answers offset 0 so that new groups start at the beginning.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func (b *Broker) getConsumerListByGroup(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumerListByGroupRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	if g := b.consumers.Group(h.ConsumerGroup); g != nil {
		if ids := g.ClientIDs(); len(ids) > 0 {
			resp := protocol.NewResponse(req, protocol.ResSuccess, "")
			body := protocol.GetConsumerListByGroupResponseBody{ConsumerIDList: ids}
			resp.Body = body.AppendJSON(nil)
			return resp, nil
		}
	}
	b.log.Warn().Str("group", h.ConsumerGroup).Str("remote", ctx.Conn.RemoteAddr()).Msg("getConsumerGroupInfo failed")
	return nil, protocol.Errorf(protocol.ResSystemError, "no consumer for this group, %s", h.ConsumerGroup)
}

func (b *Broker) queryConsumerOffset(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryConsumerOffsetRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	offset := b.offsets.Query(h.ConsumerGroup, h.Topic, h.QueueID)
	if offset < 0 {
		min := b.store.MinOffsetInQueue(h.Topic, h.QueueID)
		if min > 0 || b.store.CheckInDiskByConsumeOffset(h.Topic, h.QueueID, 0) {
			return nil, protocol.Errorf(protocol.ResQueryNotFound, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first")
		}
		offset = 0
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	rh := protocol.QueryConsumerOffsetResponseHeader{Offset: offset}
	rh.Encode(&resp.Ext)
	return resp, nil
}

func (b *Broker) updateConsumerOffset(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.UpdateConsumerOffsetRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	if pe := meta.ValidateGroup(h.ConsumerGroup); pe != nil {
		return nil, pe // offsets are stored under topic@group
	}
	b.offsets.Commit(h.ConsumerGroup, h.Topic, h.QueueID, h.CommitOffset)
	return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
}
