package testkit

import (
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB whose Fatalf records the message and ends its goroutine.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func run(f func(tb testing.TB)) string {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.msg
}

func TestEventually_ReturnsOnceTheConditionHolds(t *testing.T) {
	n := 0
	msg := run(func(tb testing.TB) { Eventually(tb, 5*time.Second, "three polls", func() bool { n++; return n == 3 }) })
	if msg != "" || n != 3 {
		t.Fatalf("failed with %q after %d polls", msg, n)
	}
}

func TestEventually_FailsAtItsDeadlineNamingWhatItWaitedFor(t *testing.T) {
	start := time.Now()
	msg := run(func(tb testing.TB) {
		Eventually(tb, 50*time.Millisecond, "the impossible", func() bool { return false })
	})
	if !strings.Contains(msg, "the impossible") || !strings.Contains(msg, "50ms") {
		t.Fatalf("message %q", msg)
	}
	if el := time.Since(start); el < 50*time.Millisecond || el > 5*time.Second {
		t.Fatalf("gave up after %v", el)
	}
}

func TestBrokerPort_TheTripleIsFreeAndBelowTheEphemeralRange(t *testing.T) {
	lo, hi := portRange()
	seen := map[int]bool{}
	for range 20 {
		p := BrokerPort(t)
		if p < lo || p >= hi {
			t.Fatalf("port %d outside [%d, %d)", p, lo, hi)
		}
		for _, q := range []int{p - 2, p, p + 1} {
			if seen[q] {
				t.Fatalf("port %d handed out twice", q)
			}
			seen[q] = true
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", q))
			if err != nil {
				t.Fatalf("port %d of triple %d: %v", q, p, err)
			}
			l.Close()
		}
	}
}

func TestFree_APortInUseIsNotFree(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := l.Addr().(*net.TCPAddr).Port
	if free(p) {
		t.Fatalf("port %d is listened on but judged free", p)
	}
	l.Close()
	if !free(p) {
		t.Fatalf("port %d judged in use after its listener closed", p)
	}
}

func TestFreePort_NeverTheSameTwice(t *testing.T) {
	seen := map[int]bool{}
	for range 100 {
		p := FreePort(t)
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
}
