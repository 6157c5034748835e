package store

import (
	"errors"
	"fmt"
	"time"

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
//     the index from its last indexed offset (or from an index file deleted in load) —
//     when that is more than indexInlineMaxDefault bytes, after Open (catchUpIndex);
//  5. the next queue offsets are rebuilt from the ConsumeQueues.
func (s *Store) recover(lastExitOK bool, indexRebuildFrom int64) error {
	s.cqMu.RLock()
	cqs := make([]*consumeQueue, 0, len(s.cqs))
	for _, cq := range s.cqs {
		cqs = append(cqs, cq)
	}
	s.cqMu.RUnlock()
	s.progress(RecoveryProgress{Stage: "consumequeue", FilesTotal: len(cqs)})
	maxPhyCQ := int64(-1)
	for i, cq := range cqs {
		if err := cq.recover(); err != nil {
			return fmt.Errorf("store: recover consume queue %s/%d: %w", cq.topic, cq.queueID, err)
		}
		maxPhyCQ = max(maxPhyCQ, cq.maxPhysicOffset.Load())
		if (i+1)%1000 == 0 || i+1 == len(cqs) {
			s.progress(RecoveryProgress{Stage: "consumequeue", FilesDone: i + 1, FilesTotal: len(cqs)})
		}
	}

	files := s.cl.snapshot()
	if len(files) == 0 {
		// Java: "The commitlog files are deleted, and delete the consume queue files".
		s.cl.flushedWhere.Store(0)
		if len(cqs) > 0 {
			s.log.Warn().Msg("no commitlog files: deleting the consume queues")
		}
		defer s.progress(RecoveryProgress{Stage: "recovered"})
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
			// The index names the last record it indexed. After a cut (here, or in an
			// earlier run whose cut left the index ahead) that offset is past the end or
			// inside a newer record: move it back so the index takes up the records now
			// stored there instead of skipping them.
			if e := last.endPhy.Load(); e >= end || s.recordBoundary(e) != e {
				b := min(s.recordBoundary(min(e, end)), end) - 1
				s.log.Warn().Int64("indexEnd", e).Int64("commitlogEnd", end).Int64("reindexFrom", b+1).
					Msg("index ahead of the commitlog or off a record boundary: indexing again from a record boundary")
				last.setHeader64(24, &last.endPhy, b)
			}
			indexFrom = max(last.endPhy.Load(), clMin)
		}
		if indexRebuildFrom >= 0 {
			indexFrom = max(min(indexFrom, indexRebuildFrom), clMin)
		}
	}
	if indexFrom < end && end-max(indexFrom, clMin) > s.cfg.indexInlineMax {
		// A large index backlog (a crash deletes the index files written after the
		// checkpoint, up to 20 million keys' worth) is rebuilt by the dispatch goroutine
		// after Open, in CommitLog order before it indexes new records: the broker
		// serves sends and pulls meanwhile, and queries by key find what is indexed so
		// far. Java deletes those files and never rebuilds them.
		s.log.Warn().Int64("from", max(indexFrom, clMin)).Int64("to", end).
			Msg("index behind the commitlog: rebuilding it in the background after start")
		s.indexCatchUp.Store(s.recordBoundary(max(indexFrom, clMin)))
		s.indexCatchUpStart = time.Now()
		indexFrom = int64(1<<63 - 1)
	}
	if err := s.replay(max(min(cqFrom, indexFrom), clMin), cqFrom, indexFrom); err != nil {
		return err
	}
	s.reputFrom.Store(s.cl.maxOffset())
	s.recoverTopicQueueTable()
	n := len(s.cl.snapshot())
	size := s.cl.maxOffset() - clMin
	s.progress(RecoveryProgress{Stage: "recovered", FilesDone: n, FilesTotal: n, BytesDone: size, BytesTotal: size})
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
// CommitLog#checkMessageAndReturnSize). The checks are structural only: magic, field
// sizes that add up to TOTALSIZE, the body CRC, and (beyond Java) that the record says
// it is stored where it is, which catches a torn write that zeroed its header. A
// record's topic is never judged by name rules here: a sound record whose topic a newer
// check would refuse (say a %DLQ% topic of a group with '/', written by an older version
// or replicated from a Java master) is valid, and cutting the log at it would destroy
// every record after it.
func checkRecord(b []byte, at int64, checkCRC bool) (int, *message.Record) {
	r, err := message.DecodeRecord(b)
	switch {
	case errors.Is(err, message.ErrBlank):
		return 0, nil
	case err != nil:
		return -1, nil
	case r.PhysicalOffset != at:
		return -1, nil
	case checkCRC && !r.CRCValid():
		return -1, nil
	}
	return int(r.StoreSize), &r
}

// validTopic reports whether a stored topic can name a ConsumeQueue directory:
// non-empty, no control characters, spaces or '/', not "." or "..". Java's validator
// (^[%|a-zA-Z0-9_-]+$) is stricter but not applied to every system topic. Puts refuse
// other topics; dispatch gives a record of such a topic (older stores, a Java master's
// stream) no ConsumeQueue unit and goes on with the next record.
func validTopic[T string | []byte](t T) bool {
	if len(t) == 0 || string(t) == "." || string(t) == ".." {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c <= ' ' || c == '/' || c == '\\' || c == 0x7F {
			return false
		}
	}
	return true
}

// scanCommitLog returns the offset just past the last valid record, starting at
// files[start].
func (s *Store) scanCommitLog(files []*mappedFile, start int) (int64, error) {
	last := files[len(files)-1]
	total := last.from + int64(last.size) - files[start].from
	for i := start; i < len(files); i++ {
		f := files[i]
		s.progress(RecoveryProgress{Stage: "commitlog", FilesDone: i - start, FilesTotal: len(files) - start,
			BytesDone: f.from - files[start].from, BytesTotal: total})
		pos := 0
		for {
			size, _ := checkRecord(f.data[pos:], f.from+int64(pos), s.cfg.CheckCRCOnRecover)
			if size > 0 {
				pos += size
				continue
			}
			if size == 0 {
				if i+1 < len(files) {
					break // end-of-file blank: the next file
				}
				// The newest file ends in its blank: it is finished, and its end is what a
				// slave holding it has acknowledged. Java stops at the blank's start
				// (CommitLog#recoverNormally) and writes over it; Skyrocket keeps the file
				// whole, and the next append starts the next file.
				return f.from + int64(f.size), nil
			}
			if size < 0 && pos < f.size {
				s.log.Info().Str("file", f.path).Int("pos", pos).Msg("recover: commitlog ends here")
			}
			return f.from + int64(pos), nil
		}
	}
	return last.from + int64(last.size), nil
}

// replay dispatches the records in [from, CommitLog end): to the ConsumeQueues at or
// after cqFrom and to the index at or after indexFrom. Both skip what they already have.
// The walk starts at the record boundary at or before from (an index written before an
// earlier truncation can name an offset inside a record). A record that fails the check
// can only lie before the recovery scan (which cut the log at the first bad one): it is
// logged and the rest of its file skipped, never a reason to refuse to start.
func (s *Store) replay(from, cqFrom, indexFrom int64) error {
	end := s.cl.maxOffset()
	begin := s.recordBoundary(from)
	files := int((end-begin+s.clSize-1)/s.clSize) + 1
	done := 0
	for off := begin; off < end; done++ {
		s.progress(RecoveryProgress{Stage: "replay", FilesDone: done, FilesTotal: max(files, done+1), BytesDone: off - begin, BytesTotal: end - begin})
		next, ok, err := s.walkFile(off, end, func(r *message.Record) error {
			return s.dispatchRecord(r, r.PhysicalOffset >= cqFrom, r.PhysicalOffset >= indexFrom, false)
		})
		if err != nil {
			return fmt.Errorf("store: replay %w", err)
		}
		if !ok || next <= off {
			return nil
		}
		off = next
	}
	return nil
}

// walkFile calls fn for each record of the CommitLog file holding off, from off (a record
// boundary) while records start before limit, and returns where the next walk starts:
// past the last record taken, or the file's end after its end-of-file blank or after a
// record that fails the check (logged; the rest of that file is skipped). ok is false
// when no file holds off. An error from fn stops the walk at that record.
func (s *Store) walkFile(off, limit int64, fn func(*message.Record) error) (next int64, ok bool, err error) {
	buf, mf := s.cl.sliceToEnd(off, false)
	if mf == nil {
		return off, false, nil
	}
	defer mf.release()
	pos := 0
	for pos < len(buf) && off+int64(pos) < limit {
		size, r := checkRecord(buf[pos:], off+int64(pos), false)
		if size < 0 {
			s.log.Error().Int64("offset", off+int64(pos)).Str("file", mf.path).
				Msg("bad record before the dispatched range, skipping the rest of its file")
		}
		if size <= 0 {
			return mf.from + int64(mf.size), true, nil
		}
		if err := fn(r); err != nil {
			return off + int64(pos), true, fmt.Errorf("at %d: %w", off+int64(pos), err)
		}
		pos += size
	}
	return off + int64(pos), true, nil
}

// recordBoundary returns off when a record (or the end-of-file blank) starts there,
// else the start of the record that holds off, found by walking its file from the
// beginning (files always start with a record).
func (s *Store) recordBoundary(off int64) int64 {
	buf, mf := s.cl.sliceToEnd(off, false)
	if mf == nil {
		return off
	}
	defer mf.release()
	if size, _ := checkRecord(buf, off, false); size >= 0 || off == mf.from {
		return off
	}
	data := mf.data[:off-mf.from+int64(len(buf))]
	pos := 0
	for {
		size, _ := checkRecord(data[pos:], mf.from+int64(pos), false)
		if size <= 0 || mf.from+int64(pos+size) > off {
			s.log.Warn().Int64("offset", off).Int64("boundary", mf.from+int64(pos)).
				Msg("replay: start offset is inside a record, starting at the record boundary before it")
			return mf.from + int64(pos)
		}
		pos += size
	}
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
