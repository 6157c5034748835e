package broker

// SEARCH_OFFSET_BY_TIMESTAMP (29), GET_MAX_OFFSET (30), GET_MIN_OFFSET (31),
// GET_EARLIEST_MSG_STORETIME (32). Java: AdminBrokerProcessor of the same names; every
// answer carries its header field, since the Go client does not check the code.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

func offsetResponse(req *protocol.Command, key string, v int64) *protocol.Command {
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	resp.Ext.Set(key, formatInt64(v))
	return resp
}

func (b *Broker) searchOffsetByTimestamp(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.SearchOffsetRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	return offsetResponse(req, "offset", b.store.OffsetInQueueByTime(h.Topic, h.QueueID, h.Timestamp)), nil
}

func (b *Broker) getMaxOffset(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetMaxOffsetRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	return offsetResponse(req, "offset", b.store.MaxOffsetInQueue(h.Topic, h.QueueID)), nil
}

func (b *Broker) getMinOffset(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetMinOffsetRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	return offsetResponse(req, "offset", b.store.MinOffsetInQueue(h.Topic, h.QueueID)), nil
}

func (b *Broker) getEarliestMsgStoretime(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetEarliestMsgStoretimeRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	return offsetResponse(req, "timestamp", b.store.EarliestMessageTime(h.Topic, h.QueueID)), nil
}
