package broker

// QUERY_MESSAGE (12), VIEW_MESSAGE_BY_ID (33). Java: QueryMessageProcessor.
//
// - QUERY_MESSAGE looks topic#key up in the IndexFiles between beginTimestamp and
//   endTimestamp; _UNIQUE_KEY_QUERY=true (lookups by UNIQ_KEY) forces maxNum to
//   defaultQueryMaxNum. The body is the matching records (the client re-checks keys, as
//   hash collisions are possible). None: QUERY_NOT_FOUND with Java's remark.
// - VIEW_MESSAGE_BY_ID returns the record at a CommitLog offset (the client decodes it from
//   an offset msgId and connects to the store host inside it).
// Both bodies are written from the mapped files without a copy.

import (
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// uniqueMsgQueryFlag is MixAll.UNIQUE_MSG_QUERY_FLAG.
const uniqueMsgQueryFlag = "_UNIQUE_KEY_QUERY"

func (b *Broker) queryMessage(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryMessageRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	maxNum := int(h.MaxNum)
	if req.Ext.Value(uniqueMsgQueryFlag) == "true" {
		maxNum = b.opts.Store.DefaultQueryMaxNum
	}
	res := b.store.QueryMessage(h.Topic, h.Key, maxNum, h.BeginTimestamp, h.EndTimestamp)
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	rh := protocol.QueryMessageResponseHeader{IndexLastUpdateTimestamp: res.IndexLastUpdateTimestamp, IndexLastUpdatePhyoffset: res.IndexLastUpdatePhyoffset}
	rh.Encode(&resp.Ext)
	if len(res.Buffers) == 0 {
		res.Release()
		resp.Code = int32(protocol.ResQueryNotFound)
		resp.SetRemark("can not find message, maybe time range not correct")
		return resp, nil
	}
	ctx.ReplyParts(resp, res.Buffers, res.Release)
	return nil, nil
}

func (b *Broker) viewMessageByID(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.ViewMessageRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	rec, release, err := b.store.MessageByOffset(h.Offset)
	if err != nil {
		return nil, protocol.Errorf(protocol.ResSystemError, "can not find message by the offset, %d", h.Offset)
	}
	ctx.ReplyParts(protocol.NewResponse(req, protocol.ResSuccess, ""), [][]byte{rec}, release)
	return nil, nil
}
