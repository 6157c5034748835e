//go:build race

package timer

// raceSlack widens the on-time bound under the race detector, which slows every step
// several times on a shared machine; the conformance tests (no race detector) keep the
// precision + 100 ms bound.
const raceSlack = 1000
