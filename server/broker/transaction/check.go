package transaction

// The transaction check service: one round every transactionCheckInterval on a master
// (Java: TransactionalMessageCheckService#onWaitEnd, TransactionalMessageServiceImpl#check).
//
// Per half queue (RMQ_SYS_TRANS_HALF_TOPIC has one), a round:
//  1. reads its progress: the CID_RMQ_SYS_TRANS offsets of the half queue and of the op
//     queue with the same id (the queue's min offset when none is stored);
//  2. reads op messages from the op offset, 32 at a time, into removeMap (half offset →
//     op offset) or, for half offsets already passed, into doneOp;
//  3. walks half messages from the half offset: one in removeMap is done; one checked
//     transactionCheckMax times or older than fileReservedTime is discarded to
//     TRANS_CHECK_MAX_TIME_TOPIC; one stored after the round began, or younger than
//     transactionTimeOut (or its CHECK_IMMUNITY_TIME_IN_SECONDS) ends the walk; for the
//     others it reads more op messages until there are none, then re-puts the half
//     message with TRANSACTION_CHECK_TIMES+1 and sends CHECK_TRANSACTION_STATE for the
//     new copy to one live producer channel of its PGROUP (no channel: only logged);
//  4. stores the new half offset and the op offset up to the first op message not yet
//     matched.
//
// A round of one queue stops after 60 s (Java's MAX_PROCESS_TIME_LIMIT) or once Config.Stop
// is closed (the broker's Shutdown).

import (
	"slices"
	"strconv"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/store"
)

// maxCheckRoundTime bounds one queue's round (Java: MAX_PROCESS_TIME_LIMIT).
const maxCheckRoundTime = 60 * time.Second

// opPullNums is how many op messages one read takes (Java: fillOpRemoveMap's 32).
const opPullNums = 32

// txPullStatus mirrors the client PullStatus Java's bridge turns store results into.
type txPullStatus int

const (
	txFound txPullStatus = iota
	txNoNewMsg
	txNoMatchedMsg
	txOffsetIllegal
)

func txStatus(st store.GetStatus) txPullStatus {
	switch st {
	case store.GetFound:
		return txFound
	case store.GetNoMatchedMessage:
		return txNoMatchedMsg
	case store.GetNoMessageInQueue, store.GetOffsetOverflowOne:
		return txNoNewMsg
	}
	return txOffsetIllegal
}

// opPull is what the last read of op messages found (Java: the PullResult kept across
// the walk). found is false when it found nothing (Java: msgFoundList == null).
type opPull struct {
	next     int64
	found    bool
	lastBorn int64 // born timestamp of the last op message read
}

// checkRound is one queue's round.
type checkRound struct {
	s         *Service
	queueID   int32
	timeoutMs int64
	checkMax  int32
	startMs   int64
	removeMap map[int64]int64 // half offset → op offset
	doneOp    []int64         // op offsets whose half message is done
}

// Check runs one round over every half queue (Java:
// TransactionalMessageServiceImpl#check with the broker's timeout and check max). An
// unset (zero) CheckMax means Java's 15; a zero TimeOut is taken as given (check at
// once), as Java takes transactionTimeOut=0. Rounds must not overlap: the broker calls
// Check from one goroutine.
func (s *Service) Check() {
	timeout := s.cfg.TimeOut
	if timeout < 0 {
		timeout = 0
	}
	checkMax := s.cfg.CheckMax
	if checkMax <= 0 {
		checkMax = 15
	}
	begin := time.Now()
	// Java's fetchMessageQueues creates the half topic (1 queue, perm 6) on the first round.
	tc, ok := s.cfg.Topics.Get(HalfTopic)
	if !ok {
		var created bool
		if tc, created = s.cfg.Topics.CreateIfAbsent(HalfTopic, 1, protocol.PermWrite|protocol.PermRead, 0); created {
			s.cfg.Announce(tc)
		}
	}
	if tc.ReadQueueNums <= 0 {
		s.log.Warn().Str("topic", HalfTopic).Msg("the queue of topic is empty")
		return
	}
	for q := int32(0); q < tc.ReadQueueNums; q++ {
		r := &checkRound{s: s, queueID: q, timeoutMs: timeout.Milliseconds(), checkMax: checkMax}
		if !r.run() {
			break
		}
	}
	s.log.Debug().Dur("took", time.Since(begin)).Msg("transaction check round done")
}

// ConsumeOffset is the check's progress on a half or op queue: CheckGroup's offset, the
// queue's min offset when none is stored (Java: TransactionalMessageBridge#fetchConsumeOffset).
func (s *Service) ConsumeOffset(topic string, queueID int32) int64 {
	if off := s.cfg.Offsets.Query(CheckGroup, topic, queueID); off != -1 {
		return off
	}
	return s.st.MinOffsetInQueue(topic, queueID)
}

func (s *Service) stopping() bool {
	select {
	case <-s.cfg.Stop:
		return true
	default:
		return false
	}
}

// run walks one half queue. It returns false when the store answered nothing (closed):
// Java's check then ends with an exception, storing no progress.
func (r *checkRound) run() bool {
	s := r.s
	start := time.Now()
	r.startMs = start.UnixMilli()
	halfOffset := s.ConsumeOffset(HalfTopic, r.queueID)
	opOffset := s.ConsumeOffset(OpHalfTopic, r.queueID)
	if halfOffset < 0 || opOffset < 0 {
		s.log.Error().Int32("queueId", r.queueID).Int64("halfOffset", halfOffset).Int64("opOffset", opOffset).
			Msg("transaction check: illegal offset, skip this queue")
		return true
	}
	r.removeMap = map[int64]int64{}
	op, ok := r.fillOpRemoveMap(opOffset, halfOffset)
	if !ok {
		return false
	}
	nullCount := 1
	newOffset := halfOffset
	for i := halfOffset; ; {
		if time.Since(start) > maxCheckRoundTime || s.stopping() {
			break
		}
		if opOff, done := r.removeMap[i]; done {
			delete(r.removeMap, i)
			r.doneOp = append(r.doneOp, opOff)
			newOffset = i + 1
			i++
			continue
		}
		half, st, next, ok := r.getHalf(i)
		if !ok {
			return false
		}
		if half == nil {
			nullCount++
			if nullCount > 2 || st == txNoNewMsg {
				break
			}
			i = next
			newOffset = i
			continue
		}
		if r.needDiscard(half) || r.needSkip(half) {
			s.discardHalfMessage(half)
			newOffset = i + 1
			i++
			continue
		}
		if half.Record.StoreTimestamp >= r.startMs {
			break // stored during this round: next round
		}
		age := time.Now().UnixMilli() - half.Record.BornTimestamp
		immunity := r.timeoutMs
		if v, has := half.Props.Get(message.PropertyCheckImmunityTimeInSeconds); has {
			immunity = immunityTime(v, r.timeoutMs)
			if age < immunity && r.checkPrepareQueueOffset(half) {
				newOffset = i + 1
				i++
				continue
			}
		} else if age >= 0 && age < immunity {
			break // too young: next round
		}
		needCheck := (!op.found && age > immunity) || (op.found && op.lastBorn-r.startMs > r.timeoutMs) || age <= -1
		if !needCheck {
			if !op.found {
				// Not old enough and no op message left to read: Java re-reads the op
				// queue in a busy loop until the message ages or its 60 s limit ends
				// the round; the next round decides the same without the spin.
				break
			}
			// Op messages remain unread: one of them may be this half message's.
			if op, ok = r.fillOpRemoveMap(op.next, halfOffset); !ok {
				return false
			}
			continue
		}
		if !r.putBackAndCheck(half) {
			break
		}
		newOffset = i + 1
		i++
	}
	if newOffset != halfOffset {
		s.cfg.Offsets.Commit(CheckGroup, HalfTopic, r.queueID, newOffset)
	}
	if newOp := nextOpOffset(r.doneOp, opOffset); newOp != opOffset {
		s.cfg.Offsets.Commit(CheckGroup, OpHalfTopic, r.queueID, newOp)
	}
	return true
}

// fillOpRemoveMap reads up to 32 op messages from offset (Java: fillOpRemoveMap). ok is
// false when the store answered nothing.
func (r *checkRound) fillOpRemoveMap(offset, miniOffset int64) (op opPull, ok bool) {
	s := r.s
	res := s.st.GetMessage(CheckGroup, OpHalfTopic, r.queueID, offset, opPullNums, nil)
	if res == nil {
		return opPull{}, false
	}
	defer res.Release()
	op.next = res.NextBeginOffset
	switch txStatus(res.Status) {
	case txOffsetIllegal, txNoMatchedMsg:
		s.log.Warn().Int64("offset", offset).Str("status", res.Status.String()).Msg("transaction check: op offset illegal")
		s.cfg.Offsets.Commit(CheckGroup, OpHalfTopic, r.queueID, res.NextBeginOffset)
		return op, true
	case txNoNewMsg:
		return op, true
	}
	for _, buf := range res.Buffers {
		rec, err := message.DecodeRecord(buf)
		if err != nil {
			s.log.Error().Err(err).Msg("transaction check: undecodable op message")
			continue
		}
		op.found = true
		op.lastBorn = rec.BornTimestamp
		halfOff := txParseLong(string(rec.Body), -1)
		if tags, _ := rec.Property(message.PropertyTags); string(tags) != removeTag {
			s.log.Error().Int64("opOffset", rec.QueueOffset).Str("tags", string(tags)).Msg("found an illegal tag in op message")
			continue
		}
		if halfOff < miniOffset {
			r.doneOp = append(r.doneOp, rec.QueueOffset)
		} else {
			r.removeMap[halfOff] = rec.QueueOffset
		}
	}
	return op, true
}

// getHalf reads the half message at offset (Java: getHalfMsg). half is nil when there
// is none; st and next then say why and where to go on. ok is false when the store
// answered nothing.
func (r *checkRound) getHalf(offset int64) (half *Message, st txPullStatus, next int64, ok bool) {
	res := r.s.st.GetMessage(CheckGroup, HalfTopic, r.queueID, offset, 1, nil)
	if res == nil {
		return nil, 0, 0, false
	}
	defer res.Release()
	st, next = txStatus(res.Status), res.NextBeginOffset
	if st != txFound || len(res.Buffers) == 0 {
		return nil, st, next, true
	}
	half, err := Decode(res.Buffers[0])
	if err != nil {
		r.s.log.Error().Err(err).Int64("offset", offset).Msg("transaction check: undecodable half message")
		return nil, txOffsetIllegal, offset + 1, true
	}
	return half, st, next, true
}

// needDiscard counts this check in TRANSACTION_CHECK_TIMES, or reports the half message
// checked checkMax times already (Java: needDiscard).
func (r *checkRound) needDiscard(half *Message) bool {
	n := int64(1)
	if v, ok := half.Props.Get(message.PropertyTransactionCheckTimes); ok {
		n = txParseLong(v, -1)
		if n >= int64(r.checkMax) {
			return true
		}
		n++
	}
	half.Props.Set(message.PropertyTransactionCheckTimes, strconv.FormatInt(n, 10))
	return false
}

// needSkip reports a half message born longer than fileReservedTime ago (Java: needSkip).
// An unset FileReservedTime means the store's default, 72 h, not "discard everything".
func (r *checkRound) needSkip(half *Message) bool {
	reserved := r.s.cfg.FileReservedTime
	if reserved <= 0 {
		reserved = 72 * time.Hour
	}
	return time.Now().UnixMilli()-half.Record.BornTimestamp > reserved.Milliseconds()
}

// immunityTime is CHECK_IMMUNITY_TIME_IN_SECONDS in ms; -1 (or junk) means the timeout.
func immunityTime(v string, timeoutMs int64) int64 {
	s := txParseLong(v, -1)
	if s == -1 {
		return timeoutMs
	}
	return s * 1000
}

// checkPrepareQueueOffset decides a half message inside its immunity time (Java:
// checkPrepareQueueOffset): done when the op message of its first copy was read,
// otherwise re-put again. It reports whether the walk may pass it.
func (r *checkRound) checkPrepareQueueOffset(half *Message) bool {
	v, ok := half.Props.Get(message.PropertyTransactionPreparedQueueOffset)
	if ok {
		first := txParseLong(v, -1)
		if first == -1 {
			return false
		}
		if opOff, done := r.removeMap[first]; done {
			delete(r.removeMap, first)
			r.doneOp = append(r.doneOp, opOff)
			return true
		}
	}
	res, err := r.s.st.PutMessage(renewImmunityHalfMessage(half))
	if err != nil || res.Status != store.PutOK {
		r.s.log.Error().Err(err).Str("status", res.Status.String()).Msg("transaction check: re-put immunity half message failed")
		return false
	}
	return true
}

// putBackAndCheck re-puts the half message and asks its producer about the new copy
// (Java: putBackHalfMsgQueue, then resolveHalfMsg). It returns false when the put failed.
func (r *checkRound) putBackAndCheck(half *Message) bool {
	s := r.s
	res, err := s.st.PutMessage(renewHalfMessage(half))
	if err != nil || res.Status != store.PutOK {
		s.log.Error().Err(err).Str("status", res.Status.String()).Int64("queueOffset", half.Record.QueueOffset).
			Msg("transaction check: put back to half queue failed")
		return false
	}
	group, _ := half.Props.Get(message.PropertyProducerGroup)
	req, err := checkStateRequest(half, res.QueueOffset, res.WroteOffset)
	if err != nil {
		s.log.Error().Err(err).Int64("queueOffset", res.QueueOffset).Msg("send check message error")
		return true
	}
	conn := s.cfg.Producer(group)
	if conn == nil {
		s.log.Warn().Str("group", group).Msg("check transaction failed, channel is null")
		return true
	}
	if err := conn.InvokeOneway(req); err != nil {
		s.log.Error().Err(err).Str("group", group).Str("remote", conn.RemoteAddr()).Msg("check transaction failed because invoke producer exception")
	}
	return true
}

// nextOpOffset moves the op offset over the done op offsets that follow it without a
// gap (Java: calculateOpOffset).
func nextOpOffset(done []int64, old int64) int64 {
	slices.Sort(done)
	next := old
	for _, off := range done {
		if off != next {
			break
		}
		next++
	}
	return next
}

// txParseLong is Long.parseLong with Java's bridge fallback for junk.
func txParseLong(s string, def int64) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return def
	}
	return v
}
