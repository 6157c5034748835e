package store

import (
	"fmt"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

// MaxPhyOffset is the CommitLog's end offset (Java: getMaxPhyOffset).
func (s *Store) MaxPhyOffset() int64 { return s.cl.maxOffset() }

// MinPhyOffset is the start offset of the CommitLog's first file, -1 when empty (Java:
// CommitLog#getMinOffset).
func (s *Store) MinPhyOffset() int64 {
	f := s.cl.first()
	if f == nil {
		return -1
	}
	if !f.live.Load() {
		return s.rollNextFile(f.from)
	}
	return f.from
}

// MessageByOffset returns the stored record at a physical offset, a slice of the mapped
// file, and the release func to call when done with it (Java: selectOneMessageByOffset,
// for VIEW_MESSAGE_BY_ID, send-back and transactions). ErrNotFound when no record starts
// there.
func (s *Store) MessageByOffset(phyOffset int64) ([]byte, func(), error) {
	head, mf := s.cl.slice(phyOffset, 8)
	if mf == nil {
		return nil, nil, fmt.Errorf("%w: %d", ErrNotFound, phyOffset)
	}
	size, magic, _ := message.PeekHeader(head)
	mf.release()
	if magic != message.MagicMessage || size < 91 {
		return nil, nil, fmt.Errorf("%w: no record starts at %d", ErrNotFound, phyOffset)
	}
	rec, mf := s.cl.slice(phyOffset, int(size))
	if mf == nil {
		return nil, nil, fmt.Errorf("%w: %d", ErrNotFound, phyOffset)
	}
	return rec, mf.release, nil
}

// CommitLogData returns the CommitLog bytes from offset to the end of the written data
// of offset's file, for HA transfer (Java: getCommitLogData; offset 0 on a store whose
// first file starts later reads that first file). data is nil when there is nothing.
func (s *Store) CommitLogData(offset int64) (data []byte, release func()) {
	if s.closed.Load() {
		return nil, nil
	}
	b, mf := s.cl.sliceToEnd(offset, offset == 0)
	if mf == nil {
		return nil, nil
	}
	return b, mf.release
}

// AppendToCommitLog writes replicated CommitLog bytes (a slave's HA data) at exactly
// startOffset, which must be MaxPhyOffset(), or on an empty store the start of a file;
// dispatch then builds ConsumeQueue and index from them (Java: appendToCommitLog).
// Data never crosses a file boundary (the master sends one file's bytes at a time).
func (s *Store) AppendToCommitLog(startOffset int64, data []byte) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if len(data) == 0 {
		return nil
	}
	s.putMu.Lock()
	defer s.putMu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	end := s.cl.maxOffset()
	empty := s.cl.last() == nil
	if (!empty && startOffset != end) || (empty && startOffset%s.clSize != 0) {
		return fmt.Errorf("%w: data at %d, commitlog ends at %d", ErrOffsetMismatch, startOffset, end)
	}
	mf, err := s.cl.lastForWrite(startOffset)
	if err != nil {
		return err
	}
	if empty {
		s.cl.flushedWhere.Store(startOffset)
		s.reputFrom.Store(startOffset)
	}
	pos := mf.wrote.Load()
	if pos+int64(len(data)) > int64(mf.size) {
		return fmt.Errorf("%w: %d bytes do not fit the file at %d", ErrOffsetMismatch, len(data), mf.from)
	}
	if s.fdWrite {
		if err := mf.writeRecord(data, pos); err != nil {
			return fmt.Errorf("%w: %w", ErrWrite, err)
		}
	} else {
		copy(mf.data[pos:], data)
	}
	mf.wrote.Store(pos + int64(len(data)))
	s.wakeDispatch()
	return nil
}

// QueryResult holds the records an index query found (Java: QueryMessageResult).
// Buffers are mapped slices valid until Release.
type QueryResult struct {
	Buffers                  [][]byte
	IndexLastUpdateTimestamp int64
	IndexLastUpdatePhyoffset int64
	held                     []func()
}

// Release lets the mapped files go.
func (r *QueryResult) Release() {
	for _, f := range r.held {
		f()
	}
	r.held, r.Buffers = nil, nil
}

// QueryMessage finds the records indexed under topic#key stored between begin and end
// (ms), at most min(maxNum, MaxMsgsNumBatch) (Java: DefaultMessageStore#queryMessage,
// three passes that move end back to the oldest hit). Keys may collide: callers re-check.
func (s *Store) QueryMessage(topic, key string, maxNum int, begin, end int64) *QueryResult {
	r := &QueryResult{}
	if s.index == nil {
		return r
	}
	maxNum = min(maxNum, s.cfg.MaxMsgsNumBatch)
	lastQueryTime := end
	for pass := 0; pass < 3; pass++ {
		offs, lastTs, lastPhy := s.index.query(topic, key, maxNum, begin, lastQueryTime)
		if len(offs) == 0 {
			break
		}
		sortInt64s(offs)
		r.IndexLastUpdateTimestamp, r.IndexLastUpdatePhyoffset = lastTs, lastPhy
		for i, off := range offs {
			rec, release, err := s.MessageByOffset(off)
			if err != nil {
				continue
			}
			if i == 0 {
				if ts, ok := message.StoreTimestampOf(rec); ok {
					lastQueryTime = ts
				}
			}
			r.Buffers = append(r.Buffers, rec)
			r.held = append(r.held, release)
		}
		if len(r.Buffers) > 0 || lastQueryTime < begin {
			break
		}
	}
	return r
}

func sortInt64s(a []int64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
