package main

import (
	"errors"
	"fmt"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// produce -kind tx: transactional messages over the raw protocol, each one a chain of two
// requests on the same window slot, as TransactionMQProducer#sendMessageInTransaction
// followed by DefaultMQProducerImpl#endTransaction does:
//
//  1. the half message: SEND_MESSAGE_V2 with TRAN_MSG=true and PGROUP, sysFlag
//     TRANSACTION_PREPARED_TYPE. The answer carries the half record's offset msgId and
//     its queue offset in RMQ_SYS_TRANS_HALF_TOPIC.
//  2. END_TRANSACTION (37) with commitOrRollback = TRANSACTION_COMMIT_TYPE (8),
//     commitLogOffset decoded from the offset msgId (MessageDecoder#decodeMessageId),
//     tranStateTableOffset = the queue offset, msgId and transactionId = the message's
//     UNIQ_KEY, fromTransactionCheck false.
//
// Java's client sends END_TRANSACTION oneway; here it is sent two-way (flag 0, as the Go
// client does), so that every commit is acknowledged and counted: a transaction counts as
// one message when its END_TRANSACTION is answered SUCCESS, and its latency runs from the
// half message's write to that answer. Both brokers do the same work either way.
//
// With -d, the transactions whose half message was answered but whose commit was not
// yet sent when the window closed stay half messages (the broker's check service would
// ask the producer group about them later; nobody answers).

// errTxAnswer is returned when the answer to a half message lacks a usable msgId or
// queueOffset, so no END_TRANSACTION can be built from it.
var errTxAnswer = errors.New("mqbench: half message answer without usable msgId/queueOffset")

// txSlot is one window slot's transaction in progress.
type txSlot struct {
	commitNext bool     // the half message was answered: the slot sends END_TRANSACTION next
	uniq       [32]byte // UNIQ_KEY of the half message
	commitLog  int64    // from the offset msgId
	queueOff   int64    // the half record's queue offset
}

// txLoad is the workload of one transactional producing connection.
type txLoad struct {
	b      *sendBuilder
	end    *protocol.Command
	eh     protocol.EndTransactionRequestHeader
	run    *runState
	queues []int32
	next   int
	size   int64
	slots  []txSlot
}

func newTxLoad(spec *sendSpec, instance uint32, run *runState, queues []int32, next, window int, size int64) *txLoad {
	l := &txLoad{b: newSendBuilder(spec, instance), end: protocol.NewRequest(protocol.CodeEndTransaction), run: run,
		queues: queues, next: next, size: size, slots: make([]txSlot, window)}
	l.end.Serialize = spec.serialize
	l.eh = protocol.EndTransactionRequestHeader{ProducerGroup: spec.group, CommitOrRollback: message.TransactionCommit}
	return l
}

func (l *txLoad) request(dst []byte, slot int, opaque int32) ([]byte, int, bool) {
	s := &l.slots[slot]
	if s.commitNext {
		c := l.end
		c.Ext = c.Ext[:0]
		c.Opaque = opaque
		id := string(s.uniq[:])
		l.eh.TranStateTableOffset, l.eh.CommitLogOffset, l.eh.MsgID, l.eh.TransactionID = s.queueOff, s.commitLog, id, id
		l.eh.Encode(&c.Ext)
		return codec.AppendFrame(dst, c), 1, true
	}
	if !l.run.reserve(1) {
		return dst, slotRetired, true // other slots may still owe their commits
	}
	q := l.queues[l.next%len(l.queues)]
	l.next++
	out := l.b.append(dst, opaque, q, false)
	copy(s.uniq[:], l.b.uniq.last())
	return out, 0, true
}

func (l *txLoad) response(slot int, h respHeader, _ int, frame []byte) outcome {
	s := &l.slots[slot]
	if s.commitNext {
		s.commitNext = false
		if h.code != int32(protocol.ResSuccess) {
			return outcome{status: outcomeFail}
		}
		return outcome{msgs: 1, bytes: l.size}
	}
	if h.code != int32(protocol.ResSuccess) {
		return outcome{status: outcomeFail}
	}
	commitLog, queueOff, err := halfAnswer(frame)
	if err != nil {
		return outcome{status: outcomeFail, err: "half message answer unusable"}
	}
	s.commitNext, s.commitLog, s.queueOff = true, commitLog, queueOff
	return outcome{status: outcomeStep}
}

// halfAnswer reads the CommitLog offset (from the offset msgId) and the queue offset of a
// SEND_MESSAGE answer. frame is the reader's buffer: nothing decoded from it is kept.
func halfAnswer(frame []byte) (commitLog, queueOff int64, err error) {
	cmd, err := codec.DecodeOwned(frame)
	if err != nil {
		return 0, 0, err
	}
	var rh protocol.SendMessageResponseHeader
	if err := rh.Decode(cmd.Ext); err != nil {
		return 0, 0, fmt.Errorf("%w: %v", errTxAnswer, err)
	}
	_, off, err := message.DecodeOffsetMsgID(rh.MsgID)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: msgId %q: %v", errTxAnswer, rh.MsgID, err)
	}
	return off, rh.QueueOffset, nil
}
