package store

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// flushLoop flushes the CommitLog (Java: FlushRealTimeService for ASYNC_FLUSH,
// GroupCommitService for SYNC_FLUSH). In SYNC_FLUSH it wakes on every waiter and on a
// 10 ms tick, writes back everything appended before the sync starts with one sync per
// file (fdatasync on the descriptor write path, msync otherwise), and releases every
// waiter the new flushed offset covers: many appends, one sync. A waiter that arrives
// during a sync leaves a wake-up behind, so the next sync starts as soon as this one
// returns and covers everything appended by then. In
// ASYNC_FLUSH it flushes every FlushInterval when at least FlushCommitLogLeastPages
// pages are dirty, and everything every FlushCommitLogThoroughInterval.
func (s *Store) flushLoop() {
	defer s.wg.Done()
	interval := s.cfg.FlushInterval
	if s.cfg.FlushDiskType == SyncFlush {
		interval = 10 * time.Millisecond
	}
	tick, wb := interval, s.wb
	if wb != nil {
		tick = writebackInterval
		defer wb.close()
	}
	t := time.NewTimer(tick)
	defer t.Stop()
	var lastThorough time.Time
	lastFlush := time.Now()
	for {
		least := 0
		select {
		case <-s.stop:
			return // Close flushes everything after the services stop
		case <-s.flushWake:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		case <-t.C:
			if s.cfg.FlushDiskType == AsyncFlush {
				now := time.Now()
				if wb != nil && now.Sub(lastFlush) < interval {
					t.Reset(tick)
					wb.start(s.cl.last(), s.cfg.FlushCommitLogLeastPages)
					continue
				}
				lastFlush = now
				least = s.cfg.FlushCommitLogLeastPages
				if now.Sub(lastThorough) >= s.cfg.FlushCommitLogThoroughInterval {
					lastThorough, least = now, 0
				}
			}
		}
		t.Reset(tick)
		if err := s.flushCommitLog(least); err != nil {
			s.log.Error().Err(err).Msg("flush commitlog")
		}
	}
}

// writebackInterval is how often, under ASYNC_FLUSH, the flush service starts the
// writeback of what was appended since it last looked (writeback.start).
const writebackInterval = 10 * time.Millisecond

// writeback starts, between two ASYNC_FLUSH flushes, the writeback of the CommitLog
// pages appended since (sync_file_range SYNC_FILE_RANGE_WRITE: the pages go to the
// disk, nothing waits for them, no journal commit, no device cache flush), so that
// the flush every flushIntervalCommitLog (an msync, as Java's FlushRealTimeService
// does) finds them written and returns at once. Without it, that msync wrote 500 ms of
// appends in one burst (12 MB at 20,000 msg/s of 1 KiB) and the sends of those
// milliseconds waited: at a fixed 20,000 msg/s, p99 0.9-1.4 ms and p99.9 2.9-6.6 ms
// against 0.56-0.75 and 1.4-1.7 with it (docs/benchmarks.md, "ASYNC_FLUSH writeback").
// Durability is unchanged: only the flush says the bytes are on disk. The file is
// opened read-only for it (sync_file_range needs a descriptor, the mapped write path
// keeps none); the flushing goroutine alone uses it.
type writeback struct {
	mf   *mappedFile
	f    *os.File
	from atomic.Int64 // file position the next writeback starts from
}

// newWriteback is the writeback of a store that flushes every interval: nil unless
// ASYNC_FLUSH on the mapped write path (the descriptor path's syncs are group commits)
// and the flushes are further apart than writebackInterval.
func newWriteback(cfg Config, fdWrite bool) *writeback {
	if cfg.FlushDiskType != AsyncFlush || fdWrite || cfg.DisableWriteback || cfg.FlushInterval <= writebackInterval {
		return nil
	}
	return &writeback{}
}

// start starts the writeback of mf's whole pages written since the last start (or
// flush), once there are at least minPages of them.
func (w *writeback) start(mf *mappedFile, minPages int) {
	if mf == nil || !mf.hold() {
		return
	}
	defer mf.release()
	if mf != w.mf {
		w.close()
		f, err := os.Open(mf.path)
		if err != nil {
			return // renamed or deleted under us: the flush writes it back
		}
		w.mf, w.f = mf, f
		w.from.Store(0)
	}
	from := max(w.from.Load(), mf.flushed.Load()) &^ (osPageSize - 1)
	to := mf.wrote.Load() &^ (osPageSize - 1) // the page being filled is left to the flush
	if to-from < int64(max(minPages, 1))*osPageSize {
		return
	}
	if err := syncFileRange(int(w.f.Fd()), from, to-from); err != nil {
		return
	}
	w.from.Store(to)
}

func (w *writeback) close() {
	if w.f != nil {
		_ = w.f.Close()
	}
	w.mf, w.f = nil, nil
}

// syncFileRange starts the writeback of [off, off+n) of fd's file without waiting for it.
func syncFileRange(fd int, off, n int64) error {
	for {
		err := syscall.SyncFileRange(fd, off, n, syncFileRangeWrite)
		if err != syscall.EINTR {
			return err
		}
	}
}

// flushCommitLog flushes and publishes the new flushed offset to WaitFlushed callers.
func (s *Store) flushCommitLog(leastPages int) error {
	before := s.cl.flushedWhere.Load()
	timer := s.flushTimer.Load()
	var began time.Time
	if timer != nil {
		began = time.Now()
	}
	var err error
	switch {
	case s.cfg.FlushDiskType == SyncFlush:
		// One group commit: everything appended before it starts, then publish.
		_, err = s.cl.flushTo(s.cl.maxOffset())
	case leastPages == 0:
		err = s.cl.flushAll()
	default:
		_, err = s.cl.flush(leastPages)
	}
	if ts := s.cl.flushedTs.Load(); ts > 0 {
		s.ckpt.physicTs.Store(ts)
	}
	if now := s.cl.flushedWhere.Load(); now != before {
		if timer != nil {
			(*timer)(time.Since(began))
		}
		s.flushMu.Lock()
		close(s.flushNotify)
		s.flushNotify = make(chan struct{})
		s.flushMu.Unlock()
		if h := s.flushHook.Load(); h != nil {
			(*h)(now)
		}
	}
	return err
}

// SetFlushHook has the flush service call fn(flushed) each time the flushed offset
// advances, from its own goroutine, after FlushNotify's channel is closed and before the
// next sync starts; nil removes it. fn must not block: the next group commit waits for
// it. It lets the broker answer SYNC_FLUSH sends from the flushing goroutine, with no
// goroutine woken in between (Java: GroupCommitService completes each request's future
// on its own thread). Under SYNC_FLUSH, a goroutine woken by FlushNotify found the
// flusher already back in its next fdatasync holding the only idle P, and ran only once
// the runtime took that P back: 0.2-0.6 ms per group commit on this 2-core machine
// (docs/benchmarks.md, "SYNC_FLUSH at the disk's limit").
func (s *Store) SetFlushHook(fn func(flushed int64)) {
	if fn == nil {
		s.flushHook.Store(nil)
		return
	}
	s.flushHook.Store(&fn)
}

// SetFlushTimer has the flush service call fn(d) after each CommitLog flush that advanced
// the flushed offset, d being the time the flush took (the fdatasync of a group commit
// under SYNC_FLUSH, the msync of an interval flush under ASYNC_FLUSH); nil removes it. It
// is called from the flushing goroutine before the flush hook (SetFlushHook), so it must
// not block. It tells a disk whose syncs stall from a broker that is slow around them:
// every SYNC_FLUSH send waits for one or two of these.
func (s *Store) SetFlushTimer(fn func(d time.Duration)) {
	if fn == nil {
		s.flushTimer.Store(nil)
		return
	}
	s.flushTimer.Store(&fn)
}

// FlushedOffset is the CommitLog offset up to which data is on stable storage.
func (s *Store) FlushedOffset() int64 { return s.cl.flushedWhere.Load() }

// WaitFlushed returns nil once the CommitLog is flushed (msync or fdatasync) up to offset,
// ErrFlushTimeout after timeout, ErrClosed when the store closes first. The send path
// calls it with PutResult.WroteOffset+WroteBytes for SYNC_FLUSH (Java: GroupCommitRequest).
func (s *Store) WaitFlushed(offset int64, timeout time.Duration) error {
	if s.cl.flushedWhere.Load() >= offset {
		return nil
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		ch := s.FlushNotify()
		if s.cl.flushedWhere.Load() >= offset {
			return nil
		}
		s.RequestFlush()
		select {
		case <-ch:
		case <-t.C:
			return fmt.Errorf("%w: flushed %d, want %d", ErrFlushTimeout, s.cl.flushedWhere.Load(), offset)
		case <-s.stop:
			if s.cl.flushedWhere.Load() >= offset {
				return nil
			}
			return ErrClosed
		}
	}
}

// FlushNotify returns a channel closed when the flushed offset next advances. Take it
// before reading FlushedOffset, so that no advance falls between the two. With
// RequestFlush it lets one goroutine wait for many offsets (the broker's SYNC_FLUSH
// answers) where WaitFlushed waits for one.
func (s *Store) FlushNotify() <-chan struct{} {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	return s.flushNotify
}

// RequestFlush wakes the flush service now (SYNC_FLUSH: a group commit); it never blocks.
func (s *Store) RequestFlush() {
	select {
	case s.flushWake <- struct{}{}:
	default:
	}
}

// flushConsumeQueueLoop flushes the ConsumeQueues every FlushConsumeQueueInterval and,
// every FlushConsumeQueueThoroughInterval, everything plus the last index file and the
// checkpoint (Java: FlushConsumeQueueService; flushing the index here is ours: Java
// only flushes an index file when it is full).
func (s *Store) flushConsumeQueueLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.cfg.FlushConsumeQueueInterval)
	defer t.Stop()
	var lastThorough time.Time
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		least := s.cfg.FlushConsumeQueueLeastPages
		now := time.Now()
		if now.Sub(lastThorough) >= s.cfg.FlushConsumeQueueThoroughInterval {
			lastThorough, least = now, 0
		}
		if err := s.flushConsumeQueuesAndCheckpoint(least); err != nil {
			s.log.Error().Err(err).Msg("flush consume queues")
		}
	}
}

// flushConsumeQueuesAndCheckpoint flushes the queues; a thorough pass (least 0) also
// flushes the index and persists the checkpoint with the logics time taken before the
// queues were flushed, so the checkpoint never claims more than is on disk.
func (s *Store) flushConsumeQueuesAndCheckpoint(least int) error {
	logicsTs := s.ckpt.logicsTs.Load()
	err := s.flushConsumeQueues(least)
	if least != 0 || err != nil {
		return err
	}
	if s.index != nil {
		if err := s.index.flushLast(); err != nil {
			return err
		}
	}
	s.ckpt.logicsDurable.Store(logicsTs)
	return s.ckpt.flush()
}

func (s *Store) flushConsumeQueues(least int) error {
	s.cqMu.RLock()
	cqs := make([]*consumeQueue, 0, len(s.cqs))
	for _, cq := range s.cqs {
		cqs = append(cqs, cq)
	}
	s.cqMu.RUnlock()
	var errs []error
	// The directories of ConsumeQueue files created since the last thorough pass
	// (lazy.go): made durable before the checkpoint, the only thing that counts on them
	// (a crash before it re-dispatches from the older checkpoint and makes any lost file
	// again). Only there: a thousand new queues are a thousand directory fsyncs, and at
	// every 1 s pass they slowed the dispatcher's first writes into new files (journal
	// commits) enough to cost 1.3x the CPU per message over 1024 queues.
	if least == 0 {
		if err := syncDirs(cqs); err != nil {
			errs = append(errs, err)
		}
	}
	for _, cq := range cqs {
		var err error
		if least == 0 {
			err = cq.q.flushAll()
		} else {
			err = cq.flush(least)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
