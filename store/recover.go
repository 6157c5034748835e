package store

import (
	"errors"
	"fmt"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

// recover brings CommitLog, ConsumeQueues and index back to a consistent state (Java:
// DefaultMessageStore#recover, CommitLog#recoverNormally / #recoverAbnormally, and the
// reput catch-up of #start):
//
//  1. each ConsumeQueue keeps its units up to the first empty one;
//  2. the CommitLog is scanned (with CRC when checkCRCOnRecover) from the third-last
//     file after a clean stop, or after a crash from the last file whose first record
//     was stored before the checkpoint's min(physic, logics) - 3 s; the scan stops at the
//     first record that is torn, corrupt or of the wrong size, and everything after it
//     is cut off (its bytes zeroed);
//  3. ConsumeQueue units pointing at or past that end are cut off too;
//  4. the records the ConsumeQueues or the index lack are dispatched again: from the
//     ConsumeQueues' end after a clean stop, from the scan start after a crash, and for
//     the index from its last indexed offset (or from an index file deleted in load);
//  5. the next queue offsets are rebuilt from the ConsumeQueues.
func (s *Store) recover(lastExitOK bool, indexRebuildFrom int64) error {
	s.cqMu.RLock()
	cqs := make([]*consumeQueue, 0, len(s.cqs))
	for _, cq := range s.cqs {
		cqs = append(cqs, cq)
	}
	s.cqMu.RUnlock()
	maxPhyCQ := int64(-1)
	for _, cq := range cqs {
		if err := cq.recover(); err != nil {
			return fmt.Errorf("store: recover consume queue %s/%d: %w", cq.topic, cq.queueID, err)
		}
		maxPhyCQ = max(maxPhyCQ, cq.maxPhysicOffset.Load())
	}

	files := s.cl.snapshot()
	if len(files) == 0 {
		// Java: "The commitlog files are deleted, and delete the consume queue files".
		s.cl.flushedWhere.Store(0)
		if len(cqs) > 0 {
			s.log.Warn().Msg("no commitlog files: deleting the consume queues")
		}
		return s.destroyConsumeQueues()
	}
	start := max(len(files)-3, 0)
	if !lastExitOK {
		start = s.abnormalStartFile(files)
	}
	scanFrom := files[start].from
	end, err := s.scanCommitLog(files, start)
	if err != nil {
		return err
	}
	if end < s.cl.maxOffset() {
		s.log.Warn().Int64("offset", end).Int64("was", s.cl.maxOffset()).Msg("commitlog truncated at the last valid record")
	}
	if err := s.cl.truncateDirty(end); err != nil {
		return fmt.Errorf("store: truncate commitlog: %w", err)
	}
	s.cl.flushedWhere.Store(end)
	if maxPhyCQ >= end {
		s.log.Warn().Int64("cqMaxPhy", maxPhyCQ).Int64("commitlogEnd", end).Msg("consume queues ahead of the commitlog: truncating")
		for _, cq := range cqs {
			if err := cq.truncateDirtyLogicFiles(end); err != nil {
				return fmt.Errorf("store: truncate consume queue %s/%d: %w", cq.topic, cq.queueID, err)
			}
		}
	}

	clMin := s.cl.minOffset()
	cqFrom := scanFrom
	if lastExitOK {
		cqFrom = clMin
		for _, cq := range cqs {
			cqFrom = max(cqFrom, cq.maxPhysicOffset.Load())
		}
	}
	indexFrom := int64(1<<63 - 1)
	if s.index != nil {
		indexFrom = clMin
		if last := s.index.last(); last != nil {
			indexFrom = max(last.endPhy.Load(), clMin)
		}
		if indexRebuildFrom >= 0 {
			indexFrom = max(min(indexFrom, indexRebuildFrom), clMin)
		}
	}
	if err := s.replay(max(min(cqFrom, indexFrom), clMin), cqFrom, indexFrom); err != nil {
		return err
	}
	s.reputFrom.Store(s.cl.maxOffset())
	s.recoverTopicQueueTable()
	return nil
}

// abnormalStartFile is Java CommitLog#isMappedFileMatchedRecover searched from the last
// file back: the first file whose first record was stored at or before the checkpoint.
func (s *Store) abnormalStartFile(files []*mappedFile) int {
	limit := s.ckpt.minTimestamp()
	for i := len(files) - 1; i >= 0; i-- {
		_, magic, ok := message.PeekHeader(files[i].data)
		if !ok || magic != message.MagicMessage {
			continue
		}
		ts, ok := message.StoreTimestampOf(files[i].data)
		if ok && ts != 0 && ts <= limit {
			return i
		}
	}
	return 0
}

// checkRecord validates the record at b, stored at offset at: its size when valid, 0
// for an end-of-file blank, -1 when torn or corrupt (Java:
// CommitLog#checkMessageAndReturnSize). Beyond Java's checks (magic, field sizes, body
// CRC) the record must say it is stored where it is, and its topic must be made of the
// characters a topic may have: a torn write that zeroed those fields is caught here
// instead of being dispatched to a wrong place.
func checkRecord(b []byte, at int64, checkCRC bool) (int, *message.Record) {
	r, err := message.DecodeRecord(b)
	switch {
	case errors.Is(err, message.ErrBlank):
		return 0, nil
	case err != nil:
		return -1, nil
	case r.PhysicalOffset != at || !validTopic(r.Topic):
		return -1, nil
	case checkCRC && !r.CRCValid():
		return -1, nil
	}
	return int(r.StoreSize), &r
}

// validTopic reports whether a stored topic can be real: non-empty, no control
// characters, spaces or '/', not "." or "..". Java's validator
// (^[%|a-zA-Z0-9_-]+$) is stricter but not applied to every system topic; this is
// enough to catch zeroed bytes and to keep a topic a single directory name.
func validTopic(t []byte) bool {
	if len(t) == 0 || string(t) == "." || string(t) == ".." {
		return false
	}
	for _, c := range t {
		if c <= ' ' || c == '/' || c == 0x7F {
			return false
		}
	}
	return true
}

// scanCommitLog returns the offset just past the last valid record, starting at
// files[start].
func (s *Store) scanCommitLog(files []*mappedFile, start int) (int64, error) {
	for i := start; i < len(files); i++ {
		f := files[i]
		pos := 0
		for {
			size, _ := checkRecord(f.data[pos:], f.from+int64(pos), s.cfg.CheckCRCOnRecover)
			if size > 0 {
				pos += size
				continue
			}
			if size == 0 && i+1 < len(files) {
				break // end-of-file blank: the next file
			}
			if size < 0 && pos < f.size {
				s.log.Info().Str("file", f.path).Int("pos", pos).Msg("recover: commitlog ends here")
			}
			return f.from + int64(pos), nil
		}
	}
	last := files[len(files)-1]
	return last.from + int64(last.size), nil
}

// replay dispatches the records in [from, CommitLog end): to the ConsumeQueues at or
// after cqFrom and to the index at or after indexFrom. Both skip what they already have.
func (s *Store) replay(from, cqFrom, indexFrom int64) error {
	end := s.cl.maxOffset()
	for off := from; off < end; {
		buf, mf := s.cl.sliceToEnd(off, false)
		if mf == nil {
			return nil
		}
		pos, blank := 0, false
		for pos < len(buf) {
			size, r := checkRecord(buf[pos:], off+int64(pos), false)
			if size == 0 {
				blank = true
				break
			}
			if size < 0 {
				mf.release()
				return fmt.Errorf("store: replay: bad record at %d", off+int64(pos))
			}
			if err := s.dispatchRecord(r, r.PhysicalOffset >= cqFrom, r.PhysicalOffset >= indexFrom, false); err != nil {
				mf.release()
				return fmt.Errorf("store: replay at %d: %w", off+int64(pos), err)
			}
			pos += size
		}
		fileEnd := mf.from + int64(mf.size)
		mf.release()
		if blank {
			off = fileEnd
		} else {
			off += int64(pos)
		}
	}
	return nil
}

// recoverTopicQueueTable rebuilds the next logical offset of every queue from the
// ConsumeQueues and corrects their min offsets (Java: recoverTopicQueueTable).
func (s *Store) recoverTopicQueueTable() {
	clMin := s.cl.minOffset()
	s.cqMu.RLock()
	defer s.cqMu.RUnlock()
	s.putMu.Lock()
	defer s.putMu.Unlock()
	s.topicQueue = make(map[cqKey]*int64, len(s.cqs))
	for k, cq := range s.cqs {
		v := cq.maxOffsetInQueue()
		s.topicQueue[k] = &v
		cq.correctMinOffset(clMin)
	}
}

func (s *Store) destroyConsumeQueues() error {
	s.cqMu.Lock()
	defer s.cqMu.Unlock()
	for k, cq := range s.cqs {
		if err := cq.q.destroyAll(); err != nil {
			return err
		}
		delete(s.cqs, k)
	}
	return nil
}
