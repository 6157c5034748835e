package broker

// The records the transaction work reads and writes, built field by field as Java builds
// them, quirks included (Java: EndTransactionProcessor#endMessageTransaction,
// TransactionalMessageBridge#renewHalfMessageInner / renewImmunityHalfMessageInner /
// makeOpMessageInner, DefaultTransactionalMessageCheckListener#toMessageExtBrokerInner,
// MessageDecoder#encode for the check body).
//
// Java sets a record's properties string once (setPropertiesString) and then keeps
// changing the property map, which only some later steps read. The results a consumer
// can see, and that we reproduce:
//
//   - committed message: the half message's properties string, so REAL_TOPIC, REAL_QID
//     and TRAN_MSG=true stay in it although Java clears them from the map afterwards;
//     a DELAY makes the store re-encode the map (without REAL_*/TRAN_MSG, then with the
//     schedule's REAL_TOPIC/REAL_QID);
//   - re-put half message: topic, queue, body, sysFlag, born/store host and born time
//     only: flag and reconsumeTimes become 0;
//   - check body: the half message as read, with the new queue and CommitLog offsets,
//     the real topic and queue, TRANSACTION_CHECK_TIMES updated and WAIT=false (set in
//     the shared map after the re-put record's string was built);
//   - op message: properties "WAIT=true, TAGS=d" in Java's HashMap order, born and store
//     host the broker, UNIQ_KEY only in the map (not stored).

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/store"
)

// errNoRealTopic is returned when a half message lacks a usable REAL_TOPIC or REAL_QID.
var errNoRealTopic = errors.New("broker: half message without a valid REAL_TOPIC/REAL_QID")

// opMessageProperties is the stored properties string of an op message: Java's
// Message(topic, "d", body) map {TAGS=d, WAIT=true} in HashMap order, no trailing
// separator (4.9.1+).
const opMessageProperties = "WAIT\x01true\x02TAGS\x01" + transRemoveTag

// txMessage is a record copied out of the CommitLog with its properties parsed (Java:
// the MessageExt that MessageDecoder#decode returns). props plays Java's property map
// and may change; rec.Properties stays the stored string.
type txMessage struct {
	rec   message.Record
	props message.Properties
}

// decodeTxMessage copies b (a slice of a mapped file the caller releases) and decodes it.
func decodeTxMessage(b []byte) (*txMessage, error) {
	rec, err := message.DecodeRecord(bytes.Clone(b))
	if err != nil {
		return nil, fmt.Errorf("broker: decode transaction record: %w", err)
	}
	t := &txMessage{rec: rec}
	t.props.Parse(string(rec.Properties))
	return t, nil
}

// lookHalfMessage reads the record at a CommitLog offset (Java: lookMessageByOffset).
//
// Java's EndTransactionProcessor accepts any record whose PGROUP and offsets match; here the
// record must also be a half message (in RMQ_SYS_TRANS_HALF_TOPIC), so an END_TRANSACTION
// naming an ordinary message is refused instead of copying it to its REAL_TOPIC.
func (b *Broker) lookHalfMessage(phyOffset int64) (*txMessage, error) {
	rec, release, err := b.store.MessageByOffset(phyOffset)
	if err != nil {
		return nil, err
	}
	defer release()
	t, err := decodeTxMessage(rec)
	if err != nil {
		return nil, err
	}
	if string(t.rec.Topic) != meta.TopicTransHalf {
		return nil, fmt.Errorf("%w: the record at %d is in topic %s", errNotHalfMessage, phyOffset, t.rec.Topic)
	}
	return t, nil
}

// errNotHalfMessage is returned when END_TRANSACTION names a record that is not a half message.
var errNotHalfMessage = errors.New("broker: not a half message")

// realQueue returns REAL_TOPIC and REAL_QID.
func (t *txMessage) realQueue() (string, int32, error) {
	topic, ok := t.props.Get(message.PropertyRealTopic)
	qs, okQ := t.props.Get(message.PropertyRealQueueID)
	if !ok || !okQ {
		return "", 0, errNoRealTopic
	}
	q, err := strconv.ParseInt(qs, 10, 32)
	if err != nil {
		return "", 0, fmt.Errorf("%w: REAL_QID %q", errNoRealTopic, qs)
	}
	return topic, int32(q), nil
}

// commitMessage builds the real message of a committed half message (Java:
// EndTransactionProcessor#endMessageTransaction, then the COMMIT type and
// preparedTransactionOffset; CommitLog#asyncPutMessage's delay rewrite).
func (b *Broker) commitMessage(half *txMessage, commitLogOffset int64) (*message.Message, error) {
	topic, queueID, err := half.realQueue()
	if err != nil {
		return nil, err
	}
	r := &half.rec
	m := &message.Message{Topic: topic, QueueID: queueID, Flag: r.Flag, Body: r.Body,
		SysFlag:       r.SysFlag&^message.TransactionRollback | message.TransactionCommit,
		BornTimestamp: r.BornTimestamp, BornHost: r.BornHost, StoreHost: r.StoreHost, ReconsumeTimes: r.ReconsumeTimes,
		PreparedTransactionOffset: commitLogOffset, Properties: r.Properties}
	if _, ok := half.props.Get(message.PropertyDelayTimeLevel); ok {
		// The store re-encodes the map, which no longer has REAL_*/TRAN_MSG.
		var p message.Properties
		p.Parse(string(r.Properties))
		p.Delete(message.PropertyRealTopic)
		p.Delete(message.PropertyRealQueueID)
		p.Delete(message.PropertyTransactionPrepared)
		b.applyDelay(m, &p)
		if m.Topic == meta.TopicSchedule {
			m.Properties = p.AppendTo(nil)
		}
	}
	return m, nil
}

// putOpMessage marks a half message committed or rolled back (Java:
// TransactionalMessageBridge#addRemoveTagInTransactionOp): tag "d", body = the half
// message's queue offset, in the op queue with the half queue's id. Like Java it only
// logs a failure.
func (b *Broker) putOpMessage(half *txMessage) bool {
	m := message.Message{Topic: meta.TopicTransOpHalf, QueueID: half.rec.QueueID,
		Body:          strconv.AppendInt(nil, half.rec.QueueOffset, 10),
		BornTimestamp: time.Now().UnixMilli(), BornHost: b.storeHost, StoreHost: b.storeHost,
		Properties: []byte(opMessageProperties)}
	res, err := b.store.PutMessage(&m)
	if err != nil || res.Status != store.PutOK {
		b.log.Error().Err(err).Str("status", res.Status.String()).Int64("halfOffset", half.rec.QueueOffset).
			Msg("transaction op message write failed")
		return false
	}
	return true
}

// renewHalfMessage is the half message re-put by a check (Java: renewHalfMessageInner):
// the string is built from props, then WAIT=false lands in props.
func renewHalfMessage(half *txMessage) *message.Message {
	r := &half.rec
	m := &message.Message{Topic: string(r.Topic), QueueID: r.QueueID, Body: r.Body, SysFlag: r.SysFlag,
		BornTimestamp: r.BornTimestamp, BornHost: r.BornHost, StoreHost: r.StoreHost,
		Properties: half.props.AppendTo(nil)}
	half.props.Set(message.PropertyWaitStoreMsgOK, "false")
	return m
}

// renewImmunityHalfMessage re-puts a half message still inside its check immunity time
// with TRAN_PREPARED_QUEUE_OFFSET naming the first copy (Java:
// renewImmunityHalfMessageInner); its string is built after WAIT=false, so it has it.
func renewImmunityHalfMessage(half *txMessage) *message.Message {
	m := renewHalfMessage(half)
	v, ok := half.props.Get(message.PropertyTransactionPreparedQueueOffset)
	if !ok {
		v = strconv.FormatInt(half.rec.QueueOffset, 10)
	}
	half.props.Set(message.PropertyTransactionPreparedQueueOffset, v)
	m.Properties = half.props.AppendTo(m.Properties[:0])
	return m
}

// discardHalfMessage moves a half message checked too often to TRANS_CHECK_MAX_TIME_TOPIC
// (Java 4.5.2+: DefaultTransactionalMessageCheckListener#resolveDiscardMsg); only logged
// on failure.
func (b *Broker) discardHalfMessage(half *txMessage) {
	b.log.Error().Str("offsetMsgId", half.rec.OffsetMsgID()).Int64("queueOffset", half.rec.QueueOffset).
		Msg("half message has been checked too many times, so discard it by moving it to system topic TRANS_CHECK_MAX_TIME_TOPIC")
	if tc, created := b.topics.CreateIfAbsent(meta.TopicTransCheckMax, 1, protocol.PermRead|protocol.PermWrite, 0); created {
		b.announceTopic(tc)
	}
	r := &half.rec
	m := message.Message{Topic: meta.TopicTransCheckMax, QueueID: 0, Flag: r.Flag, Body: r.Body, SysFlag: r.SysFlag,
		BornTimestamp: r.BornTimestamp, BornHost: r.BornHost, StoreHost: r.StoreHost, ReconsumeTimes: r.ReconsumeTimes,
		Properties: half.props.AppendTo(nil)}
	res, err := b.store.PutMessage(&m)
	if err != nil || res.Status != store.PutOK {
		b.log.Error().Err(err).Str("status", res.Status.String()).Msg("put checked-too-many-time half message to TRANS_CHECK_MAX_TIME_TOPIC failed")
	}
}

// checkStateRequest builds CHECK_TRANSACTION_STATE for a half message re-put at
// (queueOffset, phyOffset) (Java: AbstractTransactionalMessageCheckListener#sendCheckMessage
// and Broker2Client#checkProducerTransactionState). The body is the message as read,
// re-encoded with the real topic and queue and the new offsets.
func checkStateRequest(half *txMessage, queueOffset, phyOffset int64) (*protocol.Command, error) {
	topic, queueID, err := half.realQueue()
	if err != nil {
		return nil, err
	}
	uniq, _ := half.props.Get(message.PropertyUniqClientMessageIDKeyIdx)
	h := protocol.CheckTransactionStateRequestHeader{TranStateTableOffset: queueOffset, CommitLogOffset: phyOffset,
		MsgID: uniq, TransactionID: uniq, OffsetMsgID: message.CreateOffsetMsgID(half.rec.StoreHost, phyOffset)}
	r := &half.rec
	m := message.Message{Topic: topic, QueueID: queueID, Flag: r.Flag, Body: r.Body, SysFlag: r.SysFlag,
		BornTimestamp: r.BornTimestamp, BornHost: r.BornHost, StoreHost: r.StoreHost, ReconsumeTimes: r.ReconsumeTimes,
		PreparedTransactionOffset: r.PreparedTransactionOffset, Properties: half.props.AppendTo(nil)}
	if err := message.Validate(&m); err != nil {
		return nil, fmt.Errorf("broker: check message: %w", err)
	}
	req := protocol.NewRequest(protocol.CodeCheckTransactionState)
	h.Encode(&req.Ext)
	req.Body = message.AppendRecord(nil, &m, queueOffset, phyOffset, r.StoreTimestamp)
	return req, nil
}
