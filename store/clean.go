package store

import (
	"time"
)

// Topics that cleanup never removes (Java: cleanUnusedTopic keeps the schedule topic
// and the transaction op-half topic).
const transOpHalfTopic = "RMQ_SYS_TRANS_OP_HALF_TOPIC"

// cleanLoop deletes expired files every CleanResourceInterval, first after one minute
// (Java: cleanFilesPeriodically = CleanCommitLogService + CleanConsumeQueueService). It
// takes no append lock: deleting old files never stalls the appender.
func (s *Store) cleanLoop() {
	defer s.wg.Done()
	first := time.NewTimer(time.Minute)
	defer first.Stop()
	select {
	case <-s.stop:
		return
	case <-first.C:
	}
	t := time.NewTicker(s.cfg.CleanResourceInterval)
	defer t.Stop()
	for {
		s.cleanFilesOnce()
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
	}
}

// cleanFilesOnce is one run of both clean services.
func (s *Store) cleanFilesOnce() {
	s.deleteExpiredCommitLog()
	s.deleteExpiredConsumeQueues()
}

// ExecuteDeleteFilesManually makes the next 20 cleanup runs delete expired CommitLog
// files whatever the hour (Java: executeDeleteFilesManually, for TRIGGER_DELETE_FILES).
func (s *Store) ExecuteDeleteFilesManually() { s.manualDeletes.Store(20) }

// deleteExpiredCommitLog is Java CleanCommitLogService#deleteExpiredFiles: at the
// deleteWhen hour, when the disk is above diskMaxUsedSpaceRatio, or on manual request,
// delete the files older than fileReservedTime, and any old file when the disk is above
// the forced-clean ratio.
func (s *Store) deleteExpiredCommitLog() {
	now := s.cfg.now()
	timeUp := isTimeToDelete(s.cfg.DeleteWhen, now)
	spaceFull := s.isSpaceToDelete()
	manual := s.manualDeletes.Load() > 0
	if !timeUp && !spaceFull && !manual {
		return
	}
	if manual {
		s.manualDeletes.Add(-1)
	}
	force := s.cfg.CleanFileForciblyEnable && s.cleanNow.Load()
	n, err := s.cl.deleteExpiredByTime(now, s.cfg.FileReservedTime, s.cfg.DeleteCommitLogFilesInterval, force, s.stop)
	if err != nil {
		s.log.Error().Err(err).Msg("delete expired commitlog file")
	}
	if n > 0 {
		s.log.Info().Int("files", n).Bool("timeUp", timeUp).Bool("spaceFull", spaceFull).Bool("manual", manual).
			Bool("force", force).Msg("deleted expired commitlog files")
	} else if spaceFull {
		s.log.Warn().Msg("disk space will be full soon, but no commitlog file could be deleted")
	}
}

// isSpaceToDelete is Java CleanCommitLogService#isSpaceToDelete: it also marks the disk
// full above diskSpaceWarningLevelRatio and requests forced cleaning above
// diskSpaceCleanForciblyRatio.
func (s *Store) isSpaceToDelete() bool {
	ratio := float64(s.cfg.DiskMaxUsedSpaceRatio) / 100
	clRatio := s.cfg.diskUsedRatio(s.cfg.CommitLogDir)
	cqRatio := s.cfg.diskUsedRatio(s.cqRoot())
	worst := max(clRatio, cqRatio)
	s.cleanNow.Store(worst > s.cfg.DiskSpaceCleanForciblyRatio)
	s.markDisk(worst)
	return clRatio < 0 || clRatio > ratio || cqRatio < 0 || cqRatio > ratio
}

// markDisk sets or clears the disk-full flag that makes puts answer
// SERVICE_NOT_AVAILABLE (Java: RunningFlags#getAndMakeDiskFull / getAndMakeDiskOK).
func (s *Store) markDisk(ratio float64) {
	if ratio > s.cfg.DiskSpaceWarningLevelRatio {
		if !s.diskFull.Swap(true) {
			s.log.Error().Float64("used", ratio).Msg("disk maybe full soon: refusing puts")
		}
	} else if s.diskFull.Swap(false) {
		s.log.Info().Float64("used", ratio).Msg("disk space OK again: accepting puts")
	}
}

// diskCheckLoop is Java's 10-second isSpaceFull check.
func (s *Store) diskCheckLoop() {
	defer s.wg.Done()
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	s.checkDiskSpace()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.checkDiskSpace()
		}
	}
}

func (s *Store) checkDiskSpace() { s.markDisk(s.cfg.diskUsedRatio(s.cfg.CommitLogDir)) }

// deleteExpiredConsumeQueues is Java CleanConsumeQueueService: once the CommitLog's
// first file moved, delete ConsumeQueue and index files that only point before it.
func (s *Store) deleteExpiredConsumeQueues() {
	minOffset := s.cl.minOffset()
	if minOffset <= s.lastCQClean {
		return
	}
	s.lastCQClean = minOffset
	for _, cq := range s.allCQs() {
		if n := cq.deleteExpired(minOffset); n > 0 && s.cfg.DeleteConsumeQueueFilesInterval > 0 {
			select {
			case <-s.stop:
				return
			case <-time.After(s.cfg.DeleteConsumeQueueFilesInterval):
			}
		}
	}
	if s.index != nil {
		s.index.deleteExpired(minOffset)
	}
}

func (s *Store) allCQs() []*consumeQueue {
	s.cqMu.RLock()
	defer s.cqMu.RUnlock()
	out := make([]*consumeQueue, 0, len(s.cqs))
	for _, cq := range s.cqs {
		out = append(out, cq)
	}
	return out
}

// removeQueues destroys the given queues and forgets their next offsets.
func (s *Store) removeQueues(match func(k cqKey, cq *consumeQueue) bool) int {
	s.cqMu.Lock()
	defer s.cqMu.Unlock()
	removed := 0
	for k, cq := range s.cqs {
		if !match(k, cq) {
			continue
		}
		if err := cq.q.destroyAll(); err != nil {
			s.log.Warn().Err(err).Str("topic", k.topic).Int32("queueId", k.queueID).Msg("destroy consume queue")
		}
		delete(s.cqs, k)
		s.putMu.Lock()
		delete(s.topicQueue, k)
		s.putMu.Unlock()
		removed++
	}
	return removed
}

// CleanExpiredConsumeQueue destroys the ConsumeQueues whose every unit points before
// the CommitLog's first file (Java: cleanExpiredConsumerQueue; never the schedule topic).
func (s *Store) CleanExpiredConsumeQueue() {
	minOffset := s.cl.minOffset()
	s.removeQueues(func(k cqKey, cq *consumeQueue) bool {
		if k.topic == scheduleTopic {
			return false
		}
		last := cq.lastOffset()
		return last != -1 && last < minOffset
	})
}

// CleanUnusedTopics destroys the ConsumeQueues of every topic not in keep, except the
// schedule, transaction op-half and LMQ topics, and returns how many queues went (Java:
// cleanUnusedTopic, which always returns 0).
func (s *Store) CleanUnusedTopics(keep map[string]bool) int {
	return s.removeQueues(func(k cqKey, _ *consumeQueue) bool {
		return !keep[k.topic] && k.topic != scheduleTopic && k.topic != transOpHalfTopic && !isLmq(k.topic)
	})
}

// DeleteTopics destroys the ConsumeQueues of the given topics (the broker's
// DELETE_TOPIC_IN_BROKER). The CommitLog records stay until they expire.
func (s *Store) DeleteTopics(topics []string) int {
	set := make(map[string]bool, len(topics))
	for _, t := range topics {
		set[t] = true
	}
	return s.removeQueues(func(k cqKey, _ *consumeQueue) bool { return set[k.topic] })
}

func isLmq(topic string) bool { return len(topic) >= 5 && topic[:5] == "%LMQ%" }
