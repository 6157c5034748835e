//go:build !race

package timer

const raceSlack = 0
