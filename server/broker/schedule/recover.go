package schedule

import (
	"bytes"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/store"
)

// The startup duplicate check. delayOffset.json is written every
// flushDelayOffsetInterval, after the deliveries it covers are flushed; a crash can leave
// it behind messages that were delivered after its last write (or, before the first
// write, leave no file at all). Java delivers those again. Here, before a level starts,
// it finds how far delivery really got.
//
// A parked message counts as delivered when its real queue holds a record with the very
// bytes the delivery writes — topic, queue, flag, sysFlag, born time and host, store host,
// reconsumeTimes, body and properties — stored after the parked record, at or after the
// message's deliver time, and after the file's last write (less the persist interval,
// the flush wait and a second of slack). A producer cannot make a false match: every
// client message carries its own UNIQ_KEY.
//
// A level delivers in order, so its delivered messages are a prefix of its queue (the
// undeliverable ones it passes over sit inside that prefix): a binary search over the
// queue, from the table's offset to the last due message, finds the end of the prefix
// with a few lookups. Each lookup binary-searches the real queue for the first record
// stored late enough, then reads forward.

// scheduleDedupMaxReads bounds the real-queue units the check of one level reads; past
// it the level resumes where the check got (and says so in the log), so at worst some
// messages are delivered twice, as Java would.
const scheduleDedupMaxReads = 2_000_000

// dedupOutcome is what the check found for one parked message.
type dedupOutcome int

const (
	dedupNotDelivered  dedupOutcome = iota // delivery resumes here
	dedupDelivered                         // a copy exists
	dedupUndeliverable                     // delivery passes over it anyway
)

// dedupScan is one level's check.
type dedupScan struct {
	w       *levelWorker
	sinceMs int64 // copies were stored at or after this
	reads   int   // units read so far
	end     int64 // the level's queue end
}

// skipDelivered returns the first offset at or after from whose message has not been
// delivered yet, as far as the real queues show.
func (s *Service) skipDelivered(level int, from int64) int64 {
	d := &dedupScan{w: s.newLevelWorker(level), end: s.st.MaxOffsetInQueue(Topic, int32(level-1))}
	if !s.since.IsZero() {
		d.sinceMs = s.since.Add(-(s.cfg.PersistEvery + scheduleFlushTimeout + time.Second)).UnixMilli()
	}
	if from >= d.end || !d.done(from) {
		return from
	}
	lo, hi := from, d.end // done(lo) holds; done(end) is false by definition
	for hi-lo > 1 && !s.stopped() {
		mid := lo + (hi-lo)/2
		if d.done(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	if d.reads > scheduleDedupMaxReads {
		s.log.Warn().Int("level", level).Int("reads", d.reads).
			Msg("schedule: duplicate check read too much and stopped early; some messages may be delivered twice")
	}
	return hi
}

// done reports whether delivery got past offset k: whether the first deliverable parked
// message at or after k (within 64 units) has a copy.
func (d *dedupScan) done(k int64) bool {
	s := d.w.s
	for j := k; j < d.end && j < k+64; j++ {
		if d.reads > scheduleDedupMaxReads {
			return false
		}
		us := s.st.ConsumeQueueUnits(Topic, d.w.queue, j, 1)
		if len(us) == 0 {
			return false
		}
		now := time.Now().UnixMilli()
		if s.deliverAt(d.w.level, us[0].TagsCode, now) > now {
			return false // not due yet, so never delivered
		}
		switch d.findCopy(us[0], j) {
		case dedupDelivered:
			return true
		case dedupNotDelivered:
			return false
		}
	}
	return false
}

// findCopy looks for the delivered copy of the parked message of unit u (at offset off).
func (d *dedupScan) findCopy(u store.CQUnit, off int64) dedupOutcome {
	w, st := d.w, d.w.s.st
	if u.Size <= 0 || u.Size == 1<<31-1 {
		return dedupUndeliverable
	}
	rec, release, err := st.MessageByOffset(u.PhyOffset)
	if err != nil {
		return dedupUndeliverable
	}
	defer release()
	if !w.timeup(rec, off) {
		return dedupUndeliverable
	}
	want := &w.msg
	size := int32(message.RecordSize(want))
	topic, q := want.Topic, want.QueueID
	i := d.firstStoredAfter(topic, q, u.PhyOffset, max(d.sinceMs, u.TagsCode))
	hi := st.MaxOffsetInQueue(topic, q)
	for i < hi {
		units := st.ConsumeQueueUnits(topic, q, i, 256)
		if len(units) == 0 {
			break
		}
		for _, c := range units {
			if d.reads++; d.reads > scheduleDedupMaxReads {
				return dedupNotDelivered
			}
			if c.Size == size && sameDelivery(st, c, want) {
				return dedupDelivered
			}
		}
		i += int64(len(units))
	}
	return dedupNotDelivered
}

// firstStoredAfter returns the first logical offset of the queue whose unit lies after
// CommitLog offset minPhy and whose record was stored at or after minTs (both grow with
// the logical offset).
func (d *dedupScan) firstStoredAfter(topic string, q int32, minPhy, minTs int64) int64 {
	st := d.w.s.st
	lo, hi := st.MinOffsetInQueue(topic, q), st.MaxOffsetInQueue(topic, q)
	late := func(i int64) bool {
		d.reads++
		us := st.ConsumeQueueUnits(topic, q, i, 1)
		if len(us) == 0 {
			return true
		}
		if us[0].PhyOffset <= minPhy {
			return false
		}
		rec, release, err := st.MessageByOffset(us[0].PhyOffset)
		if err != nil {
			return false
		}
		defer release()
		ts, ok := message.StoreTimestampOf(rec)
		return ok && ts >= minTs
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if late(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// sameDelivery reports whether the record of unit c is the delivery of want.
func sameDelivery(st *store.Store, c store.CQUnit, want *message.Message) bool {
	rec, release, err := st.MessageByOffset(c.PhyOffset)
	if err != nil {
		return false
	}
	defer release()
	r, err := message.DecodeRecord(rec)
	if err != nil {
		return false
	}
	return string(r.Topic) == want.Topic && r.QueueID == want.QueueID && r.Flag == want.Flag &&
		r.SysFlag == message.EffectiveSysFlag(want) && r.BornTimestamp == want.BornTimestamp &&
		r.BornHost == want.BornHost && r.StoreHost == want.StoreHost && r.ReconsumeTimes == want.ReconsumeTimes &&
		bytes.Equal(r.Body, want.Body) && bytes.Equal(r.Properties, want.Properties)
}
