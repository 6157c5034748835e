package schedule

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// defaultMessageDelayLevel is MessageStoreConfig#messageDelayLevel's default.
const defaultMessageDelayLevel = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"

// ErrBadDelayLevel is returned when messageDelayLevel has an entry that is not a number
// followed by one of the units s, m, h, d (Java's parseDelayLevel fails, the store does
// not load and the broker does not start).
var ErrBadDelayLevel = errors.New("broker: bad messageDelayLevel")

// ParseLevels parses messageDelayLevel into the delay of each level, level 1 first
// (Java: ScheduleMessageService#parseDelayLevel). Java splits on single spaces with
// String#split, which drops trailing empty fields but fails on any other empty one; so
// does this. An empty string means the default table.
func ParseLevels(s string) ([]time.Duration, error) {
	if s == "" {
		s = defaultMessageDelayLevel
	}
	fields := strings.Split(s, " ")
	for len(fields) > 0 && fields[len(fields)-1] == "" {
		fields = fields[:len(fields)-1]
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("%w: %q has no levels", ErrBadDelayLevel, s)
	}
	out := make([]time.Duration, 0, len(fields))
	for i, f := range fields {
		if len(f) < 2 {
			return nil, fmt.Errorf("%w: level %d is %q", ErrBadDelayLevel, i+1, f)
		}
		var unit time.Duration
		switch f[len(f)-1] {
		case 's':
			unit = time.Second
		case 'm':
			unit = time.Minute
		case 'h':
			unit = time.Hour
		case 'd':
			unit = 24 * time.Hour
		default:
			return nil, fmt.Errorf("%w: level %d is %q (units are s, m, h, d)", ErrBadDelayLevel, i+1, f)
		}
		n, err := strconv.ParseInt(f[:len(f)-1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: level %d is %q: %w", ErrBadDelayLevel, i+1, f, err)
		}
		out = append(out, time.Duration(n)*unit)
	}
	return out, nil
}
