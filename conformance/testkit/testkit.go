// Package testkit holds the helpers every package's tests share: waiting on a condition
// with a deadline, and loopback ports for servers that must know their port before they
// listen (a broker derives its VIP channel, listenPort-2, and its HA port, listenPort+1,
// and the storeHost it writes into every message, from it).
//
// It imports only the standard library, so any package's tests may use it (store and ha
// included) without an import edge of the product's code: test-only imports are outside
// DESIGN.md's table.
package testkit

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Eventually polls cond until it holds, and fails t with what if it does not within d.
// The poll starts at 1 ms and backs off to 20 ms, so a quick condition costs little
// latency and a slow one little CPU.
func Eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(pause)
		if pause < 20*time.Millisecond {
			pause *= 2
		}
	}
}

// FreePort returns a loopback TCP port that is free now. It is picked below the kernel's
// ephemeral range, so an outgoing connection of another test cannot take it between this
// call and the server's listen (ports the kernel hands out for ":0" can).
func FreePort(t testing.TB) int {
	t.Helper()
	return pick(t, nil)
}

// BrokerPort returns a loopback port p with p-2 (the broker's VIP channel) and p+1 (its
// HA port) free too.
func BrokerPort(t testing.TB) int {
	t.Helper()
	return pick(t, []int{-2, 1})
}

var (
	rangeOnce    sync.Once
	lowPort      int
	highPort     int
	handedOutMu  sync.Mutex
	handedOut    = map[int]bool{}
	ephemeralLow = "/proc/sys/net/ipv4/ip_local_port_range"
)

// portRange is [low, high): 12,000 ports below the ephemeral range (32768 by default on
// Linux; 20000–31999 then), or the ephemeral range itself if it starts too low to leave room.
func portRange() (int, int) {
	rangeOnce.Do(func() {
		lowPort, highPort = 20000, 32000
		b, err := os.ReadFile(ephemeralLow)
		if err != nil {
			return
		}
		f := strings.Fields(string(b))
		if len(f) != 2 {
			return
		}
		lo, err := strconv.Atoi(f[0])
		if err != nil {
			return
		}
		if lo-12000 >= 2048 {
			lowPort, highPort = lo-12000, lo
		} else if hi, err := strconv.Atoi(f[1]); err == nil && hi > lo {
			lowPort, highPort = lo, hi
		}
	})
	return lowPort, highPort
}

func pick(t testing.TB, also []int) int {
	t.Helper()
	lo, hi := portRange()
	for range 200 {
		p := lo + 2 + rand.IntN(hi-lo-4)
		handedOutMu.Lock()
		taken := handedOut[p]
		for _, d := range also {
			taken = taken || handedOut[p+d]
		}
		handedOutMu.Unlock()
		if taken || !free(p) {
			continue
		}
		ok := true
		for _, d := range also {
			if !free(p + d) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		// within one test binary never hand out a port (or its neighbours) twice: a server
		// another test stopped may not have closed its listener yet
		handedOutMu.Lock()
		handedOut[p] = true
		for _, d := range also {
			handedOut[p+d] = true
		}
		handedOutMu.Unlock()
		return p
	}
	t.Fatalf("no free loopback port in [%d, %d) after 200 tries", lo, hi)
	return 0
}

func free(p int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
	if err != nil {
		return false
	}
	l.Close()
	return true
}
