package conformance

// kill -9 with 100,000 pending timers spread over the next minute: after restart each is
// delivered exactly once, none before its time, in due order within the precision. The
// broker's store and timing wheel run in a child process (this test binary re-executed);
// the parent kills it mid-delivery, then opens the same store and wheel.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/store"
	"github.com/skyrocket-mq/skyrocket/store/timer"
)

const (
	crashTimers    = 100_000
	crashPrecision = 100
	crashTopic     = "TTimerCrash"
)

func openCrashStore(t testing.TB, root string) (*store.Store, *timer.Service) {
	sc := store.DefaultConfig(root)
	sc.MappedFileSizeCommitLog = 64 << 20
	st, err := store.Open(sc)
	if err != nil {
		t.Fatal(err)
	}
	s := timer.New(timer.Config{Store: st, Dir: filepath.Join(root, "timer"), PrecisionMs: crashPrecision, SegmentSize: 1 << 20})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	return st, s
}

// TestTimerCrashChild is the child: it parks the timers and delivers until killed.
func TestTimerCrashChild(t *testing.T) {
	root := os.Getenv("SKYROCKET_TIMER_CRASH_CHILD")
	if root == "" {
		t.Skip("the child of TestConformance_Timer_Kill9ExactlyOnce")
	}
	st, _ := openCrashStore(t, root)
	host := netip.MustParseAddrPort("127.0.0.1:10911")
	start := time.Now().UnixMilli() + 3000
	seed, _ := strconv.ParseUint(os.Getenv("SKYROCKET_TIMER_CRASH_SEED"), 10, 64)
	rnd := rand.New(rand.NewPCG(seed, 1))
	var p message.Properties
	for i := 0; i < crashTimers; i++ {
		due := start + rnd.Int64N(60_000)
		p.Reset()
		p.Set(message.PropertyUniqClientMessageIDKeyIdx, fmt.Sprintf("U%08d", i))
		p.Set(timer.PropertyDeliverMs, strconv.FormatInt(due, 10))
		p.Set(timer.PropertyOutMs, strconv.FormatInt(due, 10))
		p.Set(message.PropertyRealTopic, crashTopic)
		p.Set(message.PropertyRealQueueID, "0")
		body := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(nil, uint32(i)), uint64(due))
		m := message.Message{Topic: timer.Topic, Body: body, BornTimestamp: time.Now().UnixMilli(), BornHost: host, StoreHost: host, Properties: p.AppendTo(nil)}
		if _, err := st.PutMessage(&m); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Println("parked")
	for {
		fmt.Println("delivered", st.MaxOffsetInQueue(crashTopic, 0))
		time.Sleep(20 * time.Millisecond)
	}
}

func TestConformance_Timer_Kill9ExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute long")
	}
	root := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SKYROCKET_TIMER_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (SKYROCKET_TIMER_CRASH_SEED)", seed)
	cmd := exec.Command(os.Args[0], "-test.run=^TestTimerCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), "SKYROCKET_TIMER_CRASH_CHILD="+root, "SKYROCKET_TIMER_CRASH_SEED="+strconv.FormatUint(seed, 10))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	sc := bufio.NewScanner(out)
	deadline := time.Now().Add(90 * time.Second)
	var atKill int64
	for sc.Scan() {
		if time.Now().After(deadline) {
			t.Fatal("the child did not deliver 15,000 timers in 90 s")
		}
		if n, ok := strings.CutPrefix(sc.Text(), "delivered "); ok {
			atKill, _ = strconv.ParseInt(n, 10, 64)
			if atKill >= 15_000 {
				break
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed = true
	t.Logf("killed with about %d of %d delivered", atKill, crashTimers)

	st, s := openCrashStore(t, root)
	defer st.Close()
	defer s.Shutdown()
	eventually(t, 90*time.Second, "every timer delivered", func() bool {
		return st.MaxOffsetInQueue(crashTopic, 0) >= crashTimers && s.Stats().Pending == 0 && st.DispatchBehindBytes() == 0
	})
	seen := make([]bool, crashTimers)
	maxDue := int64(0)
	var late []int64
	for _, u := range st.ConsumeQueueUnits(crashTopic, 0, 0, 2*crashTimers) {
		b, release, err := st.MessageByOffset(u.PhyOffset)
		if err != nil {
			t.Fatal(err)
		}
		r, err := message.DecodeRecord(b)
		if err != nil {
			release()
			t.Fatal(err)
		}
		i, due, stored := binary.BigEndian.Uint32(r.Body), int64(binary.BigEndian.Uint64(r.Body[4:])), r.StoreTimestamp
		release()
		if int(i) >= crashTimers || seen[i] {
			t.Fatalf("timer %d delivered twice", i)
		}
		seen[i] = true
		if stored < due {
			t.Fatalf("timer %d stored %d ms before its time", i, due-stored)
		}
		if due < maxDue-crashPrecision {
			t.Fatalf("timer %d (due %d) delivered after one due %d: out of order beyond the precision", i, due, maxDue)
		}
		maxDue = max(maxDue, due)
		late = append(late, stored-due)
	}
	if n := st.MaxOffsetInQueue(crashTopic, 0); n != crashTimers {
		t.Fatalf("%d deliveries, want %d", n, crashTimers)
	}
	for i, ok := range seen {
		if !ok {
			t.Fatalf("timer %d lost", i)
		}
	}
	t.Logf("all %d delivered exactly once, in due order; lateness max %d ms (includes the restart)", crashTimers, slicesMax(late))
}

func slicesMax(v []int64) int64 {
	m := int64(0)
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
