package main

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// stallProxy forwards connections to backend; once, stallAfter into the first
// connection, it holds the server's answers back for stall (a server pause as a client
// sees it).
func stallProxy(t *testing.T, backend string, stallAfter, stall time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	var once sync.Once
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b, err := net.Dial("tcp", backend)
			if err != nil {
				c.Close()
				return
			}
			start := time.Now()
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, _ = io.Copy(b, c)
				b.Close()
			}()
			go func() {
				defer wg.Done()
				defer c.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := b.Read(buf)
					if n > 0 && time.Since(start) > stallAfter {
						once.Do(func() { time.Sleep(stall) }) // the simulated pause, not a wait
					}
					if n > 0 {
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestProduce_Rate_StallShowsInPercentiles: at a fixed rate, a 300 ms pause of the
// server's answers delays every request due during it, and each is timed from its due
// time: about a quarter of the requests of a 1.2 s run wait 0-300 ms, so p90 is tens
// of milliseconds. A closed loop with one request in flight would have timed one slow
// request (coordinated omission). The rate is kept: about rate x duration requests.
func TestProduce_Rate_StallShowsInPercentiles(t *testing.T) {
	nb := startNull(t)
	addr := stallProxy(t, nb.Addr(), 400*time.Millisecond, 300*time.Millisecond)
	r := mustRun(t, "produce", "-b", addr, "-rate", "1000", "-c", "2", "-w", "1024", "-d", "1200ms", "-s", "128", "-timeout", "5s")
	noErrors(t, r)
	if r.Settings["rate"] != "1000" {
		t.Fatalf("settings %v", r.Settings)
	}
	if r.Messages < 1000 || r.Messages > 1400 {
		t.Fatalf("%d messages in %.2f s at -rate 1000", r.Messages, r.Seconds)
	}
	l := r.Latency
	if l == nil || l.P90 < 20 || l.Max < 250 || l.P9999 < l.P999 || l.P999 < l.P99 {
		t.Fatalf("latency %+v: the stall's waiting requests are not all counted", l)
	}
	if r.ScheduleLag == nil || int64(r.ScheduleLag.Count) != r.Requests {
		t.Fatalf("schedule lag %+v for %d requests", r.ScheduleLag, r.Requests)
	}
}

// TestProduce_Rate_WindowFull_KeepsSchedule: with one request in flight and a server
// that cannot keep up with the rate's spacing for a while, requests still count from
// their due times and go out as soon as the window allows (schedule lag grows), and the
// run still ends with every answer accounted for.
func TestProduce_Rate_WindowFull_KeepsSchedule(t *testing.T) {
	nb := startNull(t)
	addr := stallProxy(t, nb.Addr(), 100*time.Millisecond, 200*time.Millisecond)
	r := mustRun(t, "produce", "-b", addr, "-rate", "500", "-c", "1", "-w", "1", "-d", "600ms", "-s", "128", "-timeout", "5s")
	noErrors(t, r)
	if r.ScheduleLag == nil || r.ScheduleLag.Max < 150 {
		t.Fatalf("schedule lag %+v: the sender waited for the window for ~200 ms", r.ScheduleLag)
	}
	if r.Latency == nil || r.Latency.P90 < 20 {
		t.Fatalf("latency %+v", r.Latency)
	}
}

func TestProduce_Rate_Usage(t *testing.T) {
	for _, args := range [][]string{
		{"-b", "127.0.0.1:1", "-rate", "-5"},
		{"-b", "127.0.0.1:1", "-rate", "100", "-kind", "oneway"},
		{"-b", "127.0.0.1:1", "-rate", "100", "-kind", "tx"},
	} {
		if _, _, err := modeResult(t.Context(), "produce", args, io.Discard); err == nil {
			t.Errorf("%v: no usage error", args)
		}
	}
}
