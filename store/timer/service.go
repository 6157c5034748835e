package timer

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/store"
)

// Topic is where timer messages are parked, queue 0 (Java 5.x: TimerMessageStore.TIMER_TOPIC).
const Topic = "rmq_sys_wheel_timer"

// Property names of the 5.x timer messages (Java 5.x: MessageConst).
const (
	PropertyDeliverMs = "TIMER_DELIVER_MS"
	PropertyDelaySec  = "TIMER_DELAY_SEC"
	PropertyDelayMs   = "TIMER_DELAY_MS"
	PropertyOutMs     = "TIMER_OUT_MS"
	// PropertyDelUniqKey makes a timer message a delete marker: "<real topic>+<UNIQ_KEY>"
	// cancels the pending timer message with that topic and UNIQ_KEY in the marker's slot
	// (5.x: MessageConst.PROPERTY_TIMER_DEL_UNIQKEY, TimerMessageStore.buildDeleteKey).
	PropertyDelUniqKey = "TIMER_DEL_UNIQKEY"
)

// DeleteKey is the TIMER_DEL_UNIQKEY value that cancels the timer message with realTopic
// and uniqKey (5.x: TimerMessageStore#buildDeleteKey).
func DeleteKey(realTopic, uniqKey string) string { return realTopic + "+" + uniqKey }

// Defaults (Java 5.x MessageStoreConfig).
const (
	DefaultPrecisionMs = 1000
	DefaultMaxDelaySec = 3 * 24 * 3600
	// DefaultSegmentSize is a timerlog segment: 1 Mi entries.
	DefaultSegmentSize = entrySize << 20
	// FlushInterval is how often the files are flushed and the checkpoint written
	// (Java 5.x: timerFlushIntervalMs).
	FlushInterval = time.Second
	// idlePoll is how often an idle service looks for new timer messages.
	idlePoll = 5 * time.Millisecond
	// retryWait is the pause after a delivery the store refused for a reason that may pass.
	retryWait = 100 * time.Millisecond
	// enqueueBatch bounds the entries one loop round enqueues before looking at due slots.
	enqueueBatch = 2048
)

// Config is what a Service needs: the store it reads parked messages from and delivers
// into, its directory and the wheel's shape.
type Config struct {
	Store       *store.Store
	Dir         string // <storePathRootDir>/timer
	PrecisionMs int64  // slot width: 100, 200, 500 or 1000 (Precision)
	MaxDelaySec int64  // the wheel spans twice this
	SegmentSize int64  // timerlog segment bytes; 0 = DefaultSegmentSize
	Log         zerolog.Logger
	// OnDeliver is called after each delivered message is stored (broker statistics).
	OnDeliver func(topic string, queueID int32, res store.PutResult)
	// Now is the clock (tests); nil = time.Now.
	Now func() time.Time
}

// Precision rounds a configured precision down to 100, 200, 500 or 1000 ms, as Java 5.x's
// MessageStoreConfig#setTimerPrecisionMs does.
func Precision(ms int64) int64 {
	c := []int64{100, 200, 500, 1000}
	for i := 1; i < len(c); i++ {
		if ms < c[i] {
			return c[i-1]
		}
	}
	return c[len(c)-1]
}

// SlotTime is the slot a message due at deliverMs is delivered in: deliverMs rounded up
// to the precision, so it is never delivered before its time. (Java 5.x stores the time
// rounded down and reads a slot once the clock has passed the slot's end, so it delivers
// up to one precision late; this wheel delivers each entry at its own time.)
func SlotTime(deliverMs, precision int64) int64 {
	if deliverMs <= 0 {
		return 0
	}
	return (deliverMs + precision - 1) / precision * precision
}

// Service is the timing wheel (Java 5.x: TimerMessageStore). One goroutine enqueues the
// parked messages into the wheel and delivers the due ones; see doc.go.
type Service struct {
	cfg  Config
	st   *store.Store
	log  zerolog.Logger
	p    int64
	span int64

	// owned by the loop goroutine (or by Start before it runs)
	tl         *timerLog
	wh         *wheel
	cursor     int64 // next slot time to deliver
	enqueueOff int64 // next rmq_sys_wheel_timer ConsumeQueue offset
	unpark     message.Unparker
	msg        message.Message
	due        []dueEntry          // the slot being delivered, in due order (deliverSlot)
	slotT      int64               // its slot time
	slotLast   int64               // its newest entry when due was built
	delKeys    map[string]struct{} // the slot's delete markers' keys (deliverSlot)
	markers    []int64             // the slot's delete markers, done when it closes
	lastFlush  time.Time

	pending   atomic.Int64
	delivered atomic.Int64
	cancelled atomic.Int64
	enqueued  atomic.Int64
	cursorPub atomic.Int64
	enqPub    atomic.Int64
	lateMax   atomic.Int64
	tpsMu     sync.Mutex
	tpsAt     time.Time
	tpsEnq    int64
	tpsDeq    int64
	enqTPS    float64
	deqTPS    float64

	stop    chan struct{}
	done    chan struct{}
	running atomic.Bool // Start done, Shutdown not yet (Stats reads it from any goroutine)
}

// ErrClosed is returned by Start on a service already shut down.
var ErrClosed = errors.New("timer: service shut down")

// New returns a stopped service; Start opens the files, rebuilds the wheel and delivers.
func New(cfg Config) *Service {
	if cfg.PrecisionMs <= 0 {
		cfg.PrecisionMs = DefaultPrecisionMs
	}
	cfg.PrecisionMs = Precision(cfg.PrecisionMs)
	if cfg.MaxDelaySec <= 0 {
		cfg.MaxDelaySec = DefaultMaxDelaySec
	}
	if cfg.SegmentSize <= 0 {
		cfg.SegmentSize = DefaultSegmentSize
	}
	if cfg.OnDeliver == nil {
		cfg.OnDeliver = func(string, int32, store.PutResult) {}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	p := cfg.PrecisionMs
	slots := 2*cfg.MaxDelaySec*1000/p + 2
	return &Service{cfg: cfg, st: cfg.Store, log: cfg.Log, p: p, span: slots * p,
		stop: make(chan struct{}), done: make(chan struct{})}
}

func (s *Service) nowMs() int64 { return s.cfg.Now().UnixMilli() }

// Start opens the files, rebuilds the wheel from the log (settling a delivery a crash
// interrupted), and starts the loop.
func (s *Service) Start() error {
	if s.running.Load() {
		return nil
	}
	select {
	case <-s.stop:
		return ErrClosed
	default:
	}
	if err := os.MkdirAll(s.cfg.Dir, 0o755); err != nil {
		return err
	}
	ck, err := loadCheckpoint(s.ckptPath())
	if err != nil {
		s.log.Warn().Err(err).Msg("timer: checkpoint unreadable, rebuilding from the log and the ConsumeQueue")
		ck = checkpoint{}
	}
	tl, err := openLog(filepath.Join(s.cfg.Dir, "timerlog"), s.cfg.SegmentSize)
	if err != nil {
		return err
	}
	wh, err := openWheel(filepath.Join(s.cfg.Dir, "timerwheel"), s.span/s.p, s.p)
	if err != nil {
		tl.close()
		return err
	}
	s.tl, s.wh = tl, wh
	s.rebuild(ck)
	s.running.Store(true)
	go s.run()
	return nil
}

func (s *Service) ckptPath() string { return filepath.Join(s.cfg.Dir, "checkpoint") }

// Shutdown stops the loop, flushes the files and writes the checkpoint.
func (s *Service) Shutdown() error {
	if !s.running.Load() {
		select {
		case <-s.stop:
		default:
			close(s.stop)
		}
		return nil
	}
	s.running.Store(false)
	close(s.stop)
	<-s.done
	err := s.persist()
	s.tl.close()
	s.wh.close()
	return err
}

func (s *Service) persist() error {
	if err := s.tl.flush(); err != nil {
		return fmt.Errorf("timer: flush log: %w", err)
	}
	ck := checkpoint{EnqueueOffset: s.enqueueOff, CursorMs: s.cursor, PrecisionMs: s.p}
	if err := ck.save(s.ckptPath()); err != nil {
		return fmt.Errorf("timer: write checkpoint: %w", err)
	}
	return nil
}

func (s *Service) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// run is the loop: enqueue what the ConsumeQueue gained, deliver the due slots in order,
// keep the files, sleep until there is work.
func (s *Service) run() {
	defer close(s.done)
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for !s.stopped() {
		n := s.enqueue(enqueueBatch)
		wait := time.Duration(0)
		for slots := 0; slots < 64; slots++ {
			// Slot t holds the entries due in (t-p, t]: it opens at t-p, and each entry
			// is delivered at its own time, in due order.
			now := s.nowMs()
			if s.cursor-s.p > now {
				if n == 0 {
					wait = min(time.Duration(s.cursor-s.p-now)*time.Millisecond, idlePoll)
				}
				break
			}
			next, ok := s.deliverSlot(s.cursor, now)
			if !ok {
				wait = retryWait
				break
			}
			if next == 0 && s.cursor > s.nowMs() {
				// Everything enqueued so far is delivered, but the slot's window is not
				// over: a message due in it may still come. It stays open.
				next = s.cursor
			}
			if next > 0 {
				if n == 0 {
					wait = min(time.Duration(next-s.nowMs())*time.Millisecond, idlePoll)
					wait = max(wait, time.Millisecond)
				}
				break
			}
			s.closeSlot()
			s.cursor += s.p
			s.cursorPub.Store(s.cursor)
		}
		s.upkeep()
		if wait > 0 {
			t.Reset(wait)
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}
}

// upkeep flushes, checkpoints and deletes finished segments once per FlushInterval.
func (s *Service) upkeep() {
	now := time.Now()
	s.pending.Store(s.tl.pendingCount())
	if now.Sub(s.lastFlush) < FlushInterval {
		return
	}
	s.lastFlush = now
	if err := s.persist(); err != nil {
		s.log.Warn().Err(err).Msg("timer: persist")
	}
	if n := s.tl.deleteOld(s.st.MinPhyOffset()); n > 0 {
		s.log.Info().Int("segments", n).Msg("timer: deleted delivered or expired timerlog segments")
		s.pending.Store(s.tl.pendingCount())
	}
	s.sampleTPS(now)
}

// enqueue appends up to max new parked messages to the log and links them into the
// wheel; it returns how many it took.
func (s *Service) enqueue(max int) int {
	hi := s.st.MaxOffsetInQueue(Topic, 0)
	if s.enqueueOff > hi {
		// The ConsumeQueue was destroyed (CLEAN_EXPIRED_CONSUMEQUEUE once every parked
		// record expired) and starts again lower: follow it.
		s.log.Warn().Int64("from", s.enqueueOff).Int64("to", s.st.MinOffsetInQueue(Topic, 0)).Msg("timer: the parked messages' ConsumeQueue restarted lower")
		s.enqueueOff = s.st.MinOffsetInQueue(Topic, 0)
	}
	if s.enqueueOff >= hi {
		s.enqPub.Store(s.enqueueOff)
		return 0
	}
	if lo := s.st.MinOffsetInQueue(Topic, 0); s.enqueueOff < lo {
		s.log.Warn().Int64("from", s.enqueueOff).Int64("to", lo).Msg("timer: parked messages expired before enqueue, skipped")
		s.enqueueOff = lo
	}
	n := 0
	for n < max && s.enqueueOff < hi && !s.stopped() {
		units := s.st.ConsumeQueueUnits(Topic, 0, s.enqueueOff, min(256, max-n))
		if len(units) == 0 {
			break
		}
		for _, u := range units {
			s.enqueueOne(u, s.enqueueOff)
			s.enqueueOff++
			n++
		}
	}
	s.enqPub.Store(s.enqueueOff)
	s.enqueued.Add(int64(n))
	return n
}

func (s *Service) enqueueOne(u store.CQUnit, cqOff int64) {
	if u.Size <= 0 || u.Size == 1<<31-1 {
		return // a filler unit
	}
	deliverMs := s.nowMs()
	del := false
	if rec, release, err := s.st.MessageByOffset(u.PhyOffset); err == nil {
		props := recordProperties(rec)
		if v, ok := message.LookupProperty(props, PropertyOutMs); ok {
			if ms, ok := parseMs(v); ok {
				deliverMs = ms
			}
		}
		_, del = message.LookupProperty(props, PropertyDelUniqKey)
		release()
	} else {
		s.log.Warn().Err(err).Int64("cqOffset", cqOff).Msg("timer: parked message unreadable at enqueue; tried at once")
	}
	t := SlotTime(deliverMs, s.p)
	overdue := t < s.cursor // its slot was delivered already: deliver it now
	if overdue {
		t = s.cursor
	}
	if max := s.cursor + s.span - 2*s.p; t > max {
		s.log.Warn().Int64("deliverMs", deliverMs).Msg("timer: deliver time beyond the wheel (maximum delay lowered?), delivered at the wheel's end")
		t = max
		deliverMs = t
	}
	pos := s.tl.end
	prev := s.wh.link(t, pos)
	e := entry{prevPos: prev, deliverMs: deliverMs, phyOffset: u.PhyOffset, cqOffset: cqOff, size: u.Size, state: statePending, del: del}
	if _, err := s.tl.append(e); err != nil {
		s.log.Error().Err(err).Msg("timer: append to timerlog failed")
		return
	}
	if overdue && !del {
		// Linked into the cursor's slot too: if this delivery fails, the slot retries it.
		s.deliver(pos, e)
	}
}

func recordProperties(rec []byte) []byte {
	r, err := message.DecodeRecord(rec)
	if err != nil {
		return nil
	}
	return r.Properties
}

func parseMs(b []byte) (int64, bool) {
	var v int64
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// deliverSlot delivers the entries of slot t that are due at now, in due order (ties in
// enqueue order). It returns the due time of the next entry not yet due (0 when the slot
// is done), and false when a delivery must be tried again later. The slot's due list is
// kept between calls while no entry joins the slot.
func (s *Service) deliverSlot(t, now int64) (int64, bool) {
	last, _ := s.wh.slot(t)
	if t != s.slotT || last != s.slotLast {
		s.slotT, s.slotLast = t, last
		s.due = s.due[:0]
		clear(s.delKeys)
		s.markers = s.markers[:0]
		first := s.tl.firstPos()
		for pos := last; pos > 0 && pos-1 >= first; {
			e, ok := s.tl.read(pos - 1)
			if !ok || SlotTime(e.deliverMs, s.p) > t {
				break
			}
			switch {
			case e.del:
				// A delete marker: its key cancels the slot's entries (5.x reads the
				// markers of a slot before its messages), whichever was sent first.
				s.addDelKey(e)
				s.markers = append(s.markers, pos-1)
			case e.state != stateDone:
				s.due = append(s.due, dueEntry{pos: pos - 1, at: e.deliverMs})
			}
			pos = e.prevPos
		}
		slices.SortFunc(s.due, func(a, b dueEntry) int {
			if a.at != b.at {
				return cmp.Compare(a.at, b.at)
			}
			return cmp.Compare(a.pos, b.pos)
		})
	}
	for len(s.due) > 0 {
		d := s.due[0]
		if d.at > now {
			return d.at, true
		}
		if s.stopped() {
			return 0, false
		}
		e, ok := s.tl.read(d.pos)
		if ok && e.state != stateDone && !s.deliver(d.pos, e) {
			return 0, false
		}
		s.due = s.due[1:]
		now = s.nowMs()
	}
	return 0, true
}

// addDelKey reads the key of delete marker e into the slot's set.
func (s *Service) addDelKey(e entry) {
	rec, release, err := s.st.MessageByOffset(e.phyOffset)
	if err != nil {
		s.log.Warn().Err(err).Int64("phyOffset", e.phyOffset).Msg("timer: delete marker unreadable, ignored")
		return
	}
	defer release()
	if v, ok := message.LookupProperty(recordProperties(rec), PropertyDelUniqKey); ok {
		if s.delKeys == nil {
			s.delKeys = map[string]struct{}{}
		}
		s.delKeys[string(v)] = struct{}{}
	}
}

// closeSlot ends the cursor's slot before the cursor moves on: its delete markers are
// done (kept pending until now, so that a restart before the slot's end still cancels).
func (s *Service) closeSlot() {
	for _, pos := range s.markers {
		if e, ok := s.tl.read(pos); ok && e.state != stateDone {
			s.tl.setState(pos, stateDone, 0)
		}
	}
	s.markers = s.markers[:0]
	clear(s.delKeys)
	s.slotT, s.slotLast = 0, 0
}

// dueEntry is one entry of the slot being delivered.
type dueEntry struct {
	pos, at int64
}

// deliver writes the parked message of entry e (at pos) to its real topic and queue. It
// reports false when the store refused for a reason that may pass.
func (s *Service) deliver(pos int64, e entry) bool {
	rec, release, err := s.st.MessageByOffset(e.phyOffset)
	if err != nil {
		if e.phyOffset < s.st.MinPhyOffset() {
			s.log.Warn().Int64("phyOffset", e.phyOffset).Msg("timer: parked message expired with its CommitLog file, dropped")
		} else {
			s.log.Error().Err(err).Int64("phyOffset", e.phyOffset).Msg("timer: parked message not found, dropped")
		}
		s.tl.setState(pos, stateDone, 0)
		return true
	}
	ok := s.build(rec)
	if !ok {
		release()
		s.tl.setState(pos, stateDone, 0)
		return true
	}
	if _, del := message.LookupProperty(s.msg.Properties, PropertyDelUniqKey); del {
		// A delete marker is never delivered (5.x: doPut's PUT_NO_RETRY); normally it is
		// not in a due list at all.
		release()
		s.tl.setState(pos, stateDone, 0)
		return true
	}
	if len(s.delKeys) > 0 {
		u, _ := message.LookupProperty(s.msg.Properties, message.PropertyUniqClientMessageIDKeyIdx)
		uniq := string(u)
		if _, gone := s.delKeys[DeleteKey(s.msg.Topic, uniq)]; gone && uniq != "" {
			release()
			s.tl.setState(pos, stateDone, 0)
			s.cancelled.Add(1)
			s.log.Debug().Str("topic", s.msg.Topic).Str("uniqKey", uniq).Msg("timer: cancelled by a TIMER_DEL_UNIQKEY marker")
			return true
		}
	}
	s.tl.setState(pos, stateDelivering, s.st.MaxPhyOffset())
	res, err := s.st.PutMessage(&s.msg)
	release()
	if err != nil {
		if res.Status == store.PutMessageIllegal || res.Status == store.PutPropertiesSizeExceeded || errors.Is(err, store.ErrMessageIllegal) {
			s.log.Error().Err(err).Str("topic", s.msg.Topic).Msg("timer: message refused by the store for good, dropped")
			s.tl.setState(pos, stateDone, 0)
			return true
		}
		s.log.Warn().Err(err).Str("topic", s.msg.Topic).Msg("timer: delivery failed, will retry")
		s.tl.setState(pos, statePending, 0)
		return false
	}
	s.tl.setState(pos, stateDone, 0)
	s.delivered.Add(1)
	if late := s.nowMs() - e.deliverMs; late > s.lateMax.Load() {
		s.lateMax.Store(late)
	}
	s.cfg.OnDeliver(s.msg.Topic, s.msg.QueueID, res)
	return true
}

// build fills s.msg with the message to deliver from the parked record (Java 5.x:
// TimerMessageStore#convertMessage): real topic and queue from REAL_TOPIC/REAL_QID, which
// are removed; everything else as parked. It reports false, after logging, for a record
// that cannot be delivered.
func (s *Service) build(rec []byte) bool {
	topic, qs, err := s.unpark.Unpark(rec, true, &s.msg)
	switch {
	case err == nil:
		return true
	case errors.Is(err, message.ErrNoRealQueue):
		s.log.Error().Str("realTopic", topic).Str("realQid", qs).Msg("timer: parked message without a real topic and queue, dropped")
	case errors.Is(err, message.ErrRealIsHalf):
		s.log.Error().Msg("timer: real topic of a timer message is the transaction half topic, dropped")
	default:
		s.log.Error().Err(err).Msg("timer: parked record undecodable, dropped")
	}
	return false
}

func (s *Service) sampleTPS(now time.Time) {
	s.tpsMu.Lock()
	defer s.tpsMu.Unlock()
	enq, deq := s.enqueued.Load(), s.delivered.Load()
	if !s.tpsAt.IsZero() {
		d := now.Sub(s.tpsAt).Seconds()
		if d > 0 {
			s.enqTPS = float64(enq-s.tpsEnq) / d
			s.deqTPS = float64(deq-s.tpsDeq) / d
		}
	}
	s.tpsAt, s.tpsEnq, s.tpsDeq = now, enq, deq
}

// Stats is the service's state for GET_BROKER_RUNTIME_INFO and metrics.
type Stats struct {
	Pending         int64   // entries enqueued, not yet delivered (5.x: timerCongestNum)
	EnqueueBehind   int64   // parked messages not yet enqueued (5.x: timerOffsetBehind)
	DequeueBehindMs int64   // how far the delivery cursor lags the clock (5.x: timerReadBehind, in s)
	Delivered       int64   // delivered since start
	Cancelled       int64   // cancelled by a delete marker (TIMER_DEL_UNIQKEY) since start
	LateMaxMs       int64   // the largest delivery lateness seen since start
	EnqueueTPS      float64 // 5.x: timerEnqueueTps
	DequeueTPS      float64 // 5.x: timerDequeueTps
}

// Stats returns the current figures; safe from any goroutine.
func (s *Service) Stats() Stats {
	st := Stats{Pending: s.pending.Load(), Delivered: s.delivered.Load(), Cancelled: s.cancelled.Load(), LateMaxMs: s.lateMax.Load()}
	if s.running.Load() {
		st.EnqueueBehind = max(0, s.st.MaxOffsetInQueue(Topic, 0)-s.enqPub.Load())
		if c := s.cursorPub.Load(); c > 0 {
			st.DequeueBehindMs = max(0, s.nowMs()-c)
		}
	}
	st.Pending += st.EnqueueBehind
	s.tpsMu.Lock()
	st.EnqueueTPS, st.DequeueTPS = s.enqTPS, s.deqTPS
	s.tpsMu.Unlock()
	return st
}
