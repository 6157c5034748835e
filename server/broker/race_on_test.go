//go:build race

package broker

// raceEnabled: the race detector multiplies CPU time; cost tests skip under it.
const raceEnabled = true
