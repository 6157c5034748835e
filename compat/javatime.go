package compat

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Java's UtilAll formats its timestamps in the JVM's default time zone; Go's time.Local
// is the same zone (both read TZ, else /etc/localtime).

// TimeMillisToHumanString formats ms (Unix milliseconds) as yyyyMMddHHmmssSSS in local
// time (Java: UtilAll.timeMillisToHumanString). IndexFile names use it.
func TimeMillisToHumanString(ms int64) string {
	return timeMillisToHumanString(ms, time.Local)
}

func timeMillisToHumanString(ms int64, loc *time.Location) string {
	t := time.UnixMilli(ms).In(loc)
	return fmt.Sprintf("%04d%02d%02d%02d%02d%02d%03d", t.Year(), int(t.Month()), t.Day(),
		t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1e6)
}

// TimeMillisToHumanString2 formats ms as "yyyy-MM-dd HH:mm:ss,SSS" in local time (Java:
// UtilAll.timeMillisToHumanString2), as in the remark "broker unable to service, until %s".
func TimeMillisToHumanString2(ms int64) string {
	return timeMillisToHumanString2(ms, time.Local)
}

func timeMillisToHumanString2(ms int64, loc *time.Location) string {
	t := time.UnixMilli(ms).In(loc)
	return fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d,%03d", t.Year(), int(t.Month()), t.Day(),
		t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1e6)
}

// FormatDateMillis formats ms as "yyyy-MM-dd#HH:mm:ss:SSS" in local time (Java:
// UtilAll.formatDate(date, UtilAll.YYYY_MM_DD_HH_MM_SS_SSS)), as QueueTimeSpan's
// *TimeStampStr getters do.
func FormatDateMillis(ms int64) string {
	return formatDateMillis(ms, time.Local)
}

func formatDateMillis(ms int64, loc *time.Location) string {
	t := time.UnixMilli(ms).In(loc)
	return fmt.Sprintf("%04d-%02d-%02d#%02d:%02d:%02d:%03d", t.Year(), int(t.Month()), t.Day(),
		t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1e6)
}

// TimeMillisToHumanString3 formats ms as yyyyMMddHHmmss in local time (Java:
// UtilAll.timeMillisToHumanString3).
func TimeMillisToHumanString3(ms int64) string {
	return timeMillisToHumanString3(ms, time.Local)
}

func timeMillisToHumanString3(ms int64, loc *time.Location) string {
	t := time.UnixMilli(ms).In(loc)
	return fmt.Sprintf("%04d%02d%02d%02d%02d%02d", t.Year(), int(t.Month()), t.Day(),
		t.Hour(), t.Minute(), t.Second())
}

// ParseYYYYMMDDHHMMSS parses "yyyyMMddHHmmss" (Java: UtilAll.YYYYMMDDHHMMSS, the format of
// a consumer's consumeTimestamp) in local time.
func ParseYYYYMMDDHHMMSS(s string) (time.Time, error) {
	t, err := time.ParseInLocation("20060102150405", s, time.Local)
	if err != nil {
		return time.Time{}, fmt.Errorf("compat: parse yyyyMMddHHmmss %q: %w", s, err)
	}
	return t, nil
}

// ComputeNextMorningTimeMillis is the Unix millisecond of the next local midnight after
// nowMs (Java: UtilAll.computeNextMorningTimeMillis, which reads the clock itself). The
// broker's daily statistics (msgPutTotalTodayMorning, StatsItem day snapshots) roll there.
func ComputeNextMorningTimeMillis(nowMs int64) int64 {
	return computeNextMorningTimeMillis(nowMs, time.Local)
}

func computeNextMorningTimeMillis(nowMs int64, loc *time.Location) int64 {
	t := time.UnixMilli(nowMs).In(loc)
	return time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc).UnixMilli()
}

// ComputeNextMinutesTimeMillis is the start of the next local minute after nowMs (Java:
// UtilAll.computeNextMinutesTimeMillis; per-minute stats snapshots).
func ComputeNextMinutesTimeMillis(nowMs int64) int64 {
	t := time.UnixMilli(nowMs).In(time.Local)
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute()+1, 0, 0, time.Local).UnixMilli()
}

// ComputeNextHourTimeMillis is the start of the next local hour after nowMs (Java:
// UtilAll.computeNextHourTimeMillis; per-hour stats snapshots).
func ComputeNextHourTimeMillis(nowMs int64) int64 {
	t := time.UnixMilli(nowMs).In(time.Local)
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, time.Local).UnixMilli()
}

// ComputeNextHalfHourTimeMillis is what Java's UtilAll.computeNextHalfHourTimeMillis
// returns: half past the NEXT hour (HH+1:30), not the next half hour — kept as Java has it.
func ComputeNextHalfHourTimeMillis(nowMs int64) int64 {
	t := time.UnixMilli(nowMs).In(time.Local)
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 30, 0, 0, time.Local).UnixMilli()
}

// IsItTimeToDo reports whether the local hour of now is one of the hours in when, a
// ';'-separated list such as deleteWhen "04" or "01;13" (Java: UtilAll.isItTimeToDo).
// Entries that are not integers never match (Java throws NumberFormatException there).
func IsItTimeToDo(when string, now time.Time) bool {
	hour := now.In(time.Local).Hour()
	for _, w := range strings.Split(when, ";") {
		if h, err := strconv.Atoi(w); err == nil && h == hour {
			return true
		}
	}
	return false
}

// Offset2FileName is the name of a CommitLog or ConsumeQueue file starting at offset: the
// offset as 20 zero-padded decimal digits (Java: UtilAll.offset2FileName).
func Offset2FileName(offset int64) string {
	return fmt.Sprintf("%020d", offset)
}
