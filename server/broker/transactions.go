package broker

// Transactional messages, 4.3+ semantics: half messages, END_TRANSACTION (37) and the
// check-back that sends CHECK_TRANSACTION_STATE (39) to producers.
// Java: TransactionalMessageBridge, TransactionalMessageServiceImpl,
// EndTransactionProcessor, TransactionalMessageCheckService,
// AbstractTransactionalMessageCheckListener, DefaultTransactionalMessageCheckListener.
//
// - A send with TRAN_MSG=true is a half message: stored in RMQ_SYS_TRANS_HALF_TOPIC
//   queue 0 with REAL_TOPIC/REAL_QID and the transaction bits of sysFlag reset to NOT, so
//   it enters that topic's ConsumeQueue and nobody else's. The answer is the normal send
//   answer (offset msgId and queue offset of the half record, queueId = the real queue):
//   the producer sends both back in END_TRANSACTION.
// - END_TRANSACTION (this file) looks the half message up by commitLogOffset, checks
//   PGROUP, tranStateTableOffset and commitLogOffset with Java's remarks, and on commit
//   writes the real message, then an op message ("d", body = half queue offset) to
//   RMQ_SYS_TRANS_OP_HALF_TOPIC; rollback writes only the op message. Unknown (0) and
//   other values are ignored. A slave answers SLAVE_NOT_AVAILABLE.
// - The check service (transaction/check.go) runs every transactionCheckInterval on a
//   master, walks the half queue from the CID_RMQ_SYS_TRANS offset, skips half messages
//   that have an op message, re-puts the others older than transactionTimeOut with
//   TRANSACTION_CHECK_TIMES+1 and asks a producer of their PGROUP, and moves those
//   checked transactionCheckMax times (or older than fileReservedTime) to
//   TRANS_CHECK_MAX_TIME_TOPIC. Its progress is the consumer offsets of CID_RMQ_SYS_TRANS
//   on the half and op queues, persisted in consumerOffset.json like any group's.
//
// Record contents follow Java's quirks on purpose, so a consumer cannot tell the brokers
// apart (transaction/records.go has the details): a committed message keeps the half
// message's properties string, REAL_TOPIC, REAL_QID and TRAN_MSG included; a re-put half
// message loses its flag and reconsumeTimes. A differential run (the Go transaction
// producer and push consumer against a Java 4.9.7 broker and against this one: commit,
// and unknown then check-back commit) gave the same records in the CommitLog and the
// same messages and check bodies at the client.
//
// Deliberately different from Java 4.9.8:
// - A half message carrying DELAY is not parked in SCHEDULE_TOPIC_XXXX (Java's store
//   does park it, under REAL_TOPIC=RMQ_SYS_TRANS_HALF_TOPIC, and the transaction then
//   never reaches its topic); the delay applies to the committed message instead.
// - When re-putting a half message fails, or a half message is neither old enough to
//   check nor has op messages left to read, the round of that queue stops at it (Java
//   busy-loops until its 60 s round limit; the next round reaches the same decision).
// - WAIT is dropped from a half message's stored properties by the send path, and a
//   half message is always stored with wait-for-flush under SYNC_FLUSH (Java keeps the
//   client's WAIT value in both; Go clients never send it, Java clients send true).

import (
	"fmt"
	"strconv"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/broker/transaction"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store"
)

// TransCheckGroup is the internal consumer group whose offsets on the half and op queues
// are the check service's progress (Java: MixAll.CID_SYS_RMQ_TRANS).
const TransCheckGroup = transaction.CheckGroup

// newTransactions builds the transaction service over the broker's store and tables
// (New calls it once they exist). Its settings are copied now, as every component's are.
func (b *Broker) newTransactions() *transaction.Service {
	return transaction.New(transaction.Config{
		Store:   b.store,
		Topics:  b.topics,
		Offsets: b.offsets,
		Producer: func(group string) transaction.Conn {
			if ch := b.producers.AvailableChannel(group); ch != nil {
				return ch.Conn
			}
			return nil
		},
		Announce:         func(tc protocol.TopicConfig) { b.announceTopic(tc) },
		ApplyDelay:       b.applySchedule,
		StoreHost:        b.storeHost,
		Log:              b.log,
		Stop:             b.stop,
		TimeOut:          b.opts.TransactionTimeOut,
		CheckMax:         b.opts.TransactionCheckMax,
		FileReservedTime: b.opts.Store.FileReservedTime,
	})
}

// prepareHalfMessage stores a TRAN_MSG=true send as a half message (Java:
// TransactionalMessageBridge#parseHalfMessageInner + asyncPutHalfMessage). sc holds the
// parsed properties (CLUSTER added, WAIT dropped) and the message with the real topic
// and queue.
func (b *Broker) prepareHalfMessage(ctx *remoting.Context, sc *sendScratch, resp *protocol.Command, gate <-chan struct{}) (*protocol.Command, error) {
	m := &sc.msg
	realQueue := m.QueueID
	sc.props.Set(message.PropertyRealTopic, m.Topic)
	sc.props.Set(message.PropertyRealQueueID, strconv.Itoa(int(realQueue)))
	m.SysFlag = m.SysFlag&^message.TransactionRollback | message.TransactionNotType
	m.Topic = meta.TopicTransHalf
	m.QueueID = 0
	sc.buf = sc.props.AppendTo(sc.buf[:0])
	m.Properties = sc.buf
	res, err := b.store.PutMessage(m)
	// The answer names the real queue (Java: handlePutMessageResult uses queueIdInt) and
	// the half record's offsets.
	return b.putResult(ctx, resp, m, res, err, realQueue, true, gate)
}

// endTransaction is END_TRANSACTION (Java: EndTransactionProcessor#processRequest). Java
// clients send it oneway, Go clients with flag 0; the dispatcher answers only the latter.
func (b *Broker) endTransaction(ctx *remoting.Context, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.EndTransactionRequestHeader
	if err := h.Decode(req.Ext); err != nil {
		return nil, err
	}
	switch h.CommitOrRollback { // Java: EndTransactionRequestHeader#checkFields, in the decode
	case message.TransactionNotType, message.TransactionCommit, message.TransactionRollback:
	default:
		return nil, protocol.Errorf(protocol.ResSystemError, "org.apache.rocketmq.remoting.exception.RemotingCommandException: commitOrRollback field wrong")
	}
	if b.opts.Role == RoleSlave {
		b.log.Warn().Msg("message store is slave mode, so end transaction is forbidden")
		return protocol.NewResponse(req, protocol.ResSlaveNotAvailable, ""), nil
	}
	ev := b.log.Debug()
	if h.CommitOrRollback != message.TransactionCommit || h.FromTransactionCheck {
		ev = b.log.Info()
	}
	ev.Str("remote", ctx.Conn.RemoteAddr()).Str("group", h.ProducerGroup).Int32("commitOrRollback", h.CommitOrRollback).
		Bool("fromCheck", h.FromTransactionCheck).Int64("commitLogOffset", h.CommitLogOffset).
		Int64("tranStateTableOffset", h.TranStateTableOffset).Str("msgId", h.MsgID).Str("remark", req.Remark).
		Msg("end transaction")
	if h.CommitOrRollback == message.TransactionNotType {
		return nil, nil // pending: Java returns null, so no answer
	}
	half, err := b.tx.LookHalf(h.CommitLogOffset)
	if err != nil {
		b.log.Warn().Err(err).Int64("commitLogOffset", h.CommitLogOffset).Msg("end transaction: half message not found")
		return protocol.NewResponse(req, protocol.ResSystemError, "Find prepared transaction message failed"), nil
	}
	if remark := checkPrepareMessage(half, &h); remark != "" {
		return protocol.NewResponse(req, protocol.ResSystemError, remark), nil
	}
	if h.CommitOrRollback == message.TransactionRollback {
		b.tx.PutOpMessage(half)
		return protocol.NewResponse(req, protocol.ResSuccess, ""), nil
	}
	m, err := b.tx.CommitMessage(half, h.CommitLogOffset)
	if err != nil {
		return protocol.NewResponse(req, protocol.ResSystemError, err.Error()), nil
	}
	resp := b.putFinalMessage(req, m)
	if resp.Code == int32(protocol.ResSuccess) {
		b.tx.PutOpMessage(half)
	}
	return resp, nil
}

// checkPrepareMessage is EndTransactionProcessor#checkPrepareMessage: it returns Java's
// remark when the request does not match the half message, "" when it does.
func checkPrepareMessage(half *transaction.Message, h *protocol.EndTransactionRequestHeader) string {
	// A half message without PGROUP makes Java throw (a SYSTEM_ERROR too).
	if g, ok := half.Props.Get(message.PropertyProducerGroup); !ok || g != h.ProducerGroup {
		return "The producer group wrong"
	}
	if half.Record.QueueOffset != h.TranStateTableOffset {
		return "The transaction state table offset wrong"
	}
	if half.Record.PhysicalOffset != h.CommitLogOffset {
		return "The commit log offset wrong"
	}
	return ""
}

// putFinalMessage stores the committed message and maps the result as Java's
// EndTransactionProcessor#sendFinalMessage does: flush and replication timeouts are
// successes. Under SYNC_FLUSH the answer (and the op message) wait for the flush, as
// Java's putMessage does for a message without WAIT=false.
func (b *Broker) putFinalMessage(req *protocol.Command, m *message.Message) *protocol.Command {
	res, err := b.store.PutMessage(m)
	if err == nil && res.Status == store.PutOK {
		// Not counted in the broker's put statistics: Java counts client sends only.
		if b.opts.Store.FlushDiskType == store.SyncFlush {
			next := res.WroteOffset + int64(res.WroteBytes)
			if err := b.store.WaitFlushed(next, b.opts.Store.SyncFlushTimeout); err != nil {
				b.log.Warn().Err(err).Int64("offset", next).Msg("end transaction: sync flush timed out")
			}
		}
		return protocol.NewResponse(req, protocol.ResSuccess, "")
	}
	st := res.Status
	if err != nil && st == store.PutOK {
		st = store.PutUnknownError
	}
	b.log.Warn().Err(err).Str("status", st.String()).Str("topic", m.Topic).Msg("end transaction: put committed message failed")
	switch st {
	case store.PutFlushDiskTimeout, store.PutFlushSlaveTimeout, store.PutSlaveNotAvailable:
		return protocol.NewResponse(req, protocol.ResSuccess, "")
	case store.PutCreateMappedFileFailed:
		return protocol.NewResponse(req, protocol.ResSystemError, "Create mapped file failed.")
	case store.PutMessageIllegal, store.PutPropertiesSizeExceeded:
		return protocol.NewResponse(req, protocol.ResMessageIllegal, fmt.Sprintf("The message is illegal, maybe msg body or properties length not matched. msg body length limit %dB, msg properties length limit 32KB.",
			b.opts.Store.MaxMessageSize))
	case store.PutServiceNotAvailable:
		return protocol.NewResponse(req, protocol.ResServiceNotAvailable, "Service not available now.")
	case store.PutOSPageCacheBusy:
		return protocol.NewResponse(req, protocol.ResSystemError, "OS page cache busy, please try another machine")
	case store.PutUnknownError:
		return protocol.NewResponse(req, protocol.ResSystemError, "UNKNOWN_ERROR")
	}
	return protocol.NewResponse(req, protocol.ResSystemError, "UNKNOWN_ERROR DEFAULT")
}

// startTransactionCheck starts the check service on a master (Java:
// BrokerController#startProcessorByHa). Like Java's ServiceThread it waits one interval
// before the first round.
func (b *Broker) startTransactionCheck() {
	if b.opts.Role == RoleSlave {
		return
	}
	b.every(b.transactionCheckInterval(), b.tx.Check)
}

// stopTransactionCheck has nothing of its own to stop: the service runs on b.every, a
// round in progress stops at its next half message once Shutdown closed b.stop (its
// Config.Stop), and Shutdown waits for it (b.wg) before closing the store.
func (b *Broker) stopTransactionCheck() {}

func (b *Broker) transactionCheckInterval() time.Duration {
	if d := b.opts.TransactionCheckInterval; d > 0 {
		return d
	}
	return 60 * time.Second
}
