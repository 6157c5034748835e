package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// cqKey names one topic queue.
type cqKey struct {
	topic   string
	queueID int32
}

// Store is the message store: CommitLog, ConsumeQueues, IndexFiles and checkpoint in
// Java's on-disk format, with the services that flush, dispatch and clean them (Java:
// DefaultMessageStore). See doc.go for the layouts and the lock order.
type Store struct {
	cfg Config
	log zerolog.Logger

	lockFile *os.File
	cl       *mappedQueue // the CommitLog
	clSize   int64
	ckpt     *checkpoint
	index    *indexService // nil when MessageIndexEnable is false
	delays   []int64       // messageDelayLevel in ms, level 1 first
	memory   int64         // physical memory, for the in-memory transfer limits

	// putMu is the append lock (Java: putMessageLock). It guards topicQueue and the
	// CommitLog's last file. Lock order: putMu, then cl.mu.
	putMu       sync.Mutex
	warm        *warmer
	topicQueue  map[cqKey]*int64 // next logical offset per queue; values are updated through the pointer so the map never re-stores a key (Go replaces string keys on assignment, and callers' topic strings may live in reused buffers)
	lockBeginMs atomic.Int64     // when the current append took putMu, 0 when free
	// wbuf is where records are encoded before pwrite on the descriptor write path
	// (fdWrite); guarded by putMu.
	fdWrite bool
	wbuf    []byte
	// wb starts the CommitLog's writeback between ASYNC_FLUSH flushes (flush.go); nil
	// where it does not apply. The flushing goroutine alone uses it.
	wb *writeback

	// cqMu guards cqs. Lock order: cqMu, then putMu, then a queue's mu.
	cqMu sync.RWMutex
	cqs  map[cqKey]*consumeQueue

	reputFrom    atomic.Int64
	dispatchWake chan struct{}
	dispatchErr  atomic.Bool // a ConsumeQueue could not be written: refuse puts until it can
	indexErr     atomic.Bool // the index could not be written (logged once)
	// indexCatchUp is where the index is rebuilt from in the background after Open
	// (-1: the index follows dispatch). Written by Open and the dispatch goroutine only.
	indexCatchUp      atomic.Int64
	indexCatchUpStart time.Time

	flushWake   chan struct{}
	flushMu     sync.Mutex
	flushNotify chan struct{}                         // closed and replaced whenever flushedWhere advances
	flushHook   atomic.Pointer[func(flushed int64)]   // SetFlushHook
	flushTimer  atomic.Pointer[func(d time.Duration)] // SetFlushTimer

	diskFull      atomic.Bool
	cleanNow      atomic.Bool  // disk above the forced-clean ratio
	manualDeletes atomic.Int32 // Java: manualDeleteFileSeveralTimes
	lastCQClean   int64        // cleaner goroutine only: Java lastPhysicalMinOffset

	closed atomic.Bool
	stop   chan struct{}
	wg     sync.WaitGroup

	stats storeStats
}

type storeStats struct {
	boot          time.Time
	putTimes      atomic.Int64
	putBytes      atomic.Int64
	putFailed     atomic.Int64
	putMaxMs      atomic.Int64
	getMaxMs      atomic.Int64
	getFound      atomic.Int64
	getMiss       atomic.Int64
	getTransfered atomic.Int64
}

// Open locks the store directory, loads its files, recovers (normally, or abnormally
// when the abort file shows the last run did not close), dispatches what the
// ConsumeQueues and index lack, and starts the services (Java:
// DefaultMessageStore#load + #start).
func Open(cfg Config) (*Store, error) {
	cfg = cfg.withDefaults()
	s := &Store{
		cfg:          cfg,
		log:          cfg.Logger,
		clSize:       cfg.MappedFileSizeCommitLog,
		delays:       parseDelayLevels(cfg.MessageDelayLevel),
		memory:       totalPhysicalMemory(),
		topicQueue:   make(map[cqKey]*int64),
		cqs:          make(map[cqKey]*consumeQueue),
		dispatchWake: make(chan struct{}, 1),
		flushWake:    make(chan struct{}, 1),
		flushNotify:  make(chan struct{}),
		stop:         make(chan struct{}),
	}
	s.stats.boot = cfg.now()
	s.indexCatchUp.Store(-1)
	for _, d := range []string{cfg.RootDir, cfg.CommitLogDir, s.cqRoot()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	if err := s.lock(); err != nil {
		return nil, err
	}
	if err := s.load(); err != nil {
		if s.ckpt != nil {
			_ = syscall.Munmap(s.ckpt.data)
		}
		s.releaseAll()
		return nil, err
	}
	if err := s.createAbortFile(); err != nil {
		s.releaseAll()
		return nil, err
	}
	s.startServices()
	return s, nil
}

func (s *Store) cqRoot() string    { return filepath.Join(s.cfg.RootDir, "consumequeue") }
func (s *Store) abortPath() string { return filepath.Join(s.cfg.RootDir, "abort") }

// lock takes an exclusive flock on <root>/lock and writes "lock" into it, as Java does.
func (s *Store) lock() error {
	f, err := os.OpenFile(filepath.Join(s.cfg.RootDir, "lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("store: open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%w: %s", ErrLocked, s.cfg.RootDir)
		}
		return fmt.Errorf("store: lock: %w", err)
	}
	if _, err := f.WriteAt([]byte("lock"), 0); err == nil {
		_ = f.Sync()
	}
	s.lockFile = f
	return nil
}

func (s *Store) createAbortFile() error {
	f, err := os.OpenFile(s.abortPath(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("store: create abort file: %w", err)
	}
	f.Close()
	return syncDir(s.cfg.RootDir)
}

// load maps the files and recovers (Java: DefaultMessageStore#load, #recover, and the
// dispatch catch-up at the start of #start).
func (s *Store) load() error {
	_, err := os.Stat(s.abortPath())
	lastExitOK := os.IsNotExist(err)
	if lastExitOK {
		s.log.Info().Msg("last shutdown normally")
	} else {
		s.log.Warn().Msg("last shutdown abnormally: abort file present")
	}
	s.cl = newMappedQueue(s.cfg.CommitLogDir, int(s.clSize), s.cfg.fallocate)
	s.fdWrite = s.cfg.commitLogFD()
	s.cl.writeFD = s.fdWrite
	s.wb = newWriteback(s.cfg, s.fdWrite)
	s.cl.preAllocate = !s.cfg.DisableFilePreAllocation
	if s.cfg.FlushDiskType == SyncFlush && !s.cfg.DisableZeroFill {
		// Only where the warmer does not convert the extents ahead of the writes itself
		// (zerofill.go, "When"): s.warm is set before the warmer, the only caller of
		// prepareSpare, starts.
		s.cl.zeroFill = func() bool { return !s.warm.converting() }
	}
	s.cl.log = func(err error) { s.log.Warn().Err(err).Msg("pre-create next commitlog file") }
	if err := s.cl.load(); err != nil {
		return fmt.Errorf("store: load commitlog: %w", err)
	}
	s.logRemovedEmpty(s.cl)
	if err := s.loadConsumeQueues(); err != nil {
		return err
	}
	if s.ckpt, err = openCheckpoint(filepath.Join(s.cfg.RootDir, "checkpoint")); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	indexRebuildFrom := int64(-1)
	if s.cfg.MessageIndexEnable {
		s.index = &indexService{
			dir: filepath.Join(s.cfg.RootDir, "index"), slotNum: s.cfg.MaxHashSlotNum, indexNum: s.cfg.MaxIndexNum,
			prealloc: s.cfg.fallocate, now: s.cfg.now, ckpt: s.ckpt, log: s.log, wg: &s.wg,
		}
		if indexRebuildFrom, err = s.index.load(lastExitOK); err != nil {
			return fmt.Errorf("store: load index: %w", err)
		}
	}
	return s.recover(lastExitOK, indexRebuildFrom)
}

// loadConsumeQueues maps consumequeue/<topic>/<queueId>/ (Java: loadConsumeQueue).
func (s *Store) loadConsumeQueues() error {
	topics, err := os.ReadDir(s.cqRoot())
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	for _, t := range topics {
		if !t.IsDir() {
			continue
		}
		queues, err := os.ReadDir(filepath.Join(s.cqRoot(), t.Name()))
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		for _, qd := range queues {
			id, err := strconv.ParseInt(qd.Name(), 10, 32)
			if err != nil || !qd.IsDir() {
				continue
			}
			cq := newConsumeQueue(s.cfg.RootDir, t.Name(), int32(id), int(s.cfg.MappedFileSizeConsumeQueue), s.cfg.fallocate)
			if err := cq.q.load(); err != nil {
				return fmt.Errorf("store: load consume queue %s/%d: %w", t.Name(), id, err)
			}
			s.logRemovedEmpty(cq.q)
			s.cqs[cqKey{t.Name(), int32(id)}] = cq
		}
	}
	return nil
}

func (s *Store) startServices() {
	s.warm = newWarmer(s.cl, s.stop)
	s.warm.disabled = s.cfg.DisablePageWarming
	s.warm.forRead = s.fdWrite
	s.warm.convert.Store(s.fdWrite)
	s.wg.Add(6)
	go s.warm.run(&s.wg) // also pre-creates the next CommitLog file
	go s.dispatchLoop()
	go s.flushLoop()
	go s.flushConsumeQueueLoop()
	go s.cleanLoop()
	go s.diskCheckLoop()
}

// Close stops the services, lets dispatch finish, flushes the CommitLog, ConsumeQueues,
// index and checkpoint, removes the abort file when everything was dispatched, and
// releases the lock (Java: DefaultMessageStore#shutdown). Mapped files that a reader
// still holds stay mapped until it releases them.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	// Appends check closed under putMu: once this barrier passes, none is in flight
	// and none will start, so no write can hit an unmapped file.
	s.putMu.Lock()
	//lint:ignore SA2001 an intentional barrier (see above)
	s.putMu.Unlock()
	close(s.stop)
	s.wg.Wait()
	var errs []error
	if err := s.cl.flushAll(); err != nil {
		errs = append(errs, err)
	}
	if ts := s.cl.flushedTs.Load(); ts > 0 {
		s.ckpt.physicTs.Store(ts)
	}
	if err := s.cl.dropSpare(); err != nil {
		errs = append(errs, err)
	}
	if err := s.flushConsumeQueues(0); err != nil {
		errs = append(errs, err)
	} else {
		s.ckpt.logicsDurable.Store(s.ckpt.logicsTs.Load())
	}
	if s.index != nil {
		if err := s.index.flushLast(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := s.ckpt.close(); err != nil {
		errs = append(errs, err)
	}
	clean := len(errs) == 0 && s.DispatchBehindBytes() == 0 && !s.dispatchErr.Load()
	if clean {
		if err := os.Remove(s.abortPath()); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		} else {
			_ = syncDir(s.cfg.RootDir)
		}
	} else {
		s.log.Warn().Msg("store may be inconsistent: keeping the abort file for recovery")
	}
	s.releaseAll()
	return errors.Join(errs...)
}

// releaseAll unmaps every file (readers keep theirs) and unlocks the directory.
func (s *Store) releaseAll() {
	if s.cl != nil {
		s.cl.shutdownAll()
	}
	s.cqMu.Lock()
	for _, cq := range s.cqs {
		cq.q.shutdownAll()
	}
	s.cqMu.Unlock()
	if s.index != nil {
		s.index.close()
	}
	if s.lockFile != nil {
		_ = syscall.Flock(int(s.lockFile.Fd()), syscall.LOCK_UN)
		s.lockFile.Close()
		s.lockFile = nil
	}
}

// Topics returns the topics that have a ConsumeQueue, sorted.
func (s *Store) Topics() []string {
	s.cqMu.RLock()
	set := make(map[string]bool)
	for k := range s.cqs {
		set[k.topic] = true
	}
	s.cqMu.RUnlock()
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func (s *Store) nowMs() int64 { return s.cfg.now().UnixMilli() }

func (s *Store) logRemovedEmpty(q *mappedQueue) {
	if q.removedEmpty != "" {
		s.log.Warn().Str("file", q.removedEmpty).Msg("removed an empty newest file (its creation was interrupted by a crash; it held nothing)")
	}
}
