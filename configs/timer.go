package configs

import (
	"fmt"
	"strconv"
)

// Timer is the Skyrocket extension for the 5.x timer messages (TIMER_DELIVER_MS,
// TIMER_DELAY_SEC, TIMER_DELAY_MS): Java 5.x's MessageStoreConfig names and defaults.
// The keys are not Java 4.9.8 properties, so they are read from the file's properties
// (Broker.FileProps) and stay out of MessageStoreConfig, whose -p output equals Java's.
type Timer struct {
	// timerWheelEnable (5.x) and timerEnable (Skyrocket): both on by default; either
	// off and the properties are ignored, as a 4.x broker ignores them.
	Enable bool
	// timerPrecisionMs: slot width, rounded down to 100, 200, 500 or 1000 (5.x).
	PrecisionMs int64
	// timerMaxDelaySec: the longest accepted delay (5.x: 3 days).
	MaxDelaySec int64
	// mappedFileSizeTimerLog: bytes of one timerlog segment (5.x: 100 MiB).
	SegmentSize int64
}

// Timer property keys.
const (
	KeyTimerWheelEnable       = "timerWheelEnable"
	KeyTimerEnable            = "timerEnable"
	KeyTimerPrecisionMs       = "timerPrecisionMs"
	KeyTimerMaxDelaySec       = "timerMaxDelaySec"
	KeyMappedFileSizeTimerLog = "mappedFileSizeTimerLog"
)

// IsTimerKey reports whether k is one of the timer keys.
func IsTimerKey(k string) bool {
	switch k {
	case KeyTimerWheelEnable, KeyTimerEnable, KeyTimerPrecisionMs, KeyTimerMaxDelaySec, KeyMappedFileSizeTimerLog:
		return true
	}
	return false
}

// DefaultTimer is Java 5.x's defaults.
func DefaultTimer() Timer {
	return Timer{Enable: true, PrecisionMs: 1000, MaxDelaySec: 3 * 24 * 3600, SegmentSize: 100 << 20}
}

// TimerFrom reads the timer keys of props over the defaults. A value that does not
// parse, or is not positive, is ErrInvalidValue.
func TimerFrom(props map[string]string) (Timer, error) {
	t := DefaultTimer()
	for _, k := range []string{KeyTimerWheelEnable, KeyTimerEnable} {
		if v, ok := props[k]; ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return t, fmt.Errorf("%w: %s=%q", ErrInvalidValue, k, v)
			}
			t.Enable = t.Enable && b
		}
	}
	for _, f := range []struct {
		k   string
		dst *int64
	}{{KeyTimerPrecisionMs, &t.PrecisionMs}, {KeyTimerMaxDelaySec, &t.MaxDelaySec}, {KeyMappedFileSizeTimerLog, &t.SegmentSize}} {
		if v, ok := props[f.k]; ok {
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n <= 0 {
				return t, fmt.Errorf("%w: %s=%q", ErrInvalidValue, f.k, v)
			}
			*f.dst = n
		}
	}
	return t, nil
}
