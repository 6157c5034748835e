package timer

import (
	"strings"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

// uniqKeys returns the UNIQ_KEYs delivered to topic's queue 0.
func uniqKeys(t *testing.T, s *Service, topic string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, r := range delivered(t, s.st, topic, 0) {
		u, _ := r.Property(message.PropertyUniqClientMessageIDKeyIdx)
		out[string(u)]++
		if _, ok := r.Property(PropertyDelUniqKey); ok {
			t.Errorf("a delete marker was delivered (%s)", u)
		}
	}
	return out
}

// A TIMER_DEL_UNIQKEY marker due in the same slot cancels the pending message with that
// topic and UNIQ_KEY, sent before or after it; the marker is never delivered; the slot's
// other messages, a marker for another topic and a marker in another slot change nothing
// (5.x: TimerMessageStore's MAGIC_DELETE entries, read before the slot's messages).
func TestService_DeleteMarkerCancelsInItsSlot(t *testing.T) {
	st, s := startedService(t)
	// Slot t holds (t-100, t]: due, due+10 and due+20 share one.
	due := (time.Now().UnixMilli()+600)/100*100 + 1
	cancelAfter := park(t, st, "TopicC", 0, due, 100)
	keep := park(t, st, "TopicC", 0, due, 100)
	parkMarker(t, st, "TopicC", due, DeleteKey("TopicC", cancelAfter))
	cancelBefore := "C0A80001" + "999999999999999999999999"
	parkMarker(t, st, "TopicC", due+10, DeleteKey("TopicC", cancelBefore))
	parkMarker(t, st, "TopicC", due, DeleteKey("OtherTopic", keep))
	otherSlot := park(t, st, "TopicC", 0, due+300, 100)
	parkMarker(t, st, "TopicC", due+700, DeleteKey("TopicC", otherSlot))
	// The marker for cancelBefore came first; now the message itself, same slot.
	parkWithKey(t, st, "TopicC", due+20, cancelBefore)

	waitFor(t, 5*time.Second, "the slots after the last marker delivered", func() bool {
		return s.Stats().Pending == 0 && s.cursorPub.Load() > due+800
	})
	got := uniqKeys(t, s, "TopicC")
	if got[keep] != 1 || got[otherSlot] != 1 {
		t.Errorf("delivered %v: want %s and %s once each", got, keep, otherSlot)
	}
	if got[cancelAfter] != 0 || got[cancelBefore] != 0 {
		t.Errorf("delivered %v: %s and %s were cancelled", got, cancelAfter, cancelBefore)
	}
	if len(got) != 2 {
		t.Errorf("delivered %v, want 2 messages", got)
	}
	if c := s.Stats().Cancelled; c != 2 {
		t.Errorf("Cancelled %d, want 2", c)
	}
}

// A marker and its message pending across a restart: still cancelled.
func TestService_DeleteMarkerSurvivesRestart(t *testing.T) {
	root := t.TempDir()
	st := openTestStore(t, root)
	defer st.Close()
	s := newTestService(st, root, 100)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	due := time.Now().UnixMilli() + 1500
	u := park(t, st, "TopicK", 0, due, 100)
	other := park(t, st, "TopicK", 0, due, 100)
	parkMarker(t, st, "TopicK", due, DeleteKey("TopicK", u))
	waitFor(t, 3*time.Second, "enqueued", func() bool { return s.Stats().EnqueueBehind == 0 && s.Stats().Pending == 3 })
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}
	s = newTestService(st, root, 100)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	waitFor(t, 5*time.Second, "the slot delivered", func() bool {
		return s.Stats().Pending == 0 && s.cursorPub.Load() > due+100
	})
	if got := uniqKeys(t, s, "TopicK"); got[u] != 0 || got[other] != 1 || len(got) != 1 {
		t.Errorf("delivered %v: want only %s", got, other)
	}
}

// Delete markers whose keys are malformed — no '+', only '+', an empty UNIQ_KEY, a 30 KB
// key, bytes that are not text, a prefix of a pending message's key, another case — cancel
// nothing: every message of their slot is delivered once, no marker is delivered, and the
// service goes on to the next slot. A message without a UNIQ_KEY is not cancelled by
// "<topic>+" either. (An empty TIMER_DEL_UNIQKEY is no property at all: the properties
// codec drops empty values as Java's string2messageProperties does, so such a "marker" is
// an ordinary timer message.)
func TestService_DeleteMarker_MalformedKeysCancelNothing(t *testing.T) {
	st, s := startedService(t)
	due := (time.Now().UnixMilli()+600)/100*100 + 1
	a := park(t, st, "TopicM", 0, due, 100)
	b := park(t, st, "TopicM", 0, due+10, 100)
	parkWithKey(t, st, "TopicM", due+20, "") // no UNIQ_KEY
	for _, key := range []string{
		"+", "TopicM", "TopicM+", "+" + a, "TopicM++" + a, "TopicM+" + a[:len(a)-1],
		"TopicM+" + strings.Repeat("K", 30<<10), "\x00\xff\xfe+\x00", "topicm+" + b,
	} {
		parkMarker(t, st, "TopicM", due+30, key)
	}
	after := park(t, st, "TopicM", 0, due+400, 100)
	waitFor(t, 5*time.Second, "the slots delivered", func() bool {
		return s.Stats().Pending == 0 && s.cursorPub.Load() > due+500
	})
	got := uniqKeys(t, s, "TopicM")
	if got[a] != 1 || got[b] != 1 || got[""] != 1 || got[after] != 1 || len(got) != 4 {
		t.Errorf("delivered %v: want %s, %s, the message without a key and %s once each", got, a, b, after)
	}
	if c := s.Stats().Cancelled; c != 0 {
		t.Errorf("Cancelled %d, want 0", c)
	}
}
