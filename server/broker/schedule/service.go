package schedule

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/store"
)

// Topic is the topic delayed messages are parked in, in queue level-1 (Java:
// TopicValidator.RMQ_SYS_SCHEDULE_TOPIC).
const Topic = "SCHEDULE_TOPIC_XXXX"

// Schedule service timing (Java: ScheduleMessageService's constants and
// flushDelayOffsetInterval).
const (
	// schedulePollInterval is how soon an empty level, or one whose delivery failed,
	// looks again (Java: DELAY_FOR_A_WHILE, 100 ms).
	schedulePollInterval = 100 * time.Millisecond
	// scheduleMaxSleep caps the sleep until a level's head is due, so a clock step or a
	// changed table is noticed. Java polls every 100 ms instead; sleeping until the due
	// time delivers within a few ms of it.
	scheduleMaxSleep = time.Second
	// scheduleBatch is how many ConsumeQueue units one round reads.
	scheduleBatch = 32
	// flushDelayOffsetInterval is how often progress is persisted (Java default 10 s).
	flushDelayOffsetInterval = 10 * time.Second
	// scheduleFlushTimeout bounds the wait for delivered messages to be flushed before
	// their progress is persisted.
	scheduleFlushTimeout = 5 * time.Second
	// scheduleDispatchWait bounds the wait at start for the store's dispatch to catch up,
	// so the ConsumeQueues the service reads are complete.
	scheduleDispatchWait = 10 * time.Second
)

// ErrFlush is returned by Service.Shutdown (and logged by the periodic persist) when the
// messages delivered since the last persist are not flushed within scheduleFlushTimeout:
// the progress is kept in memory and persisted later, never ahead of the CommitLog on
// disk.
var ErrFlush = errors.New("broker: delivered delayed messages not flushed")

// Config is what a Service needs from the broker: the store it reads the parked messages
// from and delivers into, the delay table and the progress file. It never sees the
// broker itself.
type Config struct {
	Store  *store.Store
	Delays []time.Duration // level 1 first (ParseLevels)
	Path   string          // <root>/config/delayOffset.json (FileName)
	Log    zerolog.Logger
	// OnPut is called after each delivered message is stored, with its delay level and
	// real topic (broker statistics). Nil means nothing to call.
	OnPut func(level int, topic string, res store.PutResult)
	// PersistEvery overrides flushDelayOffsetInterval (tests).
	PersistEvery time.Duration
}

// Service is Java's ScheduleMessageService: one goroutine per delay level
// delivers the messages parked in SCHEDULE_TOPIC_XXXX queue level-1, in order, once
// their deliver time (the ConsumeQueue tag code) has passed, and records per level the
// next ConsumeQueue offset to deliver; a further goroutine persists that table.
//
// Exactly once across restarts, in two parts:
//   - Nothing is lost: persist takes a snapshot of the table, waits until every message
//     delivered before the snapshot is flushed (Store.WaitFlushed), then writes the file.
//     The persisted offset of a level therefore never runs ahead of the deliveries on
//     disk, even after a crash under ASYNC_FLUSH.
//   - Nothing is delivered twice: a clean shutdown persists the exact table after the
//     level goroutines stopped. After a crash the file may lag the deliveries made since
//     the last persist (at most flushDelayOffsetInterval plus the flush wait), or be
//     missing; at start each level finds, from the copies in the real queues, how far
//     delivery really got, and resumes there (recover.go). Java re-delivers.
//
// Lock order: mu is a leaf, never held while calling the store or writing the file.
type Service struct {
	cfg   Config
	st    *store.Store
	log   zerolog.Logger
	file  compat.ConfigFile
	since time.Time // the file's last write before this start (recover.go)

	mu      sync.Mutex
	offsets map[int]int64 // level → next ConsumeQueue offset (Java: offsetTable)
	lastEnd int64         // CommitLog end of the newest delivered message
	dirty   bool

	stop    chan struct{}
	wg      sync.WaitGroup
	running bool
}

// New returns a stopped service with an empty table; Load reads the file, Start delivers.
func New(cfg Config) *Service {
	if cfg.PersistEvery <= 0 {
		cfg.PersistEvery = flushDelayOffsetInterval
	}
	if cfg.OnPut == nil {
		cfg.OnPut = func(int, string, store.PutResult) {}
	}
	return &Service{cfg: cfg, st: cfg.Store, log: cfg.Log, file: compat.ConfigFile{Path: cfg.Path},
		offsets: map[int]int64{}, stop: make(chan struct{})}
}

// Load reads delayOffset.json, falling back to its .bak (Java: ConfigManager#load). It
// replaces the in-memory table.
func (s *Service) Load() error {
	var table map[int]int64
	err := s.file.Load(func(std []byte) error {
		t, err := decodeDelayOffsets(std)
		table = t
		return err
	})
	if err != nil {
		return err
	}
	if table == nil {
		table = map[int]int64{}
	}
	s.mu.Lock()
	s.offsets = table
	s.mu.Unlock()
	s.since = lastPersistTime(s.cfg.Path)
	return nil
}

// Start starts one delivery goroutine per level and the persister (Java: start).
func (s *Service) Start() {
	s.running = true
	for level := 1; level <= len(s.cfg.Delays); level++ {
		s.wg.Add(1)
		go s.runLevel(level)
	}
	s.wg.Add(1)
	go s.persistLoop()
}

// Shutdown stops delivery and persists the final table (Java: shutdown). The store must
// still be open. A service never started persists nothing.
func (s *Service) Shutdown() error {
	if !s.running {
		return nil
	}
	s.running = false
	close(s.stop)
	s.wg.Wait()
	s.mu.Lock()
	s.dirty = true // Java always writes the file at shutdown
	s.mu.Unlock()
	return s.persist()
}

// Running reports whether Start was called and Shutdown not yet (a slave's service is
// loaded but never started). Start and Shutdown are called by one goroutine.
func (s *Service) Running() bool { return s.running }

func (s *Service) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// sleep waits d or until shutdown; it reports whether the service is still running.
func (s *Service) sleep(t *time.Timer, d time.Duration) bool {
	if d <= 0 {
		return !s.stopped()
	}
	t.Reset(d)
	select {
	case <-s.stop:
		if !t.Stop() {
			<-t.C
		}
		return false
	case <-t.C:
		return true
	}
}

func (s *Service) persistLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.cfg.PersistEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if err := s.persist(); err != nil {
				s.log.Warn().Err(err).Msg("persist delay offsets")
			}
		}
	}
}

// persist writes the table if it changed, once the deliveries it covers are flushed.
func (s *Service) persist() error {
	s.mu.Lock()
	if !s.dirty {
		s.mu.Unlock()
		return nil
	}
	snap := appendDelayOffsets(nil, s.offsets)
	end := s.lastEnd
	s.dirty = false
	s.mu.Unlock()
	if end > 0 {
		if err := s.st.WaitFlushed(end, scheduleFlushTimeout); err != nil {
			s.markDirty()
			return fmt.Errorf("%w: %w", ErrFlush, err)
		}
	}
	if err := s.file.Persist(snap); err != nil {
		s.markDirty()
		return err
	}
	return nil
}

func (s *Service) markDirty() {
	s.mu.Lock()
	s.dirty = true
	s.mu.Unlock()
}

// offset returns a level's next offset and whether the table has the level.
func (s *Service) offset(level int) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	off, ok := s.offsets[level]
	return off, ok
}

// advance records that a level's messages before next are done; end is the CommitLog
// end of the message just delivered, 0 when nothing was written (Java: updateOffset).
func (s *Service) advance(level int, next, end int64) {
	s.mu.Lock()
	s.offsets[level] = next
	if end > s.lastEnd {
		s.lastEnd = end
	}
	s.dirty = true
	s.mu.Unlock()
}

// Table returns a copy of the in-memory table: delay level → next SCHEDULE_TOPIC_XXXX
// queue offset to deliver.
func (s *Service) Table() map[int]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[int]int64, len(s.offsets))
	for k, v := range s.offsets {
		out[k] = v
	}
	return out
}

// AppendJSON appends GET_ALL_DELAY_OFFSET's body: the in-memory table, compact (Java:
// ScheduleMessageService#encode()).
func (s *Service) AppendJSON(dst []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return appendDelayOffsets(dst, s.offsets)
}

// delay returns the delay of level (1-based).
func (s *Service) delay(level int) time.Duration { return s.cfg.Delays[level-1] }

// deliverAt is the deliver time of a unit with tag code tagsCode, in ms: the tag code,
// unless it lies further ahead than the level's delay, which only a clock step back or a
// shortened table explains, and then now (Java: correctDeliverTimestamp).
func (s *Service) deliverAt(level int, tagsCode, now int64) int64 {
	if tagsCode > now+s.delay(level).Milliseconds() {
		return now
	}
	return tagsCode
}

// waitDispatch waits until the store has dispatched every CommitLog record to the
// ConsumeQueues, so the schedule queues and the real queues read at start are complete.
func (s *Service) waitDispatch() bool {
	deadline := time.Now().Add(scheduleDispatchWait)
	t := time.NewTimer(0)
	<-t.C
	for s.st.DispatchBehindBytes() > 0 {
		if time.Now().After(deadline) {
			s.log.Warn().Int64("behind", s.st.DispatchBehindBytes()).Msg("schedule: dispatch still behind, starting anyway")
			return true
		}
		if !s.sleep(t, 10*time.Millisecond) {
			return false
		}
	}
	return true
}

// LoadFile reads delayOffset.json (or its .bak) for a slave, whose file the slave
// synchronisation overwrites with the master's table, and re-encodes it compactly; a
// missing file is the empty table.
func LoadFile(path string) ([]byte, error) {
	var table map[int]int64
	data, _, err := compat.LoadConfigFile(path, func(b []byte) error {
		std, err := compat.NormalizeJSON(b)
		if err != nil {
			return err
		}
		table, err = decodeDelayOffsets(std)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("broker: load %s: %w", path, err)
	}
	if data == nil {
		table = map[int]int64{}
	}
	return appendDelayOffsets(nil, table), nil
}
