package schedule

import (
	"errors"
	"math"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/store"
)

// levelWorker delivers one delay level (Java: DeliverDelayedMessageTimerTask). Its
// scratch space is reused for every message, so steady delivery allocates only the
// properties string it parses.
type levelWorker struct {
	s      *Service
	level  int
	queue  int32 // SCHEDULE_TOPIC_XXXX queue: level-1
	next   int64 // next ConsumeQueue offset to look at
	unpark message.Unparker
	msg    message.Message
}

func (s *Service) newLevelWorker(level int) *levelWorker {
	return &levelWorker{s: s, level: level, queue: int32(level - 1)}
}

// runLevel prepares a level (dispatch caught up, offset corrected, already delivered
// messages skipped) and then delivers it until shutdown.
func (s *Service) runLevel(level int) {
	defer s.wg.Done()
	if !s.waitDispatch() {
		return
	}
	w := s.newLevelWorker(level)
	w.prepare()
	t := time.NewTimer(time.Hour)
	t.Stop()
	for s.sleep(t, w.round()) {
	}
}

// prepare sets next from the table, corrected into the queue's range (Java:
// correctDelayOffset), past the messages a crash left delivered but not recorded.
func (w *levelWorker) prepare() {
	s := w.s
	off, ok := s.offset(w.level)
	w.next = w.clamp(off, ok)
	if skipped := s.skipDelivered(w.level, w.next); skipped > w.next {
		s.log.Warn().Int("level", w.level).Int64("from", w.next).Int64("to", skipped).
			Msg("schedule: skipping delayed messages already delivered before the last stop")
		w.next = skipped
	}
	if w.next != off {
		s.advance(w.level, w.next, 0)
	}
}

// clamp keeps off within the queue's [min, max] (Java: correctDelayOffset at load and
// the reset in executeOnTimeup when the unit is gone).
func (w *levelWorker) clamp(off int64, logIt bool) int64 {
	st := w.s.st
	lo, hi := st.MinOffsetInQueue(Topic, w.queue), st.MaxOffsetInQueue(Topic, w.queue)
	c := off
	if c < lo {
		c = lo
	}
	if c > hi {
		c = hi
	}
	if c != off && logIt {
		w.s.log.Error().Int("level", w.level).Int64("offset", off).Int64("min", lo).Int64("max", hi).
			Int64("corrected", c).Msg("schedule: delay offset out of the queue, corrected")
	}
	return c
}

// round delivers the due messages at the head of the level and returns how long to wait
// before the next round: 0 to go on at once, the time until the head is due, or
// schedulePollInterval when the level is empty or a delivery failed.
func (w *levelWorker) round() time.Duration {
	s := w.s
	w.next = w.clamp(w.next, true)
	units := s.st.ConsumeQueueUnits(Topic, w.queue, w.next, scheduleBatch)
	if len(units) == 0 {
		return schedulePollInterval
	}
	for _, u := range units {
		if s.stopped() {
			return 0
		}
		now := time.Now().UnixMilli()
		if due := s.deliverAt(w.level, u.TagsCode, now); due > now {
			d := time.Duration(due-now) * time.Millisecond
			return min(d, scheduleMaxSleep)
		}
		if !w.deliver(u) {
			return schedulePollInterval
		}
	}
	if len(units) == scheduleBatch {
		return 0
	}
	return schedulePollInterval
}

// deliver writes the message of unit u (at w.next) to its real topic and queue and
// advances. It reports false when the store refused the put for a reason that may pass
// (the same unit is tried again after schedulePollInterval, as Java does).
func (w *levelWorker) deliver(u store.CQUnit) bool {
	s := w.s
	off := w.next
	if u.Size <= 0 || u.Size == math.MaxInt32 {
		// The filler of a queue whose files start past 0.
		w.skip(off)
		return true
	}
	rec, release, err := s.st.MessageByOffset(u.PhyOffset)
	if err != nil {
		// Java: lookMessageByOffset gives null and the unit is passed over.
		s.log.Warn().Err(err).Int("level", w.level).Int64("offset", off).Msg("schedule: delayed message not found, skipped")
		w.skip(off)
		return true
	}
	ok := w.timeup(rec, off)
	if !ok {
		release()
		w.skip(off)
		return true
	}
	res, err := s.st.PutMessage(&w.msg)
	release()
	if err != nil {
		if res.Status == store.PutMessageIllegal || res.Status == store.PutPropertiesSizeExceeded ||
			errors.Is(err, store.ErrMessageIllegal) {
			// Java retries such a message forever and the level never moves again; a
			// message the store will never take is logged and passed over instead.
			s.log.Error().Err(err).Int("level", w.level).Int64("offset", off).Str("topic", w.msg.Topic).
				Msg("schedule: delayed message refused by the store for good, skipped")
			w.skip(off)
			return true
		}
		s.log.Warn().Err(err).Int("level", w.level).Int64("offset", off).Str("topic", w.msg.Topic).
			Msg("schedule: deliver delayed message failed, will retry")
		return false
	}
	w.next = off + 1
	s.advance(w.level, w.next, res.WroteOffset+int64(res.WroteBytes))
	s.cfg.OnPut(w.level, w.msg.Topic, res)
	return true
}

func (w *levelWorker) skip(off int64) {
	w.next = off + 1
	w.s.advance(w.level, w.next, 0)
}

// timeup builds in w.msg the message to deliver from the parked record rec (Java:
// messageTimeup): the real topic and queue from REAL_TOPIC/REAL_QID; body, flag, sysFlag,
// born time and host, store host and reconsumeTimes as stored; the tag code is computed
// again by the store from TAGS on dispatch.
//
// Java quirk kept on purpose: Java builds the properties string from the parsed map and
// only then clears DELAY from the map and sets WAIT=false, so the delivered record's
// properties still hold DELAY, REAL_TOPIC and REAL_QID, and no WAIT unless the parked
// record had it. Consumers see those properties on a Java broker; they see them here.
//
// It reports false, after logging, for records that cannot be delivered: undecodable,
// without REAL_TOPIC or a numeric REAL_QID (Java throws on each and retries the same
// unit forever), or bound for the transaction half topic (Java discards those too).
func (w *levelWorker) timeup(rec []byte, off int64) bool {
	s := w.s
	topic, qs, err := w.unpark.Unpark(rec, false, &w.msg)
	switch {
	case err == nil:
		return true
	case errors.Is(err, message.ErrNoRealQueue):
		s.log.Error().Int("level", w.level).Int64("offset", off).Str("realTopic", topic).Str("realQid", qs).
			Msg("schedule: delayed message without a real topic and queue, skipped")
	case errors.Is(err, message.ErrRealIsHalf):
		s.log.Error().Int("level", w.level).Int64("offset", off).
			Msg("schedule: [BUG] the real topic of a delayed message is the transaction half topic, discarded")
	default:
		s.log.Error().Err(err).Int("level", w.level).Int64("offset", off).Msg("schedule: delayed record undecodable, skipped")
	}
	return false
}
