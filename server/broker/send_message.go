package broker

// SEND_MESSAGE (10), SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320).
// Java: SendMessageProcessor#asyncSendMessage / #asyncSendBatchMessage,
// AbstractSendMessageProcessor#msgCheck, CommitLog#asyncPutMessage (the delay rewrite).
//
// - The header is V1 for code 10 and V2 (short keys) for 310/320; the header's batch flag,
//   not the code, decides between one message and a batch.
// - Checks in Java's order, with its codes and remarks: broker not writeable for an order
//   topic, topic name, topics clients may not send to, auto-creation from the default
//   topic, queue id range; sends to %RETRY%<group> past maxReconsumeTimes go to %DLQ%.
// - Properties are re-encoded on store with CLUSTER added and WAIT dropped; a DELAY level
//   parks the message in SCHEDULE_TOPIC_XXXX (queue level-1) with REAL_TOPIC/REAL_QID.
// - The append runs inline on the event loop, so one connection's messages are stored in
//   the order they were sent; with SYNC_FLUSH the answer waits for the flush off the loop
//   (FLUSH_DISK_TIMEOUT after syncFlushTimeout).
// - A send that auto-creates its topic waits (at most registerBrokerTimeout) for the name
//   servers to take the new topic before it is answered, as Java's send thread does.
// - Transactional half messages go to RMQ_SYS_TRANS_HALF_TOPIC (transactions.go).

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

// faqSuffix is FAQUrl.suggestTodo(FAQUrl.APPLY_TOPIC_URL) (all FAQ urls are the same page).
const faqSuffix = "\nSee http://rocketmq.apache.org/docs/faq/ for further details."

// dlqNumsPerGroup is the queue count of %DLQ% topics (Java: DLQ_NUMS_PER_GROUP).
const dlqNumsPerGroup = 1

// sendScratch is the per-send working set, pooled so a steady-state send does not
// allocate for properties.
type sendScratch struct {
	props message.Properties
	buf   []byte
	msg   message.Message
}

var sendScratchPool = sync.Pool{New: func() any { return &sendScratch{buf: make([]byte, 0, 512)} }}

func (b *Broker) newSendResponse(req *protocol.Command) *protocol.Command {
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	// Java's preSend puts these on every send response, errors included.
	resp.Ext = append(resp.Ext, protocol.KV{Key: message.PropertyMsgRegion, Value: b.opts.RegionID},
		protocol.KV{Key: message.PropertyTraceSwitch, Value: strconv.FormatBool(b.opts.TraceOn)})
	return resp
}

func fail(resp *protocol.Command, code protocol.ResponseCode, remark string) *protocol.Command {
	resp.Code = int32(code)
	resp.SetRemark(remark)
	return resp
}

// isBlank is UtilAll#isBlank for the header fields handlers check.
func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
			return false
		}
	}
	return true
}

func (b *Broker) sendMessage(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	begin := time.Now()
	defer func() { b.figures.SendStore.Observe(time.Since(begin).Seconds()) }()
	var h protocol.SendMessageRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	resp := b.newSendResponse(req)
	if !b.opts.StartAcceptSendRequestTime.IsZero() && time.Now().Before(b.opts.StartAcceptSendRequestTime) {
		return fail(resp, protocol.ResSystemError, fmt.Sprintf("broker unable to service, until %s",
			compat.TimeMillisToHumanString2(b.opts.StartAcceptSendRequestTime.UnixMilli()))), nil
	}
	tc, gate, errResp := b.msgCheck(ctx, &h, resp)
	if errResp != nil {
		return errResp, nil
	}
	queueID := h.QueueID
	if queueID < 0 {
		queueID = randomQueue(tc.WriteQueueNums)
	}
	if h.Batch {
		return b.sendBatch(ctx, req, &h, tc, queueID, resp, gate)
	}
	sc := sendScratchPool.Get().(*sendScratch)
	defer sendScratchPool.Put(sc)
	m := &sc.msg
	*m = message.Message{Topic: h.Topic, QueueID: queueID, Flag: h.Flag, Body: req.Body, BornTimestamp: h.BornTimestamp,
		BornHost: bornHost(ctx.Conn), StoreHost: b.storeHost, ReconsumeTimes: h.ReconsumeTimes}
	if strings.HasPrefix(h.Topic, meta.RetryGroupTopicPrefix) {
		if r := b.retryToDLQ(req, &h, m, resp); r != nil {
			return r, nil
		}
		if m.Topic != h.Topic {
			tc, _ = b.topics.Get(m.Topic)
		}
	}
	m.SysFlag = h.SysFlag
	if tc.TopicFilterType == "MULTI_TAG" {
		m.SysFlag |= message.FlagMultiTags
	}
	sc.props.Reset()
	sc.props.Parse(h.Properties)
	sc.props.Set(message.PropertyCluster, b.opts.ClusterName)
	wait, hasWait := sc.props.Get(message.PropertyWaitStoreMsgOK)
	waitStore := !hasWait || wait != "false"
	sc.props.Delete(message.PropertyWaitStoreMsgOK) // 4.9.x drops WAIT from the stored string
	if tran, _ := sc.props.Get(message.PropertyTransactionPrepared); tran == "true" {
		if b.opts.RejectTransactionMessage {
			return fail(resp, protocol.ResNoPermission, "the broker["+b.opts.BrokerIP1+"] sending transaction message is forbidden"), nil
		}
		return b.prepareHalfMessage(ctx, sc, resp, gate)
	}
	if v, ok := sc.props.Get(message.PropertyDelayTimeLevel); ok && !isJavaInt(v) {
		// Java: Message#getDelayTimeLevel's Integer.parseInt throws in CommitLog#asyncPutMessage.
		return nil, &protocol.Error{Code: protocol.ResSystemError, Remark: protocol.NumberFormatRemark(v)}
	}
	if perr := b.applyTimer(m, &sc.props); perr != nil {
		return fail(resp, perr.Code, perr.Remark), nil
	}
	b.applyDelay(m, &sc.props)
	sc.buf = sc.props.AppendTo(sc.buf[:0])
	m.Properties = sc.buf
	res, err := b.store.PutMessage(m)
	return b.putResult(ctx, resp, m, res, err, queueID, waitStore, gate)
}

// msgCheck is AbstractSendMessageProcessor#msgCheck: it returns the topic config, or the
// error response. When the send auto-created its topic, gate closes once the name
// servers took it: the answer waits for it (putResult), not the event loop.
func (b *Broker) msgCheck(ctx *remoting.Context, h *protocol.SendMessageRequestHeader, resp *protocol.Command) (tc protocol.TopicConfig, gate <-chan struct{}, errResp *protocol.Command) {
	if !protocol.IsWriteable(b.brokerPermission()) && b.topics.IsOrderTopic(h.Topic) {
		return tc, nil, fail(resp, protocol.ResNoPermission, "the broker["+b.opts.BrokerIP1+"] sending message is forbidden")
	}
	if pe := meta.ValidateTopic(h.Topic); pe != nil {
		return tc, nil, fail(resp, pe.Code, pe.Remark)
	}
	if meta.IsNotAllowedSendTopic(h.Topic) {
		return tc, nil, fail(resp, protocol.ResNoPermission, "Sending message to topic["+h.Topic+"] is forbidden.")
	}
	tc, ok := b.topics.Get(h.Topic)
	if !ok {
		var sysFlag int32
		if h.UnitMode {
			if strings.HasPrefix(h.Topic, meta.RetryGroupTopicPrefix) {
				sysFlag = topicFlagUnitSub
			} else {
				sysFlag = topicFlagUnit
			}
		}
		b.log.Warn().Str("topic", h.Topic).Str("producer", ctx.Conn.RemoteAddr()).Msg("the topic not exist")
		created, isNew := b.topics.CreateInSend(h.Topic, h.DefaultTopic, ctx.Conn.RemoteAddr(), h.DefaultTopicQueueNums, sysFlag)
		if created == nil && strings.HasPrefix(h.Topic, meta.RetryGroupTopicPrefix) {
			c, n := b.topics.CreateIfAbsent(h.Topic, 1, protocol.PermWrite|protocol.PermRead, sysFlag)
			created, isNew = &c, n
		}
		if created == nil {
			return tc, nil, fail(resp, protocol.ResTopicNotExist, "topic["+h.Topic+"] not exist, apply first please!"+faqSuffix)
		}
		tc = *created
		if isNew {
			gate = b.announceTopic(tc)
		}
	}
	valid := tc.WriteQueueNums
	if tc.ReadQueueNums > valid {
		valid = tc.ReadQueueNums
	}
	if h.QueueID >= valid {
		return tc, nil, fail(resp, protocol.ResSystemError, fmt.Sprintf("request queueId[%d] is illegal, %s Producer: %s",
			h.QueueID, topicConfigString(tc), ctx.Conn.RemoteAddr()))
	}
	return tc, gate, nil
}

// Topic sysFlag bits (Java: TopicSysFlag).
const (
	topicFlagUnit    int32 = 0x1
	topicFlagUnitSub int32 = 0x2
)

// topicConfigString is TopicConfig#toString.
func topicConfigString(tc protocol.TopicConfig) string {
	ft := tc.TopicFilterType
	if ft == "" {
		ft = "SINGLE_TAG"
	}
	return fmt.Sprintf("TopicConfig [topicName=%s, readQueueNums=%d, writeQueueNums=%d, perm=%s, topicFilterType=%s, topicSysFlag=%d, order=%t]",
		tc.TopicName, tc.ReadQueueNums, tc.WriteQueueNums, protocol.PermString(tc.Perm), ft, tc.TopicSysFlag, tc.Order)
}

// randomQueue is Java's ThreadLocalRandom.nextInt(99999999) % writeQueueNums.
func randomQueue(writeQueueNums int32) int32 {
	if writeQueueNums <= 0 {
		return 0
	}
	return int32(rand.IntN(99999999)) % writeQueueNums
}

// retryToDLQ is SendMessageProcessor#handleRetryAndDLQ for client sends to %RETRY%<group>
// (the consumer's fallback when CONSUMER_SEND_MSG_BACK fails): past maxReconsumeTimes
// the message goes to %DLQ%<group> instead. It returns an error response or nil.
func (b *Broker) retryToDLQ(req *protocol.Command, h *protocol.SendMessageRequestHeader, m *message.Message, resp *protocol.Command) *protocol.Command {
	group := strings.TrimPrefix(h.Topic, meta.RetryGroupTopicPrefix)
	sg, ok := b.subs.Find(group)
	if !ok {
		return fail(resp, protocol.ResSubscriptionGroupNotExist, "subscription group not exist, "+group+" "+faqSuffix)
	}
	maxTimes := sg.RetryMaxTimes
	if req.Version >= protocol.VersionV3_4_9 && h.HasMaxReconsumeTimes {
		maxTimes = h.MaxReconsumeTimes
	}
	if h.ReconsumeTimes >= maxTimes {
		m.Topic = meta.DLQTopic(group)
		m.QueueID = randomQueue(dlqNumsPerGroup)
		if tc, created := b.topics.CreateIfAbsent(m.Topic, dlqNumsPerGroup, protocol.PermWrite|protocol.PermRead, 0); created {
			b.announceTopic(tc) // nobody looks a DLQ's route up right after: no wait
		}
	}
	return nil
}

// applyDelay parks a message with a DELAY level in SCHEDULE_TOPIC_XXXX (Java:
// CommitLog#asyncPutMessage): transactional half and rollback records never are.
func (b *Broker) applyDelay(m *message.Message, props *message.Properties) {
	tt := message.TransactionType(m.SysFlag)
	if tt != message.TransactionNotType && tt != message.TransactionCommit {
		return
	}
	v, ok := props.Get(message.PropertyDelayTimeLevel)
	if !ok {
		return
	}
	level, err := strconv.Atoi(v)
	if err != nil || level <= 0 {
		return
	}
	if strings.HasPrefix(m.Topic, meta.DLQGroupTopicPrefix) {
		// Java sets delayTimeLevel 0 on DLQ messages: they are never delayed.
		props.Delete(message.PropertyDelayTimeLevel)
		return
	}
	if max := b.maxDelayLevel(); level > max {
		level = max
		props.Set(message.PropertyDelayTimeLevel, strconv.Itoa(level))
	}
	props.Set(message.PropertyRealTopic, m.Topic)
	props.Set(message.PropertyRealQueueID, strconv.Itoa(int(m.QueueID)))
	m.Topic = meta.TopicSchedule
	m.QueueID = int32(level - 1)
}

// isJavaInt reports whether Java's Integer.parseInt takes s.
func isJavaInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 32)
	return err == nil
}

// maxDelayLevel is the number of levels in messageDelayLevel.
func (b *Broker) maxDelayLevel() int {
	n := len(strings.Fields(b.opts.Store.MessageDelayLevel))
	if n == 0 {
		n = 18
	}
	return n
}

// putResult turns a store result into the send response (Java:
// SendMessageProcessor#handlePutMessageResult), answered once flushed under SYNC_FLUSH
// and once a slave has it under SYNC_MASTER (CommitLog#handleDiskFlushAndHA): both waits
// only when the message's WAIT property is not "false". A SYNC_MASTER without a slave in
// reach answers SLAVE_NOT_AVAILABLE, the message stored, as Java does. A send that
// created its topic is answered once the name servers took it (gate), from a goroutine.
func (b *Broker) putResult(ctx *remoting.Context, resp *protocol.Command, stored *message.Message, res store.PutResult, err error, queueID int32, waitStore bool, gate <-chan struct{}) (*protocol.Command, error) {
	if err != nil || res.Status != store.PutOK {
		return b.putFailure(resp, res.Status, err), nil
	}
	b.stats.IncTopicPut(stored.Topic, stored.QueueID, res)
	b.fillSendOK(resp, res, queueID)
	var flushTo, replicaTo int64
	if waitStore {
		end := res.WroteOffset + int64(res.WroteBytes)
		if b.opts.Store.FlushDiskType == store.SyncFlush {
			flushTo = end
		}
		if b.opts.Role == RoleSyncMaster {
			if b.haMaster.SlaveOK(end) {
				replicaTo = end
			} else {
				resp.Code = int32(protocol.ResSlaveNotAvailable)
			}
		}
	}
	if gate != nil {
		go func() {
			<-gate
			b.replyStored(ctx, resp, flushTo, replicaTo)
		}()
		return nil, nil
	}
	if flushTo == 0 && replicaTo == 0 {
		return resp, nil
	}
	b.waitStored(ctx, resp, flushTo, replicaTo)
	return nil, nil
}

// replyStored answers a stored send now, or once flushed / replicated as it asks.
func (b *Broker) replyStored(ctx *remoting.Context, resp *protocol.Command, flushTo, replicaTo int64) {
	if flushTo == 0 && replicaTo == 0 {
		ctx.Reply(resp)
		return
	}
	b.waitStored(ctx, resp, flushTo, replicaTo)
}

// waitStored hands a send waiting for the disk alone to flushReplies, answered from the
// flushing goroutine, and one waiting for a slave to syncReplies.
func (b *Broker) waitStored(ctx *remoting.Context, resp *protocol.Command, flushTo, replicaTo int64) {
	if replicaTo == 0 && b.flushReplies != nil {
		b.flushReplies.add(ctx, resp, flushTo, b.opts.Store.SyncFlushTimeout)
		return
	}
	b.syncReplies.addWait(ctx, resp, flushTo, b.opts.Store.SyncFlushTimeout, replicaTo, b.opts.SlaveTimeout)
}

func (b *Broker) fillSendOK(resp *protocol.Command, res store.PutResult, queueID int32) {
	var msgID string
	if len(res.BatchOffsets) > 0 {
		buf := make([]byte, 0, len(res.BatchOffsets)*33)
		for i, off := range res.BatchOffsets {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = message.AppendOffsetMsgID(buf, b.storeHost, off)
		}
		msgID = string(buf)
	} else {
		msgID = message.CreateOffsetMsgID(b.storeHost, res.WroteOffset)
	}
	rh := protocol.SendMessageResponseHeader{MsgID: msgID, QueueID: queueID, QueueOffset: res.QueueOffset}
	rh.Encode(&resp.Ext)
}

// putFailure maps a failed put to Java's code and remark.
func (b *Broker) putFailure(resp *protocol.Command, st store.PutStatus, err error) *protocol.Command {
	switch st {
	case store.PutCreateMappedFileFailed:
		return fail(resp, protocol.ResSystemError, "create mapped file failed, server is busy or broken.")
	case store.PutMessageIllegal, store.PutPropertiesSizeExceeded:
		return fail(resp, protocol.ResMessageIllegal, fmt.Sprintf("the message is illegal, maybe msg body or properties length not matched. msg body length limit %dB, msg properties length limit 32KB.",
			b.opts.Store.MaxMessageSize))
	case store.PutServiceNotAvailable:
		return fail(resp, protocol.ResServiceNotAvailable, "service not available now. It may be caused by one of the following reasons: "+
			"the broker's disk is full ["+b.diskUtil()+"], messages are put to the slave, message store has been shut down, etc.")
	case store.PutOSPageCacheBusy:
		return fail(resp, protocol.ResSystemError, "[PC_SYNCHRONIZED]broker busy, start flow control for a while")
	}
	if errors.Is(err, store.ErrServiceNotAvailable) {
		return fail(resp, protocol.ResServiceNotAvailable, "service not available now. It may be caused by one of the following reasons: "+
			"the broker's disk is full ["+b.diskUtil()+"], messages are put to the slave, message store has been shut down, etc.")
	}
	b.log.Error().Err(err).Str("status", st.String()).Msg("put message failed")
	return fail(resp, protocol.ResSystemError, "UNKNOWN_ERROR")
}

// diskUtil is SendMessageProcessor#diskUtil's text.
func (b *Broker) diskUtil() string {
	d := b.store.DiskUsage()
	return fmt.Sprintf("CL: %5.2f CQ: %5.2f INDEX: %5.2f", d.CommitLog, d.ConsumeQueue, d.Index)
}

// sendBatch stores a SEND_BATCH_MESSAGE body (Java: asyncSendBatchMessage).
func (b *Broker) sendBatch(ctx *remoting.Context, req *protocol.Command, h *protocol.SendMessageRequestHeader, tc protocol.TopicConfig, queueID int32, resp *protocol.Command, gate <-chan struct{}) (*protocol.Command, error) {
	if len(h.Topic) > meta.TopicMaxLength {
		return fail(resp, protocol.ResMessageIllegal, "message topic length too long "+strconv.Itoa(len(h.Topic))), nil
	}
	sc := sendScratchPool.Get().(*sendScratch)
	defer sendScratchPool.Put(sc)
	sc.props.Reset()
	sc.props.Parse(h.Properties)
	sc.props.Set(message.PropertyCluster, b.opts.ClusterName)
	if v, ok := sc.props.Get(message.PropertyDelayTimeLevel); ok {
		if !isJavaInt(v) { // Java: CommitLog#asyncPutMessages's getDelayTimeLevel throws
			return nil, &protocol.Error{Code: protocol.ResSystemError, Remark: protocol.NumberFormatRemark(v)}
		}
		if l, _ := strconv.Atoi(v); l > 0 {
			return b.putFailure(resp, store.PutMessageIllegal, nil), nil
		}
	}
	if b.opts.Timer.Enable && hasTimerProperty(&sc.props) {
		// Not built: 5.x parks the whole batch from its header's timer property.
		return fail(resp, protocol.ResMessageIllegal, "timer properties on a batch are not supported by this broker; send the messages one by one"), nil
	}
	wait, hasWait := sc.props.Get(message.PropertyWaitStoreMsgOK)
	waitStore := !hasWait || wait != "false"
	sc.buf = sc.props.AppendTo(sc.buf[:0])
	m := &sc.msg
	*m = message.Message{Topic: h.Topic, QueueID: queueID, Flag: h.Flag, SysFlag: h.SysFlag, BornTimestamp: h.BornTimestamp,
		BornHost: bornHost(ctx.Conn), StoreHost: b.storeHost, ReconsumeTimes: h.ReconsumeTimes, Properties: sc.buf}
	if tc.TopicFilterType == "MULTI_TAG" {
		m.SysFlag |= message.FlagMultiTags
	}
	res, err := b.store.PutMessages(m, req.Body)
	return b.putResult(ctx, resp, m, res, err, queueID, waitStore, gate)
}
