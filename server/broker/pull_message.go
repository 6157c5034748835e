package broker

// PULL_MESSAGE (11). Java: PullMessageProcessor#processRequest.
//
// - Served on the main port only (the VIP port refuses it, as Java's fast server has no
//   pull processor) and on the pull pool, since reading cold pages may block.
// - The subscription is the one the heartbeat registered unless the pull carries
//   FLAG_SUBSCRIPTION; tag subscriptions filter by ConsumeQueue tag code.
// - Store statuses map to codes exactly as Java: FOUND→0, no new message→19 (held up to
//   suspendTimeoutMillis first when FLAG_SUSPEND is set), filtered out or being removed→20,
//   offset out of range→21 with the corrected nextBeginOffset. All four header fields are
//   always sent; the remark is the store status name.
// - The body is the stored records, written from the mapped files without a copy.
// - FLAG_COMMIT_OFFSET commits commitOffset for the group (masters only).

import (
	"fmt"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

// Pull request sysFlag bits (Java: PullSysFlag).
const (
	pullFlagCommitOffset = 0x1
	pullFlagSuspend      = 0x2
	pullFlagSubscription = 0x4
)

func (b *Broker) pullMessage(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	return b.processPull(ctx, req, true)
}

// processPull serves a pull; allowSuspend is false when a held pull is re-run.
func (b *Broker) processPull(ctx *remoting.Context, req *protocol.Command, allowSuspend bool) (*protocol.Command, error) {
	var h protocol.PullMessageRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	if pe := meta.ValidateGroup(h.ConsumerGroup); pe != nil {
		return nil, pe // the group would be auto-created and its offsets committed
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	if !protocol.IsReadable(b.brokerPermission()) {
		return fail(resp, protocol.ResNoPermission, fmt.Sprintf("the broker[%s] pulling message is forbidden", b.opts.BrokerIP1)), nil
	}
	sg, ok := b.subs.Find(h.ConsumerGroup)
	if !ok {
		return fail(resp, protocol.ResSubscriptionGroupNotExist, fmt.Sprintf("subscription group [%s] does not exist, %s", h.ConsumerGroup, faqSuffix)), nil
	}
	if !sg.ConsumeEnable {
		return fail(resp, protocol.ResNoPermission, "subscription group no permission, "+h.ConsumerGroup), nil
	}
	suspend := h.SysFlag&pullFlagSuspend != 0
	tc, ok := b.topics.Get(h.Topic)
	if !ok {
		b.log.Error().Str("topic", h.Topic).Str("consumer", ctx.Conn.RemoteAddr()).Msg("the topic not exist")
		return fail(resp, protocol.ResTopicNotExist, fmt.Sprintf("topic[%s] not exist, apply first please! %s", h.Topic, faqSuffix)), nil
	}
	if !protocol.IsReadable(tc.Perm) {
		return fail(resp, protocol.ResNoPermission, "the topic["+h.Topic+"] pulling message is forbidden"), nil
	}
	if h.QueueID < 0 || h.QueueID >= tc.ReadQueueNums {
		return fail(resp, protocol.ResSystemError, fmt.Sprintf("queueId[%d] is illegal, topic:[%s] topicConfig.readQueueNums:[%d] consumer:[%s]",
			h.QueueID, h.Topic, tc.ReadQueueNums, "/"+ctx.Conn.RemoteAddr())), nil
	}
	filter, errResp := b.pullFilter(&h, sg, resp)
	if errResp != nil {
		return errResp, nil
	}
	begin := time.Now()
	res := b.store.GetMessage(h.ConsumerGroup, h.Topic, h.QueueID, h.QueueOffset, int(h.MaxMsgNums), filter)
	b.stats.StoreGet(res)
	b.figures.Pull.Observe(time.Since(begin).Seconds())
	resp.SetRemark(res.Status.String())
	rh := protocol.PullMessageResponseHeader{NextBeginOffset: res.NextBeginOffset, MinOffset: res.MinOffset, MaxOffset: res.MaxOffset}
	if b.opts.SlaveReadEnable {
		if res.SuggestPullingFromSlave {
			rh.SuggestWhichBrokerID = sg.WhichBrokerWhenConsumeSlowly
		} else {
			rh.SuggestWhichBrokerID = sg.BrokerID
		}
	}
	// Java sets PULL_RETRY_IMMEDIATELY on a slave without slaveReadEnable, then overwrites
	// it with the store's status on every path (PullMessageProcessor#processRequest): a
	// slave serves the messages and only suggests brokerId 0 (ha-facts.md §8.1).
	code := pullCode(res.Status, h.QueueOffset)
	if code == protocol.ResPullOffsetMoved && b.opts.Role == RoleSlave && !b.opts.Store.OffsetCheckInSlave {
		rh.SuggestWhichBrokerID = sg.BrokerID
		code = protocol.ResPullRetryImmediately
	}
	if b.leaving.Load() { // a slave that is stopping sends its readers back to the master (drain.go)
		rh.SuggestWhichBrokerID = 0
	}
	resp.Code = int32(code)
	rh.Encode(&resp.Ext)

	if allowSuspend && h.SysFlag&pullFlagCommitOffset != 0 && b.opts.Role != RoleSlave {
		b.offsets.Commit(h.ConsumerGroup, h.Topic, h.QueueID, h.CommitOffset)
	}
	switch code {
	case protocol.ResSuccess:
		b.stats.IncGroupGet(h.ConsumerGroup, h.Topic, h.QueueID, res.MessageCount(), res.BufferTotalSize, time.Since(begin))
		ctx.ReplyParts(resp, res.Buffers, res.Release)
		return nil, nil
	case protocol.ResPullNotFound:
		res.Release()
		if allowSuspend && suspend {
			timeout := h.SuspendTimeoutMillis
			if !b.opts.LongPollingEnable {
				timeout = b.opts.ShortPollingTime.Milliseconds()
			}
			b.holds.suspend(ctx, req, h.Topic, h.QueueID, h.QueueOffset, timeout, filter)
			return nil, nil
		}
	case protocol.ResPullOffsetMoved:
		b.log.Warn().Str("topic", h.Topic).Str("group", h.ConsumerGroup).Int64("requestOffset", h.QueueOffset).
			Int64("newOffset", res.NextBeginOffset).Msg("PULL_OFFSET_MOVED: correction offset")
		b.offsetMovedEvent(h.ConsumerGroup, h.Topic, h.QueueID, h.QueueOffset, res.NextBeginOffset)
		res.Release()
	default:
		res.Release()
	}
	return resp, nil
}

// pullCode maps a store status to Java's response code.
func pullCode(st store.GetStatus, requestOffset int64) protocol.ResponseCode {
	switch st {
	case store.GetFound:
		return protocol.ResSuccess
	case store.GetMessageWasRemoving, store.GetNoMatchedMessage:
		return protocol.ResPullRetryImmediately
	case store.GetNoMatchedLogicQueue, store.GetNoMessageInQueue:
		if requestOffset != 0 {
			return protocol.ResPullOffsetMoved
		}
		return protocol.ResPullNotFound
	case store.GetOffsetFoundNull, store.GetOffsetOverflowOne:
		return protocol.ResPullNotFound
	case store.GetOffsetOverflowBadly, store.GetOffsetTooSmall:
		return protocol.ResPullOffsetMoved
	}
	return protocol.ResSystemError
}

// pullFilter finds the subscription of a pull and builds its filter (Java: the
// subscription part of PullMessageProcessor#processRequest).
func (b *Broker) pullFilter(h *protocol.PullMessageRequestHeader, sg protocol.SubscriptionGroupConfig, resp *protocol.Command) (store.Filter, *protocol.Command) {
	var sub protocol.SubscriptionData
	if h.SysFlag&pullFlagSubscription != 0 {
		sub = buildSubscription(h.Topic, h.Subscription, h.ExpressionType)
	} else {
		// The one subscription, not a copy of the whole group: this runs on every pull.
		g, ok := b.consumers.FindSubscription(h.ConsumerGroup, h.Topic)
		if !ok {
			b.log.Warn().Str("group", h.ConsumerGroup).Msg("the consumer's group info not exist")
			return nil, fail(resp, protocol.ResSubscriptionNotExist, "the consumer's group info not exist"+faqSuffix)
		}
		if !sg.ConsumeBroadcastEnable && g.MessageModel == "BROADCASTING" {
			return nil, fail(resp, protocol.ResNoPermission, "the consumer group["+h.ConsumerGroup+"] can not consume by broadcast way")
		}
		if !g.Subscribed {
			b.log.Warn().Str("group", h.ConsumerGroup).Str("topic", h.Topic).Msg("the consumer's subscription not exist")
			return nil, fail(resp, protocol.ResSubscriptionNotExist, "the consumer's subscription not exist"+faqSuffix)
		}
		if g.Subscription.SubVersion < h.SubVersion {
			return nil, fail(resp, protocol.ResSubscriptionNotLatest, "the consumer's subscription not latest")
		}
		sub = g.Subscription
	}
	// Tag and SQL92 filters, Java's checks in Java's order (FILTER_DATA_NOT_EXIST before
	// enablePropertyFilter), and filterSupportRetry: expression.go.
	return b.expressionFilter(h, &sub, resp)
}
