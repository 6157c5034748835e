package main

// Open-loop sending (-rate): each connection sends on a fixed schedule instead of
// refilling its window as answers come back.
//
// A closed loop (the default) measures what a server sustains, but its latencies hide
// stalls: while the server stalls, no new request is sent, so the requests that would
// have waited are never measured (coordinated omission). Here request k of a connection
// is due at start + k*interval; its latency runs from that due time, not from when it
// was written. If the connection falls behind (the window is full, or the pacer woke
// late), the overdue requests go out at once, each still timed from its own due time,
// so a stall shows up in the percentiles as the senders of a real system would feel it.
//
// The pacer sleeps with nanosleep(2) on its own thread: Go's timers wake up to ~1 ms
// late on an idle P, which would put a 1 ms floor under every latency. How late the
// pacer still sent (its own lag behind the schedule) is reported as "schedule lag", so
// the client's share of a latency figure is visible.

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// reservePacerPs adds one P per pacer thread to GOMAXPROCS (once per process). A pacer
// spends its time in nanosleep on its locked thread, and a goroutine in a system call
// keeps its P until sysmon takes it back, which can take milliseconds on a quiet process:
// with GOMAXPROCS at the CPU count (2 here) and 4 pacers asleep, the readers that take the
// answers off the sockets waited for a P. Against mqbench's null broker at 37,000 msg/s
// open loop (4 connections): p50 2.1-2.3 ms, p99.9 18 ms with the pacers holding the Ps;
// p50 0.11 ms, p99.9 1.6-1.8 ms with one P more per pacer (docs/benchmarks.md, "The
// client's own floor"). The extra Ps cost nothing while the pacers sleep.
func reservePacerPs(pacers int) {
	pacerPsOnce.Do(func() { runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + pacers) })
}

var pacerPsOnce sync.Once

// paceLoop sends the connection's requests on schedule until the run stops, the budget
// is spent, or the connection dies. offset staggers the connections' schedules.
func (p *pipe) paceLoop(offset time.Duration) {
	defer close(p.wdone)
	runtime.LockOSThread() // nanosleep blocks this thread, not a P's other goroutines
	defer runtime.UnlockOSThread()
	interval := int64(p.pace)
	next := p.run.now() + int64(offset)
	buf := make([]byte, 0, 64<<10)
	batch := make([]int, 0, p.window)
	for {
		if !p.sleepUntil(next) {
			return
		}
		buf, batch = buf[:0], batch[:0]
		now := p.run.now()
		done := false
	fill:
		for next <= now && len(buf) < maxCoalesce {
			var slot int
			if len(batch) == 0 {
				s, ok := p.take() // the window is full: wait; the schedule keeps running
				if !ok {
					return
				}
				slot = s
			} else {
				select {
				case slot = <-p.free:
				default:
					break fill // no free slot: write what is built, then wait for one
				}
			}
			op := p.nextOpaque(slot)
			out, n, ok := p.w.request(buf, slot, op)
			if !ok || n == slotRetired {
				p.free <- slot
				done = true
				break fill
			}
			buf, batch = out, append(batch, slot)
			st := &p.slots[slot]
			st.opaque.Store(op)
			st.n.Store(int32(n))
			st.sentAt.Store(next) // latency from the due time
			if p.run.measuring.Load() {
				p.lag.record(p.run.now() - next)
			}
			next += interval
			now = p.run.now()
		}
		if len(batch) > 0 {
			p.inflight.Add(int64(len(batch)))
			if _, err := p.nc.Write(buf); err != nil {
				p.die(fmt.Errorf("write: %w", err))
				return
			}
		}
		if done {
			return
		}
	}
}

// sleepUntil blocks until the run clock reaches t (run.now units), waking early when the
// run stops or the connection dies; false then.
func (p *pipe) sleepUntil(t int64) bool {
	for {
		select {
		case <-p.run.stopCh:
			return false
		case <-p.dead:
			return false
		default:
		}
		d := t - p.run.now()
		if d <= 0 {
			return true
		}
		// At most 10 ms at a time, so that a stop is noticed soon.
		ts := syscall.NsecToTimespec(min(d, int64(10*time.Millisecond)))
		_ = syscall.Nanosleep(&ts, nil) // EINTR: just look again
	}
}
