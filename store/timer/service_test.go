package timer

import (
	"strconv"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

func TestPrecision_RoundsDownToJavaCandidates(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{{1, 100}, {100, 100}, {150, 100}, {200, 200}, {499, 200}, {500, 500}, {999, 500}, {1000, 1000}, {5000, 1000}} {
		if got := Precision(c.in); got != c.want {
			t.Errorf("Precision(%d) = %d, want %d", c.in, got, c.want)
		}
	}
	if SlotTime(1001, 1000) != 2000 || SlotTime(2000, 1000) != 2000 || SlotTime(1, 100) != 100 {
		t.Error("SlotTime must round up to the precision")
	}
}

// Each parked message is delivered once, to its real queue, not before its time, within
// precision + 100 ms after it, without REAL_TOPIC/REAL_QID and with the rest intact.
func TestService_DeliversOnTime(t *testing.T) {
	st, s := startedService(t)
	now := time.Now().UnixMilli()
	due := map[string]int64{}
	for i, d := range []int64{-500, 0, 150, 420, 700, 1300} {
		u := park(t, st, "TopicT", int32(i%2), now+d, 100)
		due[u] = now + d
	}
	waitFor(t, 5*time.Second, "all delivered", func() bool {
		return st.MaxOffsetInQueue("TopicT", 0)+st.MaxOffsetInQueue("TopicT", 1) == int64(len(due))
	})
	seen := map[string]bool{}
	for q := int32(0); q < 2; q++ {
		for _, r := range delivered(t, st, "TopicT", q) {
			u, _ := r.Property(message.PropertyUniqClientMessageIDKeyIdx)
			if seen[string(u)] {
				t.Fatalf("%s delivered twice", u)
			}
			seen[string(u)] = true
			want := due[string(u)]
			if r.StoreTimestamp < want {
				t.Errorf("%s delivered %d ms early", u, want-r.StoreTimestamp)
			}
			// Due in the future: within precision + 100 ms. Already due when parked: at
			// once, which under the race detector on a busy machine is a few hundred ms.
			if late := r.StoreTimestamp - want; want > now && late > 200+raceSlack || want <= now && r.StoreTimestamp-now > 1000+raceSlack {
				t.Errorf("%s delivered %d ms late", u, late)
			}
			if _, ok := r.Property(message.PropertyRealTopic); ok {
				t.Error("REAL_TOPIC kept")
			}
			if k, _ := r.Property(message.PropertyKeys); string(k) != "k-"+string(u) || string(r.Body) != "body-"+string(u) || r.Flag != 3 {
				t.Errorf("fields changed: keys %q body %q flag %d", k, r.Body, r.Flag)
			}
		}
	}
	waitFor(t, 2*time.Second, "pending 0", func() bool { return s.Stats().Pending == 0 })
}

// A clean restart keeps the pending set: nothing lost, nothing delivered twice.
func TestService_RestartKeepsPending(t *testing.T) {
	root := t.TempDir()
	st := openTestStore(t, root)
	s := newTestService(st, root, 100)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	for i := 0; i < 50; i++ {
		park(t, st, "TopicR", 0, now+int64(i)*20, 100)
	}
	waitFor(t, 5*time.Second, "some delivered", func() bool { return st.MaxOffsetInQueue("TopicR", 0) >= 10 })
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}
	s = newTestService(st, root, 100)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	waitFor(t, 5*time.Second, "all delivered", func() bool { return st.MaxOffsetInQueue("TopicR", 0) >= 50 })
	waitFor(t, 2*time.Second, "pending 0", func() bool { return s.Stats().Pending == 0 })
	if n := st.MaxOffsetInQueue("TopicR", 0); n != 50 {
		t.Fatalf("delivered %d, want 50", n)
	}
	st.Close()
}

// An entry a crash left "delivering" is settled at start: done when its copy is in the
// CommitLog after clBefore, delivered again when it is not.
func TestService_SettlesInterruptedDelivery(t *testing.T) {
	for _, copied := range []bool{true, false} {
		t.Run(strconv.FormatBool(copied), func(t *testing.T) {
			root := t.TempDir()
			st := openTestStore(t, root)
			defer st.Close()
			s := newTestService(st, root, 100)
			u := park(t, st, "TopicS", 0, time.Now().UnixMilli()-10, 100)
			waitFor(t, 2*time.Second, "dispatch", func() bool { return st.DispatchBehindBytes() == 0 })
			// What the loop does up to the crash: enqueue, mark delivering, maybe write the copy.
			tl, err := openLog(root+"/timer/timerlog", entrySize*1000)
			if err != nil {
				t.Fatal(err)
			}
			s.tl, s.wh = tl, &wheel{}
			units := st.ConsumeQueueUnits(Topic, 0, 0, 1)
			if _, err := tl.append(entry{deliverMs: 1, phyOffset: units[0].PhyOffset, size: units[0].Size, state: statePending}); err != nil {
				t.Fatal(err)
			}
			tl.setState(0, stateDelivering, st.MaxPhyOffset())
			if copied {
				rec, release, _ := st.MessageByOffset(units[0].PhyOffset)
				s.build(rec)
				release()
				if _, err := st.PutMessage(&s.msg); err != nil {
					t.Fatal(err)
				}
			}
			tl.close()
			s = newTestService(st, root, 100)
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			defer s.Shutdown()
			waitFor(t, 3*time.Second, "delivered", func() bool { return st.MaxOffsetInQueue("TopicS", 0) >= 1 && s.Stats().Pending == 0 })
			waitFor(t, 2*time.Second, "dispatch", func() bool { return st.DispatchBehindBytes() == 0 })
			recs := delivered(t, st, "TopicS", 0)
			if len(recs) != 1 {
				t.Fatalf("delivered %d copies of %s, want 1", len(recs), u)
			}
		})
	}
}
