package transaction

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
	"github.com/skyrocket-mq/skyrocket/store"
)

// ErrNoRealTopic is returned by CommitMessage (and the check) when a half message lacks
// a usable REAL_TOPIC or REAL_QID. END_TRANSACTION answers its text as the remark, so it
// keeps the text it had when this code lived in package broker.
var ErrNoRealTopic = errors.New("broker: half message without a valid REAL_TOPIC/REAL_QID")

// opMessageProperties is the stored properties string of an op message: Java's
// Message(topic, "d", body) map {TAGS=d, WAIT=true} in HashMap order, no trailing
// separator (4.9.1+).
const opMessageProperties = "WAIT\x01true\x02TAGS\x01" + removeTag

// Message is a record copied out of the CommitLog with its properties parsed (Java:
// the MessageExt that MessageDecoder#decode returns). Props plays Java's property map
// and may change; Record.Properties stays the stored string.
type Message struct {
	Record message.Record
	Props  message.Properties
}

// Decode copies b (a slice of a mapped file the caller releases) and decodes it.
func Decode(b []byte) (*Message, error) {
	rec, err := message.DecodeRecord(bytes.Clone(b))
	if err != nil {
		return nil, fmt.Errorf("broker: decode transaction record: %w", err)
	}
	t := &Message{Record: rec}
	t.Props.Parse(string(rec.Properties))
	return t, nil
}

// LookHalf reads the half message at a CommitLog offset (Java: lookMessageByOffset).
// It returns ErrNotHalfMessage when the record there is in another topic.
//
// Java's EndTransactionProcessor accepts any record whose PGROUP and offsets match; here the
// record must also be a half message (in RMQ_SYS_TRANS_HALF_TOPIC), so an END_TRANSACTION
// naming an ordinary message is refused instead of copying it to its REAL_TOPIC.
func (s *Service) LookHalf(phyOffset int64) (*Message, error) {
	rec, release, err := s.st.MessageByOffset(phyOffset)
	if err != nil {
		return nil, err
	}
	defer release()
	t, err := Decode(rec)
	if err != nil {
		return nil, err
	}
	if string(t.Record.Topic) != HalfTopic {
		return nil, fmt.Errorf("%w: the record at %d is in topic %s", ErrNotHalfMessage, phyOffset, t.Record.Topic)
	}
	return t, nil
}

// ErrNotHalfMessage is returned by LookHalf when END_TRANSACTION (or
// RESUME_CHECK_HALF_MESSAGE) names a record that is not a half message.
var ErrNotHalfMessage = errors.New("broker: not a half message")

// realQueue returns REAL_TOPIC and REAL_QID.
func (t *Message) realQueue() (string, int32, error) {
	topic, ok := t.Props.Get(message.PropertyRealTopic)
	qs, okQ := t.Props.Get(message.PropertyRealQueueID)
	if !ok || !okQ {
		return "", 0, ErrNoRealTopic
	}
	q, err := strconv.ParseInt(qs, 10, 32)
	if err != nil {
		return "", 0, fmt.Errorf("%w: REAL_QID %q", ErrNoRealTopic, qs)
	}
	return topic, int32(q), nil
}

// CommitMessage builds the real message of a committed half message (Java:
// EndTransactionProcessor#endMessageTransaction, then the COMMIT type and
// preparedTransactionOffset; CommitLog#asyncPutMessage's delay rewrite).
func (s *Service) CommitMessage(half *Message, commitLogOffset int64) (*message.Message, error) {
	topic, queueID, err := half.realQueue()
	if err != nil {
		return nil, err
	}
	r := &half.Record
	m := &message.Message{Topic: topic, QueueID: queueID, Flag: r.Flag, Body: r.Body,
		SysFlag:       r.SysFlag&^message.TransactionRollback | message.TransactionCommit,
		BornTimestamp: r.BornTimestamp, BornHost: r.BornHost, StoreHost: r.StoreHost, ReconsumeTimes: r.ReconsumeTimes,
		PreparedTransactionOffset: commitLogOffset, Properties: r.Properties}
	_, delay := half.Props.Get(message.PropertyDelayTimeLevel)
	_, t1 := half.Props.Get("TIMER_DELIVER_MS")
	_, t2 := half.Props.Get("TIMER_DELAY_SEC")
	_, t3 := half.Props.Get("TIMER_DELAY_MS")
	if delay || t1 || t2 || t3 {
		// The store re-encodes the map, which no longer has REAL_*/TRAN_MSG.
		var p message.Properties
		p.Parse(string(r.Properties))
		p.Delete(message.PropertyRealTopic)
		p.Delete(message.PropertyRealQueueID)
		p.Delete(message.PropertyTransactionPrepared)
		s.cfg.ApplyDelay(m, &p)
		if m.Topic != topic { // parked by a delay level or a timer (5.x: the commit's putMessage hook)
			m.Properties = p.AppendTo(nil)
		}
	}
	return m, nil
}

// PutOpMessage marks a half message committed or rolled back (Java:
// TransactionalMessageBridge#addRemoveTagInTransactionOp): tag "d", body = the half
// message's queue offset, in the op queue with the half queue's id. Like Java it only
// logs a failure; it reports whether the op message was stored.
func (s *Service) PutOpMessage(half *Message) bool {
	m := message.Message{Topic: OpHalfTopic, QueueID: half.Record.QueueID,
		Body:          strconv.AppendInt(nil, half.Record.QueueOffset, 10),
		BornTimestamp: time.Now().UnixMilli(), BornHost: s.cfg.StoreHost, StoreHost: s.cfg.StoreHost,
		Properties: []byte(opMessageProperties)}
	res, err := s.st.PutMessage(&m)
	if err != nil || res.Status != store.PutOK {
		s.log.Error().Err(err).Str("status", res.Status.String()).Int64("halfOffset", half.Record.QueueOffset).
			Msg("transaction op message write failed")
		return false
	}
	return true
}

// renewHalfMessage is the half message re-put by a check (Java: renewHalfMessageInner):
// the string is built from props, then WAIT=false lands in props.
func renewHalfMessage(half *Message) *message.Message {
	r := &half.Record
	m := &message.Message{Topic: string(r.Topic), QueueID: r.QueueID, Body: r.Body, SysFlag: r.SysFlag,
		BornTimestamp: r.BornTimestamp, BornHost: r.BornHost, StoreHost: r.StoreHost,
		Properties: half.Props.AppendTo(nil)}
	half.Props.Set(message.PropertyWaitStoreMsgOK, "false")
	return m
}

// renewImmunityHalfMessage re-puts a half message still inside its check immunity time
// with TRAN_PREPARED_QUEUE_OFFSET naming the first copy (Java:
// renewImmunityHalfMessageInner); its string is built after WAIT=false, so it has it.
func renewImmunityHalfMessage(half *Message) *message.Message {
	m := renewHalfMessage(half)
	v, ok := half.Props.Get(message.PropertyTransactionPreparedQueueOffset)
	if !ok {
		v = strconv.FormatInt(half.Record.QueueOffset, 10)
	}
	half.Props.Set(message.PropertyTransactionPreparedQueueOffset, v)
	m.Properties = half.Props.AppendTo(m.Properties[:0])
	return m
}

// discardHalfMessage moves a half message checked too often to TRANS_CHECK_MAX_TIME_TOPIC
// (Java 4.5.2+: DefaultTransactionalMessageCheckListener#resolveDiscardMsg); only logged
// on failure.
func (s *Service) discardHalfMessage(half *Message) {
	s.log.Error().Str("offsetMsgId", half.Record.OffsetMsgID()).Int64("queueOffset", half.Record.QueueOffset).
		Msg("half message has been checked too many times, so discard it by moving it to system topic TRANS_CHECK_MAX_TIME_TOPIC")
	if tc, created := s.cfg.Topics.CreateIfAbsent(CheckMaxTopic, 1, protocol.PermRead|protocol.PermWrite, 0); created {
		s.cfg.Announce(tc)
	}
	r := &half.Record
	m := message.Message{Topic: CheckMaxTopic, QueueID: 0, Flag: r.Flag, Body: r.Body, SysFlag: r.SysFlag,
		BornTimestamp: r.BornTimestamp, BornHost: r.BornHost, StoreHost: r.StoreHost, ReconsumeTimes: r.ReconsumeTimes,
		Properties: half.Props.AppendTo(nil)}
	res, err := s.st.PutMessage(&m)
	if err != nil || res.Status != store.PutOK {
		s.log.Error().Err(err).Str("status", res.Status.String()).Msg("put checked-too-many-time half message to TRANS_CHECK_MAX_TIME_TOPIC failed")
	}
}

// checkStateRequest builds CHECK_TRANSACTION_STATE for a half message re-put at
// (queueOffset, phyOffset) (Java: AbstractTransactionalMessageCheckListener#sendCheckMessage
// and Broker2Client#checkProducerTransactionState). The body is the message as read,
// re-encoded with the real topic and queue and the new offsets.
func checkStateRequest(half *Message, queueOffset, phyOffset int64) (*protocol.Command, error) {
	topic, queueID, err := half.realQueue()
	if err != nil {
		return nil, err
	}
	uniq, _ := half.Props.Get(message.PropertyUniqClientMessageIDKeyIdx)
	h := protocol.CheckTransactionStateRequestHeader{TranStateTableOffset: queueOffset, CommitLogOffset: phyOffset,
		MsgID: uniq, TransactionID: uniq, OffsetMsgID: message.CreateOffsetMsgID(half.Record.StoreHost, phyOffset)}
	r := &half.Record
	m := message.Message{Topic: topic, QueueID: queueID, Flag: r.Flag, Body: r.Body, SysFlag: r.SysFlag,
		BornTimestamp: r.BornTimestamp, BornHost: r.BornHost, StoreHost: r.StoreHost, ReconsumeTimes: r.ReconsumeTimes,
		PreparedTransactionOffset: r.PreparedTransactionOffset, Properties: half.Props.AppendTo(nil)}
	if err := message.Validate(&m); err != nil {
		return nil, fmt.Errorf("broker: check message: %w", err)
	}
	req := protocol.NewRequest(protocol.CodeCheckTransactionState)
	h.Encode(&req.Ext)
	req.Body = message.AppendRecord(nil, &m, queueOffset, phyOffset, r.StoreTimestamp)
	return req, nil
}
