package store

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

// PutResult is the outcome of an append (Java: PutMessageResult + AppendMessageResult).
type PutResult struct {
	Status         PutStatus
	WroteOffset    int64 // physical offset of the (first) record
	WroteBytes     int32 // bytes written, all records of a batch together
	QueueOffset    int64 // logical offset of the (first) message; 0 for PREPARED/ROLLBACK
	MsgNum         int32
	StoreTimestamp int64
	// BatchOffsets holds the physical offset of each record of a batch (for the
	// comma-joined offset msgIds); nil for a single message.
	BatchOffsets []int64
}

// maxRecordSize is Java MessageExtEncoder's maxMessageSize: body limit + 64 KiB.
func (s *Store) maxRecordSize() int { return s.cfg.MaxMessageSize + 64<<10 }

// checkStoreStatus is Java DefaultMessageStore#checkStoreStatus.
func (s *Store) checkStoreStatus() (PutStatus, error) {
	switch {
	case s.closed.Load():
		return PutServiceNotAvailable, fmt.Errorf("%w: %w", ErrServiceNotAvailable, ErrClosed)
	case s.cfg.Slave || s.cfg.ReadOnly:
		return PutServiceNotAvailable, fmt.Errorf("%w: the store is a slave or read-only", ErrServiceNotAvailable)
	case s.diskFull.Load():
		return PutServiceNotAvailable, fmt.Errorf("%w: disk full", ErrServiceNotAvailable)
	case s.dispatchErr.Load():
		return PutServiceNotAvailable, fmt.Errorf("%w: consume queue not writable", ErrServiceNotAvailable)
	}
	if begin := s.lockBeginMs.Load(); begin != 0 {
		if d := s.nowMs() - begin; d > s.cfg.OSPageCacheBusyTimeout.Milliseconds() && d < 10000000 {
			return PutOSPageCacheBusy, fmt.Errorf("%w: append lock held %d ms", ErrOSPageCacheBusy, d)
		}
	}
	return PutOK, nil
}

func (s *Store) failPut(st PutStatus, err error) (PutResult, error) {
	s.stats.putFailed.Add(1)
	return PutResult{Status: st}, err
}

// PutMessage appends one message: the record is encoded straight into the mapped
// CommitLog file under the append lock, which also assigns the queue offset (Java:
// DefaultMessageStore#asyncPutMessage, CommitLog#asyncPutMessage). Delay rewriting to
// SCHEDULE_TOPIC_XXXX is the broker's job. It does not wait for the flush: SYNC_FLUSH
// callers then call WaitFlushed. err is nil exactly when Status is PutOK.
func (s *Store) PutMessage(m *message.Message) (PutResult, error) {
	if st, err := s.checkStoreStatus(); st != PutOK {
		return s.failPut(st, err)
	}
	if !validTopic(m.Topic) {
		return s.failPut(PutMessageIllegal, fmt.Errorf("%w: topic %q cannot name a consume queue", ErrMessageIllegal, m.Topic))
	}
	if err := message.Validate(m); err != nil {
		// Java checks the properties' UTF-16 length first (MESSAGE_ILLEGAL), then their
		// UTF-8 length in the encoder (PROPERTIES_SIZE_EXCEEDED).
		if len(m.Topic) <= 127 && utf8.RuneCount(m.Properties) <= 32767 {
			return s.failPut(PutPropertiesSizeExceeded, fmt.Errorf("%w: %w", ErrPropertiesSizeExceeded, err))
		}
		return s.failPut(PutMessageIllegal, fmt.Errorf("%w: %w", ErrMessageIllegal, err))
	}
	size := message.RecordSize(m)
	if len(m.Body) > s.cfg.MaxMessageSize || size > s.maxRecordSize() || int64(size+message.BlankSize) > s.clSize {
		return s.failPut(PutMessageIllegal, fmt.Errorf("%w: body %d bytes, record %d bytes", ErrMessageIllegal, len(m.Body), size))
	}
	crc := message.BodyCRC(m.Body)
	tran := message.TransactionType(m.SysFlag)

	s.putMu.Lock()
	if s.closed.Load() {
		s.putMu.Unlock()
		return s.failPut(PutServiceNotAvailable, fmt.Errorf("%w: %w", ErrServiceNotAvailable, ErrClosed))
	}
	now := s.nowMs()
	s.lockBeginMs.Store(now)
	mf, pos, st, err := s.reserve(size)
	if st != PutOK {
		s.lockBeginMs.Store(0)
		s.putMu.Unlock()
		return s.failPut(st, err)
	}
	key := cqKey{m.Topic, m.QueueID}
	qp := s.topicQueue[key]
	known := qp != nil
	var queueOffset int64
	if known {
		queueOffset = *qp
	}
	recordOffset := queueOffset
	if tran == message.TransactionPrepared || tran == message.TransactionRollback {
		recordOffset = 0
	}
	phys := mf.from + pos
	if s.fdWrite {
		buf := s.encodeBuf(size)
		message.EncodeRecord(buf, m, crc, recordOffset, phys, now)
		if err := mf.writeRecord(buf, pos); err != nil {
			s.lockBeginMs.Store(0)
			s.putMu.Unlock()
			return s.failPut(PutUnknownError, fmt.Errorf("%w: %w", ErrWrite, err))
		}
	} else {
		message.EncodeRecord(mf.data[pos:], m, crc, recordOffset, phys, now)
	}
	mf.storeTs.Store(now)
	mf.wrote.Store(pos + int64(size))
	if !known {
		qp = new(int64)
		s.topicQueue[cqKey{strings.Clone(m.Topic), m.QueueID}] = qp
	}
	if tran == message.TransactionNotType || tran == message.TransactionCommit {
		*qp = queueOffset + 1
	}
	s.lockBeginMs.Store(0)
	s.putMu.Unlock()

	if s.warm.needed(mf, pos) {
		s.warm.wake()
	}
	s.wakeDispatch()
	storeMax(&s.stats.putMaxMs, s.nowMs()-now)
	s.stats.putTimes.Add(1)
	s.stats.putBytes.Add(int64(size))
	return PutResult{Status: PutOK, WroteOffset: phys, WroteBytes: int32(size), QueueOffset: recordOffset,
		MsgNum: 1, StoreTimestamp: now}, nil
}

// maxKeptWriteBuf bounds the encode buffer kept between appends; a larger record or
// batch gets a buffer of its own.
const maxKeptWriteBuf = 1 << 20

// encodeBuf returns n bytes to encode records into before writing them through the
// descriptor. Called with putMu held: the buffer is reused by the next append.
func (s *Store) encodeBuf(n int) []byte {
	if n > maxKeptWriteBuf {
		return make([]byte, n)
	}
	if cap(s.wbuf) < n {
		s.wbuf = make([]byte, max(n, 64<<10))
	}
	return s.wbuf[:n]
}

// reserve returns the file and position where size bytes can be written, writing the
// end-of-file blank and creating the next file when the current one is too full (Java:
// MappedFile#appendMessage END_OF_FILE). Called with putMu held.
func (s *Store) reserve(size int) (*mappedFile, int64, PutStatus, error) {
	mf, err := s.cl.lastForWrite(0)
	if err != nil {
		s.log.Error().Err(err).Msg("create commitlog file")
		return nil, 0, PutCreateMappedFileFailed, err
	}
	pos := mf.wrote.Load()
	if remaining := int64(mf.size) - pos; int64(size+message.BlankSize) > remaining {
		if s.fdWrite {
			var blank [message.BlankSize]byte
			message.PutBlank(blank[:], int(remaining))
			if err := mf.writeRecord(blank[:], pos); err != nil {
				return nil, 0, PutUnknownError, fmt.Errorf("%w: %w", ErrWrite, err)
			}
		} else {
			message.PutBlank(mf.data[pos:], int(remaining))
		}
		mf.wrote.Store(int64(mf.size)) // the blank counts as the rest of the file
		if mf, err = s.cl.lastForWrite(0); err != nil {
			s.log.Error().Err(err).Msg("create commitlog file")
			return nil, 0, PutCreateMappedFileFailed, err
		}
		pos = mf.wrote.Load()
	}
	return mf, pos, PutOK, nil
}

// PutMessages appends a SEND_BATCH_MESSAGE body: m carries the fields the elements
// share (topic, queue, sysFlag, born host and time, store host, reconsume times) and in
// m.Properties the batch-level properties appended to each element's; batch is the
// body. The records are contiguous, never straddle two files, and take consecutive
// queue offsets (Java: DefaultMessageStore#asyncPutMessages, CommitLog#asyncPutMessages).
func (s *Store) PutMessages(m *message.Message, batch []byte) (PutResult, error) {
	if st, err := s.checkStoreStatus(); st != PutOK {
		return s.failPut(st, err)
	}
	if len(m.Topic) > 127 || !validTopic(m.Topic) {
		return s.failPut(PutMessageIllegal, fmt.Errorf("%w: topic %q", ErrMessageIllegal, m.Topic))
	}
	if len(batch) > s.cfg.MaxMessageSize {
		return s.failPut(PutMessageIllegal, fmt.Errorf("%w: batch body %d bytes", ErrMessageIllegal, len(batch)))
	}
	if message.TransactionType(m.SysFlag) != message.TransactionNotType {
		return s.failPut(PutMessageIllegal, fmt.Errorf("%w: a batch cannot be transactional", ErrMessageIllegal))
	}
	if v, ok := message.LookupProperty(m.Properties, message.PropertyDelayTimeLevel); ok && atoiOrZero(v) > 0 {
		return s.failPut(PutMessageIllegal, fmt.Errorf("%w: a batch cannot be delayed", ErrMessageIllegal))
	}
	if len(m.Properties) > 32767 {
		return s.failPut(PutMessageIllegal, fmt.Errorf("%w: batch properties %d bytes", ErrMessageIllegal, len(m.Properties)))
	}
	total, n := 0, 0
	var werr error
	err := message.WalkBatch(batch, func(e *message.BatchElement) bool {
		sz := message.BatchRecordSize(m, e)
		if len(e.Properties)+len(m.Properties)+1 > 32767 {
			werr = fmt.Errorf("%w: element properties too long", ErrMessageIllegal)
			return false
		}
		total += sz
		n++
		return true
	})
	if err == nil {
		err = werr
	}
	if err != nil {
		return s.failPut(PutMessageIllegal, fmt.Errorf("%w: %w", ErrMessageIllegal, err))
	}
	if int64(total+message.BlankSize) > s.clSize {
		return s.failPut(PutMessageIllegal, fmt.Errorf("%w: batch of %d bytes larger than a file", ErrMessageIllegal, total))
	}

	offsets := make([]int64, 0, n)
	s.putMu.Lock()
	if s.closed.Load() {
		s.putMu.Unlock()
		return s.failPut(PutServiceNotAvailable, fmt.Errorf("%w: %w", ErrServiceNotAvailable, ErrClosed))
	}
	now := s.nowMs()
	s.lockBeginMs.Store(now)
	mf, pos, st, rerr := s.reserve(total)
	if st != PutOK {
		s.lockBeginMs.Store(0)
		s.putMu.Unlock()
		return s.failPut(st, rerr)
	}
	key := cqKey{m.Topic, m.QueueID}
	qp := s.topicQueue[key]
	var first int64
	if qp != nil {
		first = *qp
	}
	qo := first
	start := mf.from + pos
	p := pos
	dst := mf.data[pos:]
	if s.fdWrite {
		dst = s.encodeBuf(total)
	}
	_ = message.WalkBatch(batch, func(e *message.BatchElement) bool {
		w := message.EncodeBatchRecord(dst[p-pos:], m, e, qo, mf.from+p, now)
		offsets = append(offsets, mf.from+p)
		p += int64(w)
		qo++
		return true
	})
	if s.fdWrite {
		if err := mf.writeRecord(dst[:p-pos], pos); err != nil {
			s.lockBeginMs.Store(0)
			s.putMu.Unlock()
			return s.failPut(PutUnknownError, fmt.Errorf("%w: %w", ErrWrite, err))
		}
	}
	mf.storeTs.Store(now)
	mf.wrote.Store(p)
	if qp == nil {
		qp = new(int64)
		s.topicQueue[cqKey{strings.Clone(m.Topic), m.QueueID}] = qp
	}
	*qp = qo
	s.lockBeginMs.Store(0)
	s.putMu.Unlock()

	if s.warm.needed(mf, pos) {
		s.warm.wake()
	}
	s.wakeDispatch()
	s.stats.putTimes.Add(int64(n))
	s.stats.putBytes.Add(int64(total))
	return PutResult{Status: PutOK, WroteOffset: start, WroteBytes: int32(total), QueueOffset: first,
		MsgNum: int32(n), StoreTimestamp: now, BatchOffsets: offsets}, nil
}
