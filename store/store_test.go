package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
)

func TestStore_PutGet_RoundTrip(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	for i := 0; i < 10; i++ {
		r := mustPut(t, s, testMessage("TopicA", 1, body(i), "TAGS\x01TagA\x02KEYS\x01k"+body(i)))
		if r.QueueOffset != int64(i) || r.MsgNum != 1 {
			t.Fatalf("put %d: queue offset %d", i, r.QueueOffset)
		}
	}
	waitDispatched(t, s)
	got := bodies(t, s, "TopicA", 1)
	if len(got) != 10 || got[0] != body(0) || got[9] != body(9) {
		t.Fatalf("bodies %v", got)
	}
	if s.MaxOffsetInQueue("TopicA", 1) != 10 || s.MinOffsetInQueue("TopicA", 1) != 0 {
		t.Fatalf("offsets %d %d", s.MinOffsetInQueue("TopicA", 1), s.MaxOffsetInQueue("TopicA", 1))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.RootDir, "abort")); !os.IsNotExist(err) {
		t.Fatalf("abort file left after Close: %v", err)
	}
	s = openStore(t, c)
	defer s.Close()
	if got := bodies(t, s, "TopicA", 1); len(got) != 10 {
		t.Fatalf("after reopen: %d messages", len(got))
	}
	r := mustPut(t, s, testMessage("TopicA", 1, "after", ""))
	if r.QueueOffset != 10 {
		t.Fatalf("queue offset after reopen %d", r.QueueOffset)
	}
}

func TestStore_Open_Locked(t *testing.T) {
	c := testConfig(t)
	s := openStore(t, c)
	defer s.Close()
	if _, err := Open(c); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v", err)
	}
}

func TestStore_MessageByOffset(t *testing.T) {
	s := openStore(t, testConfig(t))
	defer s.Close()
	r := mustPut(t, s, testMessage("T", 0, "hello", ""))
	rec, release, err := s.MessageByOffset(r.WroteOffset)
	if err != nil {
		t.Fatal(err)
	}
	d, err := message.DecodeRecord(rec)
	release()
	if err != nil || string(d.Body) != "hello" || d.PhysicalOffset != r.WroteOffset {
		t.Fatalf("record %+v %v", d, err)
	}
	if _, _, err := s.MessageByOffset(r.WroteOffset + 3); !errors.Is(err, ErrNotFound) {
		t.Fatalf("bad offset: %v", err)
	}
}

func TestStore_Close_WhileProducing(t *testing.T) {
	s := openStore(t, testConfig(t))
	done := make(chan int)
	go func() {
		n := 0
		for {
			r, err := s.PutMessage(testMessage("T", 0, "x", ""))
			if err != nil {
				if r.Status != PutServiceNotAvailable || !errors.Is(err, ErrClosed) {
					t.Errorf("put after close: %v %v", r.Status, err)
				}
				done <- n
				return
			}
			n++
		}
	}()
	eventually(t, 5*time.Second, "some puts", func() bool { return s.MaxPhyOffset() > 10000 })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	n := <-done
	s2 := openStore(t, s.cfg)
	defer s2.Close()
	if got := s2.MaxOffsetInQueue("T", 0); got != int64(n) {
		t.Fatalf("%d puts succeeded, %d stored", n, got)
	}
}
