package store

import (
	"fmt"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/compat"
)

// scheduleTopic is Java TopicValidator#RMQ_SYS_SCHEDULE_TOPIC: its ConsumeQueue tag
// codes are deliver timestamps.
const scheduleTopic = "SCHEDULE_TOPIC_XXXX"

// dispatchLoop is Java's ReputMessageService: it turns CommitLog records into
// ConsumeQueue units and index entries. The appender wakes it after each append; a
// one-second tick retries after a failure.
func (s *Store) dispatchLoop() {
	defer s.wg.Done()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		if s.indexCatchUp.Load() >= 0 {
			// Rebuilding the index: new records first, then one step of the backlog.
			select {
			case <-s.stop:
				s.doReput()
				return
			default:
			}
			s.doReput()
			if h := s.cfg.indexCatchUpHook; h == nil || h() {
				s.catchUpIndex(indexCatchUpStep)
			}
			continue
		}
		select {
		case <-s.stop:
			s.doReput()
			return
		case <-s.dispatchWake:
		case <-tick.C:
		}
		s.doReput()
	}
}

// indexInlineMaxDefault is the largest index backlog Open replays itself; a larger one
// is rebuilt after Open (recover). indexCatchUpStep is how many CommitLog bytes the
// rebuild takes between two dispatch rounds, so new records wait for at most one step.
const (
	indexInlineMaxDefault = 64 << 20
	indexCatchUpStep      = 4 << 20
)

// IndexBehindBytes is how many dispatched CommitLog bytes the index still has to take
// after a crash left it behind (0 when it follows dispatch).
func (s *Store) IndexBehindBytes() int64 {
	if c := s.indexCatchUp.Load(); c >= 0 {
		return max(s.reputFrom.Load()-c, 0)
	}
	return 0
}

// catchUpIndex indexes up to step bytes of the records between indexCatchUp and
// reputFrom; when none are left the index follows dispatch again (doReput indexes new
// records from then on). Dispatch goroutine only: that is what keeps the index in
// CommitLog order without a lock.
func (s *Store) catchUpIndex(step int64) {
	from := s.indexCatchUp.Load()
	if m := s.cl.minOffset(); from < m { // the cleaner deleted files meanwhile
		from = m
	}
	target := s.reputFrom.Load()
	limit := min(target, from+step)
	for from < limit {
		next, ok, _ := s.walkFile(from, limit, func(r *message.Record) error {
			// Without the ConsumeQueue part it cannot fail (index errors are logged inside).
			return s.dispatchRecord(r, false, true, false)
		})
		if !ok || next <= from {
			from = target
			break
		}
		from = next
	}
	if from >= target {
		s.indexCatchUp.Store(-1)
		s.log.Info().Dur("took", time.Since(s.indexCatchUpStart)).Int64("offset", from).Msg("index rebuilt: it follows dispatch again")
		return
	}
	s.indexCatchUp.Store(from)
}

func (s *Store) wakeDispatch() {
	select {
	case s.dispatchWake <- struct{}{}:
	default:
	}
}

// DispatchBehindBytes is how many CommitLog bytes are not dispatched yet (Java:
// dispatchBehindBytes).
func (s *Store) DispatchBehindBytes() int64 { return s.cl.maxOffset() - s.reputFrom.Load() }

// doReput dispatches everything between reputFrom and the CommitLog end (Java:
// ReputMessageService#doReput). An incomplete record at the end (a slave receives
// records in arbitrary chunks) waits for more data. A record that does not decode but
// whose size is known is skipped alone (Java: "[BUG]read total count not equals msg
// total size" and reputFromOffset += size); one whose size is unusable skips the rest of
// its file's data on a master, as Java does, and stops dispatch on a slave.
func (s *Store) doReput() {
	for {
		from := s.reputFrom.Load()
		if m := s.cl.minOffset(); from < m {
			s.log.Warn().Int64("reputFrom", from).Int64("min", m).Msg("dispatch behind the oldest commitlog file")
			from = m
			s.reputFrom.Store(from)
		}
		if from >= s.cl.maxOffset() {
			return
		}
		buf, mf := s.cl.sliceToEnd(from, false)
		if mf == nil {
			return
		}
		next, stop := s.dispatchBuffer(buf, from, mf)
		mf.release()
		s.reputFrom.Store(next)
		if stop || next == from {
			return
		}
	}
}

// dispatchBuffer dispatches the records of buf (which starts at offset from in mf) and
// returns the offset to continue from.
func (s *Store) dispatchBuffer(buf []byte, from int64, mf *mappedFile) (next int64, stop bool) {
	pos := 0
	for pos < len(buf) {
		size, magic, ok := message.PeekHeader(buf[pos:])
		if !ok {
			return from + int64(pos), true
		}
		if magic == message.MagicBlank {
			return mf.from + int64(mf.size), false
		}
		if magic == message.MagicMessage && size > 0 && int(size) > len(buf)-pos {
			return from + int64(pos), true // incomplete: wait for the rest
		}
		r, err := message.DecodeRecord(buf[pos:])
		if err == nil && r.PhysicalOffset != from+int64(pos) {
			err = fmt.Errorf("record at %d claims offset %d", from+int64(pos), r.PhysicalOffset)
		}
		if err != nil {
			if s.cfg.Slave {
				s.log.Error().Err(err).Int64("offset", from+int64(pos)).Msg("dispatch: bad record, waiting")
				return from + int64(pos), true
			}
			if magic == message.MagicMessage && size > 0 {
				s.log.Error().Err(err).Int64("offset", from+int64(pos)).Int32("size", size).Msg("[BUG] dispatch: bad record, skipping it")
				pos += int(size)
				continue
			}
			s.log.Error().Err(err).Int64("offset", from+int64(pos)).Msg("[BUG] dispatch: bad record, skipping the rest of the file's data")
			return from + int64(len(buf)), false
		}
		if err := s.dispatchRecord(&r, true, s.index != nil && s.indexCatchUp.Load() < 0, true); err != nil {
			if !s.dispatchErr.Load() {
				s.log.Error().Err(err).Int64("offset", r.PhysicalOffset).Msg("dispatch failed: refusing puts until it succeeds")
				s.dispatchErr.Store(true)
			}
			return from + int64(pos), true
		}
		if s.dispatchErr.Load() {
			s.dispatchErr.Store(false)
			s.log.Info().Msg("dispatch recovered")
		}
		pos += int(size)
	}
	return from + int64(pos), false
}

// dispatchRecord builds the ConsumeQueue unit (NOT and COMMIT transaction types only)
// and the index entries of one record, then calls OnArrive (Java:
// CommitLogDispatcherBuildConsumeQueue, CommitLogDispatcherBuildIndex, arriving).
func (s *Store) dispatchRecord(r *message.Record, doCQ, doIndex, notify bool) error {
	tran := r.TransactionType()
	if doCQ && !validTopic(r.Topic) {
		// Puts refuse such topics; older stores and a Java master's stream may hold them.
		// The record stays in the CommitLog (and its keys in the index); it gets no
		// ConsumeQueue, since its topic cannot name a directory inside the store.
		s.log.Warn().Int64("offset", r.PhysicalOffset).Bytes("topic", r.Topic).
			Msg("dispatch: topic cannot name a consume queue, record kept in the commitlog only")
		doCQ = false
	}
	if doCQ && (tran == message.TransactionNotType || tran == message.TransactionCommit) {
		tagsCode := s.tagsCode(r)
		cq, err := s.consumeQueueFor(r.Topic, r.QueueID)
		if err != nil {
			return err
		}
		ok, err := cq.putPosition(r.PhysicalOffset, r.StoreSize, tagsCode, r.QueueOffset)
		if err != nil {
			return err
		}
		if ok {
			s.ckpt.logicsTs.Store(r.StoreTimestamp)
			if s.cfg.Slave {
				s.ckpt.physicTs.Store(r.StoreTimestamp)
				if notify { // replicated, not replayed: a slave's put figures show replication (Java: reput)
					s.stats.putTimes.Add(1)
					s.stats.putBytes.Add(int64(r.StoreSize))
				}
			}
			if notify && !s.cfg.Slave && s.cfg.OnArrive != nil {
				s.cfg.OnArrive(cq.topic, r.QueueID, r.QueueOffset+1, tagsCode, r.StoreTimestamp, r.Properties)
			}
		}
	}
	if doIndex && s.index != nil {
		if err := s.index.build(r); err != nil {
			// The index only serves QUERY_MESSAGE: losing entries must not stop dispatch.
			if !s.indexErr.Swap(true) {
				s.log.Error().Err(err).Int64("offset", r.PhysicalOffset).Msg("build index: keys are not indexed until it works again")
			}
		} else if s.indexErr.Load() {
			s.indexErr.Store(false)
			s.log.Info().Int64("offset", r.PhysicalOffset).Msg("index building again")
		}
	}
	return nil
}

// tagsCode is the ConsumeQueue tag code: Java String#hashCode of TAGS (0 without tags),
// or for SCHEDULE_TOPIC_XXXX the deliver time storeTimestamp + delay of level DELAY
// (Java: CommitLog#checkMessageAndReturnSize, ScheduleMessageService#computeDeliverTimestamp).
// A DELAY that is not a number is taken as 0 (Java fails the whole record).
func (s *Store) tagsCode(r *message.Record) int64 {
	var code int64
	if tags, ok := r.Property(message.PropertyTags); ok && len(tags) > 0 {
		code = int64(compat.JavaHashCode(unsafeString(tags)))
	}
	if string(r.Topic) == scheduleTopic {
		if d, ok := r.Property(message.PropertyDelayTimeLevel); ok {
			level := atoiOrZero(d)
			if level > len(s.delays) {
				level = len(s.delays)
			}
			if level > 0 {
				code = r.StoreTimestamp + s.delays[level-1]
			}
		}
	}
	return code
}

func atoiOrZero(b []byte) int {
	n := 0
	neg := false
	for i, c := range b {
		if i == 0 && (c == '-' || c == '+') {
			neg = c == '-'
			continue
		}
		if c < '0' || c > '9' || n > 1<<30 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		return -n
	}
	return n
}

// findCQ returns the queue's ConsumeQueue, nil when it has none.
func (s *Store) findCQ(topic string, queueID int32) *consumeQueue {
	s.cqMu.RLock()
	cq := s.cqs[cqKey{topic, queueID}]
	s.cqMu.RUnlock()
	return cq
}

// consumeQueueFor returns the queue's ConsumeQueue, creating it (no file yet) when new.
func (s *Store) consumeQueueFor(topic []byte, queueID int32) (*consumeQueue, error) {
	if cq := s.findCQ(unsafeString(topic), queueID); cq != nil {
		return cq, nil
	}
	if !validTopic(topic) {
		return nil, fmt.Errorf("store: topic %q cannot name a consume queue directory", topic)
	}
	s.cqMu.Lock()
	defer s.cqMu.Unlock()
	k := cqKey{string(topic), queueID}
	cq := s.cqs[k]
	if cq == nil {
		cq = newConsumeQueue(s.cfg.RootDir, k.topic, queueID, int(s.cfg.MappedFileSizeConsumeQueue), s.cfg.fallocate)
		s.cqs[k] = cq
	}
	return cq, nil
}
