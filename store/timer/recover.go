package timer

import (
	"bytes"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

// rebuild makes the wheel from the log at start, clean or not: every entry not done is
// linked into its slot (or the cursor's, when overdue), an entry a crash left
// "delivering" is settled first, and enqueue resumes after the newest entry's
// ConsumeQueue offset (or the checkpoint's, when the log is empty).
func (s *Service) rebuild(ck checkpoint) {
	now := s.nowMs()
	s.cursor = ck.CursorMs / s.p * s.p
	if s.cursor <= 0 {
		s.cursor = now / s.p * s.p
	}
	// A cursor further back than the wheel can hold starts at half a span ago: what is
	// older goes into the cursor's slot.
	if floor := now/s.p*s.p - s.span/2; s.cursor < floor {
		s.cursor = floor
	}
	minPhy := s.st.MinPhyOffset()
	lastCQ := int64(-1)
	var linked, settled, expired int
	s.tl.scan(func(pos int64, e entry) {
		lastCQ = e.cqOffset
		switch e.state {
		case stateDone:
			return
		case stateDelivering:
			settled++
			if s.deliveredAfter(e) {
				s.tl.setState(pos, stateDone, 0)
				return
			}
			s.tl.setState(pos, statePending, 0)
		}
		if e.phyOffset < minPhy {
			expired++
			s.tl.setState(pos, stateDone, 0)
			return
		}
		t, at := max(SlotTime(e.deliverMs, s.p), s.cursor), e.deliverMs
		if lim := s.cursor + s.span - 2*s.p; t > lim {
			t, at = lim, lim // beyond the wheel (maximum delay lowered): at its end
		}
		prev := s.wh.link(t, pos)
		s.tl.relink(pos, prev, at)
		linked++
	})
	s.enqueueOff = max(ck.EnqueueOffset, lastCQ+1)
	if hi := s.st.MaxOffsetInQueue(Topic, 0); s.enqueueOff > hi {
		// The ConsumeQueue lost its tail (a CommitLog truncated by recovery).
		s.enqueueOff = hi
	}
	s.cursorPub.Store(s.cursor)
	s.enqPub.Store(s.enqueueOff)
	s.pending.Store(s.tl.pendingCount())
	s.log.Info().Int("pending", linked).Int("settled", settled).Int("expired", expired).
		Int64("enqueueOffset", s.enqueueOff).Int64("cursorMs", s.cursor).Msg("timer: wheel rebuilt from the timerlog")
}

// deliveredAfter reports whether the delivery of entry e, which a crash interrupted,
// reached the CommitLog: whether a record written at or after e.clBefore is that
// delivery (real topic and queue, born time, body and properties equal).
func (s *Service) deliveredAfter(e entry) bool {
	rec, release, err := s.st.MessageByOffset(e.phyOffset)
	if err != nil {
		return false
	}
	ok := s.build(rec)
	release()
	if !ok {
		return true // never deliverable: nothing to do again
	}
	want := &s.msg
	fileSize := s.st.CommitLogFileSize()
	end := s.st.MaxPhyOffset()
	for off := e.clBefore; off < end; {
		data, rel := s.st.CommitLogData(off)
		if len(data) == 0 {
			if rel != nil {
				rel()
			}
			return false
		}
		found, consumed := false, 0
		_ = message.WalkRecords(data, func(r *message.Record) bool {
			consumed += int(r.StoreSize)
			if string(r.Topic) == want.Topic && r.QueueID == want.QueueID && r.BornTimestamp == want.BornTimestamp &&
				bytes.Equal(r.Body, want.Body) && bytes.Equal(r.Properties, want.Properties) {
				found = true
				return false
			}
			return true
		})
		rel()
		if found {
			return true
		}
		off += int64(consumed)
		if consumed < len(data) {
			// Stopped at something that is not a record: the file's blank end.
			off = (off/fileSize + 1) * fileSize
		}
	}
	return false
}
