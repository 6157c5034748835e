package broker

// CONSUMER_SEND_MSG_BACK (36): a consumer hands back a message it failed to consume.
// Java: SendMessageProcessor#asyncConsumerSendMsgBack (4.9.8). Runs on the send pool: it
// reads the original message from the store.
//
// - The subscription group must exist (auto-created when autoCreateSubscriptionGroup),
//   else SUBSCRIPTION_GROUP_NOT_EXIST; a broker without write permission answers
//   NO_PERMISSION; a group with retryQueueNums <= 0 gets SUCCESS and nothing is stored.
// - %RETRY%<group> is created if absent (retryQueueNums queues, perm 6); the message is
//   found by its CommitLog offset ("look message by offset failed, <offset>").
// - reconsumeTimes >= maxReconsumeTimes (the header's from client version V3_4_9, else
//   the group's retryMaxTimes), or delayLevel < 0: to %DLQ%<group> (1 queue, perm 6 as
//   from 4.9.2) with DELAY=0. Otherwise to a random queue of %RETRY%<group> with
//   DELAY = delayLevel, or 3 + reconsumeTimes when 0; the send path's delay rewrite then
//   parks it in SCHEDULE_TOPIC_XXXX.
// - The new message keeps body, flag, sysFlag, born time and host, store host, and all
//   properties (UNIQ_KEY included), with reconsumeTimes + 1, RETRY_TOPIC = the original
//   topic when absent, ORIGIN_MESSAGE_ID = the existing one or else the original's
//   offset msgId, and WAIT=false — Java writes that into the stored properties too.
// - A failed put answers SYSTEM_ERROR with the store status name as remark, as Java
//   does; the client then sends the message itself to %RETRY%<group> (send_message.go,
//   retryToDLQ).

import (
	"fmt"
	"strconv"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

func (b *Broker) consumerSendMsgBack(_ *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.ConsumerSendMsgBackRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	if pe := meta.ValidateGroup(h.Group); pe != nil {
		return nil, pe
	}
	if pe := meta.ValidateTopic(meta.RetryTopic(h.Group)); pe != nil {
		return nil, pe // a group of 121-255 characters: its %RETRY% topic cannot be stored
	}
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	sg, ok := b.subs.Find(h.Group)
	if !ok {
		return fail(resp, protocol.ResSubscriptionGroupNotExist, "subscription group not exist, "+h.Group+" "+faqSuffix), nil
	}
	if !protocol.IsWriteable(b.brokerPermission()) {
		return fail(resp, protocol.ResNoPermission, "the broker["+b.opts.BrokerIP1+"] sending message is forbidden"), nil
	}
	if sg.RetryQueueNums <= 0 {
		return resp, nil
	}
	topic := meta.RetryTopic(h.Group)
	queueID := randomQueue(sg.RetryQueueNums)
	var topicSysFlag int32
	if h.UnitMode {
		topicSysFlag = topicFlagUnitSub // Java: TopicSysFlag.buildSysFlag(false, true)
	}
	tc, created := b.topics.CreateIfAbsent(topic, sg.RetryQueueNums, protocol.PermWrite|protocol.PermRead, topicSysFlag)
	if created {
		b.awaitRegistered(b.announceTopic(tc)) // on the send pool, as Java's send thread waits
	}
	if !protocol.IsWriteable(tc.Perm) {
		return fail(resp, protocol.ResNoPermission, fmt.Sprintf("the topic[%s] sending message is forbidden", topic)), nil
	}
	rec, release, err := b.store.MessageByOffset(h.Offset)
	if err != nil {
		return fail(resp, protocol.ResSystemError, "look message by offset failed, "+strconv.FormatInt(h.Offset, 10)), nil
	}
	defer release()
	r, err := message.DecodeRecord(rec)
	if err != nil {
		return fail(resp, protocol.ResSystemError, "look message by offset failed, "+strconv.FormatInt(h.Offset, 10)), nil
	}

	sc := sendScratchPool.Get().(*sendScratch)
	defer sendScratchPool.Put(sc)
	sc.props.Reset()
	sc.props.Parse(string(r.Properties))
	if _, ok := sc.props.Get(message.PropertyRetryTopic); !ok {
		sc.props.Set(message.PropertyRetryTopic, string(r.Topic))
	}
	sc.props.Set(message.PropertyWaitStoreMsgOK, "false")

	maxTimes := sg.RetryMaxTimes
	if req.Version >= protocol.VersionV3_4_9 && h.HasMaxReconsumeTimes {
		maxTimes = h.MaxReconsumeTimes
	}
	delayLevel := h.DelayLevel
	if r.ReconsumeTimes >= maxTimes || delayLevel < 0 {
		topic = meta.DLQTopic(h.Group)
		queueID = randomQueue(dlqNumsPerGroup)
		if tc, created := b.topics.CreateIfAbsent(topic, dlqNumsPerGroup, protocol.PermWrite|protocol.PermRead, 0); created {
			b.awaitRegistered(b.announceTopic(tc))
		}
		sc.props.Set(message.PropertyDelayTimeLevel, "0")
	} else {
		if delayLevel == 0 {
			delayLevel = 3 + r.ReconsumeTimes
		}
		sc.props.Set(message.PropertyDelayTimeLevel, strconv.Itoa(int(delayLevel)))
	}
	if origin, ok := sc.props.Get(message.PropertyOriginMessageID); !ok || isBlank(origin) {
		sc.props.Set(message.PropertyOriginMessageID, r.OffsetMsgID())
	}

	m := &sc.msg
	*m = message.Message{Topic: topic, QueueID: queueID, Flag: r.Flag, Body: r.Body, SysFlag: r.SysFlag,
		BornTimestamp: r.BornTimestamp, BornHost: r.BornHost, StoreHost: r.StoreHost, ReconsumeTimes: r.ReconsumeTimes + 1}
	b.applyDelay(m, &sc.props)
	sc.buf = sc.props.AppendTo(sc.buf[:0])
	m.Properties = sc.buf
	res, err := b.store.PutMessage(m)
	if err != nil || res.Status != store.PutOK {
		return fail(resp, protocol.ResSystemError, res.Status.String()), nil
	}
	backTopic, _ := sc.props.Get(message.PropertyRetryTopic)
	b.stats.IncSendBack(h.Group, backTopic, m.Topic, m.QueueID, res)
	return resp, nil
}
