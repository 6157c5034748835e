package broker

import (
	"bytes"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/store"
)

// The startup duplicate check. delayOffset.json is written every
// flushDelayOffsetInterval, after the deliveries it covers are flushed; a crash can leave
// it behind messages that were delivered (and flushed) after its last write. Java
// delivers those again. Here, before a level starts, each of its next due messages is
// looked for in its real queue: a record written after the file's last write (less the
// persist interval, the flush wait and a second of slack) with the very bytes the
// delivery would have written — topic, queue, flag, sysFlag, born time and host, store
// host, reconsumeTimes, body and properties. Found, the message is counted as delivered
// and the next one is looked for after that copy (a level delivers in order); not found,
// the level resumes there. A producer cannot make a false match: every client message
// carries its own UNIQ_KEY, and a copy must also lie after the parked record.

// scheduleDedupMaxScan bounds how many real-queue units the check of one level reads in
// all; past it the level resumes where it is (and says so in the log). Within the
// window since the last persist a level reads a few units per delivered message, so the
// bound only matters for a store whose delayOffset.json went missing.
const scheduleDedupMaxScan = 200000

// dedupOutcome is what the check found for one parked message.
type dedupOutcome int

const (
	dedupNotDelivered  dedupOutcome = iota // resume delivery here
	dedupDelivered                         // a copy exists: skip it
	dedupUndeliverable                     // delivery would pass over it anyway
)

// skipDelivered returns the first offset at or after from whose message has not been
// delivered yet, as far as the real queues show.
func (s *scheduleService) skipDelivered(level int, from int64) int64 {
	var sinceMs int64
	if !s.since.IsZero() {
		sinceMs = s.since.Add(-(s.cfg.PersistEvery + scheduleFlushTimeout + time.Second)).UnixMilli()
	}
	w := s.newLevelWorker(level)
	floor := int64(-1)
	budget := scheduleDedupMaxScan
	for !s.stopped() {
		us := s.st.ConsumeQueueUnits(TopicSchedule, w.queue, from, 1)
		if len(us) == 0 {
			return from
		}
		now := time.Now().UnixMilli()
		if s.deliverAt(level, us[0].TagsCode, now) > now {
			return from // not due yet, so never delivered
		}
		out, at := w.findCopy(us[0], from, floor, sinceMs, &budget)
		if out == dedupNotDelivered {
			return from
		}
		if out == dedupDelivered {
			floor = at
		}
		from++
	}
	return from
}

// findCopy looks for the delivered copy of the parked message of unit u (at offset off)
// among the records of its real queue written after floor and sinceMs, reading at most
// *budget units; it returns the copy's CommitLog offset when found.
func (w *levelWorker) findCopy(u store.CQUnit, off, floor, sinceMs int64, budget *int) (dedupOutcome, int64) {
	s := w.s
	rec, release, err := s.st.MessageByOffset(u.PhyOffset)
	if err != nil {
		return dedupUndeliverable, 0
	}
	defer release()
	if !w.timeup(rec, off) {
		return dedupUndeliverable, 0
	}
	want := &w.msg
	size := int32(message.RecordSize(want))
	lower := max(u.PhyOffset, floor)
	lo, hi := s.st.MinOffsetInQueue(want.Topic, want.QueueID), s.st.MaxOffsetInQueue(want.Topic, want.QueueID)
	for hi > lo {
		from := max(lo, hi-64)
		units := s.st.ConsumeQueueUnits(want.Topic, want.QueueID, from, int(hi-from))
		if len(units) == 0 {
			break
		}
		for i := len(units) - 1; i >= 0; i-- {
			c := units[i]
			if c.PhyOffset <= lower {
				return dedupNotDelivered, 0
			}
			if *budget--; *budget < 0 {
				s.log.Warn().Int("level", w.level).Int64("offset", off).Str("topic", want.Topic).
					Msg("schedule: duplicate check read too many records, resuming here; messages may be delivered twice")
				return dedupNotDelivered, 0
			}
			found, older := sameDelivery(s.st, c, size, want, sinceMs)
			if found {
				return dedupDelivered, c.PhyOffset
			}
			if older {
				return dedupNotDelivered, 0
			}
		}
		hi = from
	}
	return dedupNotDelivered, 0
}

// sameDelivery reports whether the record of unit c is the delivery of want, and whether
// it was stored before sinceMs (which ends the backwards scan).
func sameDelivery(st *store.Store, c store.CQUnit, size int32, want *message.Message, sinceMs int64) (found, older bool) {
	rec, release, err := st.MessageByOffset(c.PhyOffset)
	if err != nil {
		return false, false
	}
	defer release()
	if ts, ok := message.StoreTimestampOf(rec); ok && ts < sinceMs {
		return false, true
	}
	if c.Size != size {
		return false, false
	}
	r, err := message.DecodeRecord(rec)
	if err != nil {
		return false, false
	}
	return string(r.Topic) == want.Topic && r.QueueID == want.QueueID && r.Flag == want.Flag &&
		r.SysFlag == message.EffectiveSysFlag(want) && r.BornTimestamp == want.BornTimestamp &&
		r.BornHost == want.BornHost && r.StoreHost == want.StoreHost && r.ReconsumeTimes == want.ReconsumeTimes &&
		bytes.Equal(r.Body, want.Body) && bytes.Equal(r.Properties, want.Properties), false
}
