package store

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

// Filter selects messages for a pull (Java: MessageFilter). nil means all.
type Filter interface {
	// MatchByConsumeQueue decides by the ConsumeQueue tag code (tag hash).
	MatchByConsumeQueue(tagsCode int64) bool
	// MatchByCommitLog decides by the whole stored record (SQL92 properties filters).
	MatchByCommitLog(record []byte) bool
}

// GetResult is the outcome of GetMessage (Java: GetMessageResult). Buffers are slices of
// the mapped CommitLog, one per record, not copies: they stay valid until Release,
// which must be called exactly once, after which the GetResult must not be used.
type GetResult struct {
	Status          GetStatus
	NextBeginOffset int64
	MinOffset       int64
	MaxOffset       int64
	Buffers         [][]byte
	QueueOffsets    []int64 // the logical offset of each buffer
	BufferTotalSize int
	// SuggestPullingFromSlave is true when the data pulled is no longer likely to be in
	// memory (Java: accessMessageInMemoryMaxRatio of physical memory behind the end).
	SuggestPullingFromSlave bool

	held []*mappedFile
}

// MessageCount is the number of records found.
func (r *GetResult) MessageCount() int { return len(r.Buffers) }

var getResultPool = sync.Pool{New: func() any {
	return &GetResult{Buffers: make([][]byte, 0, 32), QueueOffsets: make([]int64, 0, 32), held: make([]*mappedFile, 0, 2)}
}}

// Release lets the mapped files go (Java: GetMessageResult#release) and recycles r.
func (r *GetResult) Release() {
	for _, mf := range r.held {
		mf.release()
	}
	clear(r.Buffers)
	clear(r.held)
	*r = GetResult{Buffers: r.Buffers[:0], QueueOffsets: r.QueueOffsets[:0], held: r.held[:0]}
	getResultPool.Put(r)
}

// holdFor keeps mf mapped for r; files come in order, so one check covers repeats.
func (r *GetResult) holdFor(mf *mappedFile) bool {
	if n := len(r.held); n > 0 && r.held[n-1] == mf {
		return true
	}
	if !mf.hold() {
		return false
	}
	r.held = append(r.held, mf)
	return true
}

// nextOffsetCorrection is Java DefaultMessageStore#nextOffsetCorrection: a slave keeps
// the consumer's offset unless offsetCheckInSlave.
func (s *Store) nextOffsetCorrection(oldOffset, newOffset int64) int64 {
	if !s.cfg.Slave || s.cfg.OffsetCheckInSlave {
		return newOffset
	}
	return oldOffset
}

func (s *Store) memoryLimit() int64 {
	return int64(float64(s.memory) * float64(max(s.cfg.AccessMessageInMemoryMaxRatio, 0)) / 100)
}

// isBatchFull is Java DefaultMessageStore#isTheBatchFull: the first message always goes.
func (s *Store) isBatchFull(sizePy int32, maxMsgNums, bufferTotal, messageTotal int, inDisk bool) bool {
	if bufferTotal == 0 || messageTotal == 0 {
		return false
	}
	if maxMsgNums <= messageTotal {
		return true
	}
	if inDisk {
		return bufferTotal+int(sizePy) > s.cfg.MaxTransferBytesOnMessageInDisk ||
			messageTotal > s.cfg.MaxTransferCountOnMessageInDisk-1
	}
	return bufferTotal+int(sizePy) > s.cfg.MaxTransferBytesOnMessageInMemory ||
		messageTotal > s.cfg.MaxTransferCountOnMessageInMemory-1
}

// GetMessage reads up to maxMsgNums messages of a queue from a logical offset, with
// Java's statuses and nextBeginOffset rules (DefaultMessageStore#getMessage), except for
// an offset put but not dispatched yet (below). It returns nil when the store is closed
// (Java returns null; the broker answers SYSTEM_ERROR).
func (s *Store) GetMessage(group, topic string, queueID int32, offset int64, maxMsgNums int, filter Filter) *GetResult {
	if s.closed.Load() {
		return nil
	}
	begin := time.Now()
	r := getResultPool.Get().(*GetResult)
	r.Status = GetNoMessageInQueue
	r.NextBeginOffset = offset
	maxOffsetPy := s.cl.maxOffset()

	cq := s.findCQ(topic, queueID)
	minOffset, maxOffset := cq.bounds()
	undispatched := false
	if offset > maxOffset && offset <= s.nextQueueOffset(topic, queueID) {
		// The offset is one a put already answered (or the next one), but the dispatcher
		// has not reached it: a send's answer does not wait for dispatch, and the first
		// message of a queue waits for its ConsumeQueue file to be created and synced.
		// Java answers OFFSET_OVERFLOW_BADLY or NO_MESSAGE_IN_QUEUE here (its window is
		// shorter, not absent), i.e. PULL_OFFSET_MOVED, and a client then drops the queue
		// and restarts it from nextBeginOffset, before the offset it sought (issue 8).
		// Answer "nothing yet" at the same offset instead: the pull is held or retried.
		// Read in this order: the put offset, whether dispatch is behind, then the queue
		// again, so a dispatch that finished meanwhile is seen.
		behind := s.DispatchBehindBytes() > 0
		cq = s.findCQ(topic, queueID)
		minOffset, maxOffset = cq.bounds()
		undispatched = behind && offset > maxOffset
	}
	// A queue without a ConsumeQueue behaves as an empty one: Java creates it on lookup.
	switch {
	case undispatched:
		r.Status = GetOffsetOverflowOne
		r.NextBeginOffset = s.nextOffsetCorrection(offset, offset)
	case maxOffset == 0:
		r.Status = GetNoMessageInQueue
		r.NextBeginOffset = s.nextOffsetCorrection(offset, 0)
	case offset < minOffset:
		r.Status = GetOffsetTooSmall
		r.NextBeginOffset = s.nextOffsetCorrection(offset, minOffset)
	case offset == maxOffset:
		r.Status = GetOffsetOverflowOne
		r.NextBeginOffset = s.nextOffsetCorrection(offset, offset)
	case offset > maxOffset:
		r.Status = GetOffsetOverflowBadly
		r.NextBeginOffset = s.nextOffsetCorrection(offset, maxOffset)
	default:
		s.readQueue(r, cq, offset, maxMsgNums, filter, maxOffsetPy)
	}
	r.MinOffset, r.MaxOffset = minOffset, maxOffset
	if r.Status == GetFound {
		s.stats.getFound.Add(1)
		s.stats.getTransfered.Add(int64(len(r.Buffers)))
	} else {
		s.stats.getMiss.Add(1)
	}
	storeMax(&s.stats.getMaxMs, time.Since(begin).Milliseconds())
	return r
}

// readQueue is the FOUND branch of Java getMessage.
func (s *Store) readQueue(r *GetResult, cq *consumeQueue, offset int64, maxMsgNums int, filter Filter, maxOffsetPy int64) {
	units, cqFile := cq.unitsFrom(offset)
	if cqFile == nil {
		r.Status = GetOffsetFoundNull
		r.NextBeginOffset = s.nextOffsetCorrection(offset, cq.rollNextFile(offset))
		s.log.Warn().Str("topic", cq.topic).Int32("queueId", cq.queueID).Int64("offset", offset).
			Msg("consume queue unit not accessible")
		return
	}
	defer cqFile.release()
	r.Status = GetNoMatchedMessage
	nextPhyFileStart := int64(-1 << 63)
	var maxPhyPulling int64
	memory := s.memoryLimit()
	maxFilter := max(16000, maxMsgNums*cqUnitSize)
	i := 0
	for ; i+cqUnitSize <= len(units) && i < maxFilter; i += cqUnitSize {
		u := getUnit(units[i:])
		maxPhyPulling = u.PhyOffset
		if nextPhyFileStart != -1<<63 && u.PhyOffset < nextPhyFileStart {
			continue
		}
		inDisk := maxOffsetPy-u.PhyOffset > memory
		if s.isBatchFull(u.Size, maxMsgNums, r.BufferTotalSize, len(r.Buffers), inDisk) {
			break
		}
		if filter != nil && !filter.MatchByConsumeQueue(u.TagsCode) {
			if r.BufferTotalSize == 0 {
				r.Status = GetNoMatchedMessage
			}
			continue
		}
		rec, mf := s.cl.slice(u.PhyOffset, int(u.Size))
		if mf == nil {
			if r.BufferTotalSize == 0 {
				r.Status = GetMessageWasRemoving
			}
			nextPhyFileStart = s.rollNextFile(u.PhyOffset)
			continue
		}
		if filter != nil && !filter.MatchByCommitLog(rec) {
			mf.release()
			if r.BufferTotalSize == 0 {
				r.Status = GetNoMatchedMessage
			}
			continue
		}
		kept := r.holdFor(mf)
		mf.release()
		if !kept {
			if r.BufferTotalSize == 0 {
				r.Status = GetMessageWasRemoving
			}
			continue
		}
		r.Buffers = append(r.Buffers, rec)
		r.QueueOffsets = append(r.QueueOffsets, offset+int64(i/cqUnitSize))
		r.BufferTotalSize += len(rec)
		r.Status = GetFound
		nextPhyFileStart = -1 << 63
	}
	r.NextBeginOffset = offset + int64(i/cqUnitSize)
	r.SuggestPullingFromSlave = maxOffsetPy-maxPhyPulling > memory
}

func (s *Store) rollNextFile(offset int64) int64 { return offset + s.clSize - offset%s.clSize }

func storeMax(v *atomic.Int64, x int64) {
	for {
		old := v.Load()
		if x <= old || v.CompareAndSwap(old, x) {
			return
		}
	}
}

// bounds is the queue's first available and next logical offsets, 0 and 0 for nil.
func (cq *consumeQueue) bounds() (minOffset, maxOffset int64) {
	if cq == nil {
		return 0, 0
	}
	return cq.minOffsetInQueue(), cq.maxOffsetInQueue()
}

// nextQueueOffset is the logical offset the queue's next put gets (Java: CommitLog's
// topicQueueTable), 0 for a queue never written. It takes the append lock.
func (s *Store) nextQueueOffset(topic string, queueID int32) int64 {
	s.putMu.Lock()
	defer s.putMu.Unlock()
	if p := s.topicQueue[cqKey{topic, queueID}]; p != nil {
		return *p
	}
	return 0
}

// MaxOffsetInQueue is the queue's next logical offset, 0 when unknown.
func (s *Store) MaxOffsetInQueue(topic string, queueID int32) int64 {
	if cq := s.findCQ(topic, queueID); cq != nil {
		return cq.maxOffsetInQueue()
	}
	return 0
}

// MinOffsetInQueue is the queue's first available logical offset, 0 when unknown
// (Java creates the queue and answers 0).
func (s *Store) MinOffsetInQueue(topic string, queueID int32) int64 {
	if cq := s.findCQ(topic, queueID); cq != nil {
		return cq.minOffsetInQueue()
	}
	return 0
}

// CommitLogOffsetInQueue is the physical offset of a logical offset, 0 when absent.
func (s *Store) CommitLogOffsetInQueue(topic string, queueID int32, consumeOffset int64) int64 {
	if cq := s.findCQ(topic, queueID); cq != nil {
		if u, ok := cq.unitAt(consumeOffset); ok {
			return u.PhyOffset
		}
	}
	return 0
}

// storeTimeOf is Java CommitLog#pickupStoreTimestamp, -1 when unavailable.
func (s *Store) storeTimeOf(phyOffset int64, size int32) int64 {
	if phyOffset < s.cl.minOffset() {
		return -1
	}
	b, mf := s.cl.slice(phyOffset, int(size))
	if mf == nil {
		return -1
	}
	defer mf.release()
	if ts, ok := message.StoreTimestampOf(b); ok {
		return ts
	}
	return -1
}

// MessageStoreTimestamp is the store time of the message at a logical offset, -1 when
// absent (Java: getMessageStoreTimeStamp).
func (s *Store) MessageStoreTimestamp(topic string, queueID int32, consumeOffset int64) int64 {
	if cq := s.findCQ(topic, queueID); cq != nil {
		if u, ok := cq.unitAt(consumeOffset); ok {
			return s.storeTimeOf(u.PhyOffset, u.Size)
		}
	}
	return -1
}

// EarliestMessageTime is the store time of the queue's first available message, -1
// when none (Java: getEarliestMessageTime(topic, queueId)).
func (s *Store) EarliestMessageTime(topic string, queueID int32) int64 {
	if cq := s.findCQ(topic, queueID); cq != nil {
		return s.MessageStoreTimestamp(topic, queueID, cq.minOffsetInQueue())
	}
	return -1
}

// CheckInDiskByConsumeOffset reports whether the message at a logical offset is too far
// behind the CommitLog end to be likely in memory (Java: checkInDiskByConsumeOffset).
func (s *Store) CheckInDiskByConsumeOffset(topic string, queueID int32, consumeOffset int64) bool {
	maxPy := s.cl.maxOffset()
	if cq := s.findCQ(topic, queueID); cq != nil {
		if u, ok := cq.unitAt(consumeOffset); ok {
			return maxPy-u.PhyOffset > s.memoryLimit()
		}
	}
	return false
}

// ConsumeQueueUnits copies up to n units from logical offset from (schedule and
// transaction services, QUERY_CONSUME_QUEUE).
func (s *Store) ConsumeQueueUnits(topic string, queueID int32, from int64, n int) []CQUnit {
	if cq := s.findCQ(topic, queueID); cq != nil && n > 0 {
		return cq.units(from, n)
	}
	return nil
}

// OffsetInQueueByTime finds the logical offset whose store time is closest to ts with
// Java's rules (ConsumeQueue#getOffsetInQueueByTime): pick the first ConsumeQueue file
// modified at or after ts (else the last), binary-search its units by the records'
// store times; an exact match wins, else the closer neighbour, else the one that exists.
func (s *Store) OffsetInQueueByTime(topic string, queueID int32, ts int64) int64 {
	cq := s.findCQ(topic, queueID)
	if cq == nil {
		return 0
	}
	files := cq.q.snapshot()
	if len(files) == 0 {
		return 0
	}
	mf := files[len(files)-1]
	for _, f := range files {
		if f.modTime().UnixMilli() >= ts {
			mf = f
			break
		}
	}
	if !mf.hold() {
		return 0
	}
	defer mf.release()
	readPos := mf.wrote.Load()
	if readPos <= 0 {
		return 0
	}
	low := int64(0)
	if m := cq.minLogicOffset.Load(); m > mf.from {
		low = m - mf.from
	}
	high := readPos - cqUnitSize
	minPhy := s.cl.minOffset()
	target, left, right := int64(-1), int64(-1), int64(-1)
	leftVal, rightVal := int64(-1), int64(-1)
	for high >= low {
		mid := (low + high) / (2 * cqUnitSize) * cqUnitSize
		u := getUnit(mf.data[mid:])
		if u.PhyOffset < minPhy {
			low = mid + cqUnitSize
			left = mid
			continue
		}
		st := s.storeTimeOf(u.PhyOffset, u.Size)
		if st < 0 {
			return 0
		}
		if st == ts {
			target = mid
			break
		}
		if st > ts {
			high = mid - cqUnitSize
			right, rightVal = mid, st
		} else {
			low = mid + cqUnitSize
			left, leftVal = mid, st
		}
	}
	off := target
	if off == -1 {
		switch {
		case leftVal == -1:
			off = right
		case rightVal == -1:
			off = left
		case abs64(ts-leftVal) > abs64(ts-rightVal):
			off = right
		default:
			off = left
		}
	}
	return (mf.from + off) / cqUnitSize
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
