package compat

import (
	"testing"
	"time"
)

// Printed by UtilAll.timeMillisToHumanString/2/3 and offset2FileName of rocketmq-common
// 4.9.8 on Java 17, with TZ unset (UTC) and TZ=Asia/Shanghai (testdata/java/CompatGolden.java
// siblings; recorded here because they are short).
func TestTimeMillisToHumanString_JavaGolden(t *testing.T) {
	utc := time.UTC
	cst := time.FixedZone("CST", 8*3600)
	cases := []struct {
		ms           int64
		loc          *time.Location
		h1, h2, h3   string
		offsetToName string
	}{
		{0, utc, "19700101000000000", "1970-01-01 00:00:00,000", "19700101000000", "00000000000000000000"},
		{1690000000123, utc, "20230722042640123", "2023-07-22 04:26:40,123", "20230722042640", "00000001690000000123"},
		{1700000000999, utc, "20231114221320999", "2023-11-14 22:13:20,999", "20231114221320", "00000001700000000999"},
		{4102444800000, utc, "21000101000000000", "2100-01-01 00:00:00,000", "21000101000000", "00000004102444800000"},
		{0, cst, "19700101080000000", "1970-01-01 08:00:00,000", "19700101080000", ""},
		{1690000000123, cst, "20230722122640123", "2023-07-22 12:26:40,123", "20230722122640", ""},
		{1700000000999, cst, "20231115061320999", "2023-11-15 06:13:20,999", "20231115061320", ""},
	}
	for _, c := range cases {
		if got := timeMillisToHumanString(c.ms, c.loc); got != c.h1 {
			t.Errorf("timeMillisToHumanString(%d, %s) = %s, want %s", c.ms, c.loc, got, c.h1)
		}
		if got := timeMillisToHumanString2(c.ms, c.loc); got != c.h2 {
			t.Errorf("timeMillisToHumanString2(%d, %s) = %s, want %s", c.ms, c.loc, got, c.h2)
		}
		if got := timeMillisToHumanString3(c.ms, c.loc); got != c.h3 {
			t.Errorf("timeMillisToHumanString3(%d, %s) = %s, want %s", c.ms, c.loc, got, c.h3)
		}
		if c.offsetToName != "" {
			if got := Offset2FileName(c.ms); got != c.offsetToName {
				t.Errorf("Offset2FileName(%d) = %s, want %s", c.ms, got, c.offsetToName)
			}
		}
	}
	// The exported forms use time.Local.
	ms := int64(1690000000123)
	if got, want := TimeMillisToHumanString(ms), timeMillisToHumanString(ms, time.Local); got != want {
		t.Errorf("TimeMillisToHumanString = %s, want %s", got, want)
	}
	if got, want := TimeMillisToHumanString2(ms), timeMillisToHumanString2(ms, time.Local); got != want {
		t.Errorf("TimeMillisToHumanString2 = %s, want %s", got, want)
	}
	if got, want := FormatDateMillis(ms), formatDateMillis(ms, time.Local); got != want {
		t.Fatalf("FormatDateMillis = %q, want %q", got, want)
	}
	if got, want := formatDateMillis(1700000000123, time.UTC), "2023-11-14#22:13:20:123"; got != want {
		t.Fatalf("formatDateMillis UTC = %q, want %q", got, want)
	}
	if got, want := TimeMillisToHumanString3(ms), timeMillisToHumanString3(ms, time.Local); got != want {
		t.Errorf("TimeMillisToHumanString3 = %s, want %s", got, want)
	}
}

func TestParseYYYYMMDDHHMMSS_RoundTrip(t *testing.T) {
	ms := int64(1690000000000)
	s := TimeMillisToHumanString3(ms)
	got, err := ParseYYYYMMDDHHMMSS(s)
	if err != nil {
		t.Fatal(err)
	}
	if got.UnixMilli() != ms {
		t.Errorf("ParseYYYYMMDDHHMMSS(%s) = %d, want %d", s, got.UnixMilli(), ms)
	}
	for _, bad := range []string{"", "2023072204264", "20231340000000", "abcdefghijklmn"} {
		if _, err := ParseYYYYMMDDHHMMSS(bad); err == nil {
			t.Errorf("ParseYYYYMMDDHHMMSS(%q) succeeded", bad)
		}
	}
}

func TestComputeNextTimes(t *testing.T) {
	now := time.Date(2023, 7, 22, 13, 45, 12, 345e6, time.Local)
	ms := now.UnixMilli()
	cases := []struct {
		name string
		got  int64
		want time.Time
	}{
		{"morning", ComputeNextMorningTimeMillis(ms), time.Date(2023, 7, 23, 0, 0, 0, 0, time.Local)},
		{"minute", ComputeNextMinutesTimeMillis(ms), time.Date(2023, 7, 22, 13, 46, 0, 0, time.Local)},
		{"hour", ComputeNextHourTimeMillis(ms), time.Date(2023, 7, 22, 14, 0, 0, 0, time.Local)},
		{"half hour (Java: next hour + 30 min)", ComputeNextHalfHourTimeMillis(ms), time.Date(2023, 7, 22, 14, 30, 0, 0, time.Local)},
	}
	for _, c := range cases {
		if c.got != c.want.UnixMilli() {
			t.Errorf("%s: got %s, want %s", c.name, time.UnixMilli(c.got), c.want)
		}
	}
	// Month and year roll over.
	eoy := time.Date(2023, 12, 31, 23, 59, 59, 0, time.Local).UnixMilli()
	if got, want := ComputeNextMorningTimeMillis(eoy), time.Date(2024, 1, 1, 0, 0, 0, 0, time.Local).UnixMilli(); got != want {
		t.Errorf("next morning at year end = %d, want %d", got, want)
	}
	cst := time.FixedZone("CST", 8*3600)
	if got, want := computeNextMorningTimeMillis(0, cst), int64(16*3600*1000); got != want {
		t.Errorf("next morning after epoch in +08:00 = %d, want %d", got, want)
	}
}

func TestIsItTimeToDo_Hours(t *testing.T) {
	at4 := time.Date(2023, 7, 22, 4, 30, 0, 0, time.Local)
	cases := map[string]bool{"04": true, "4": true, "03": false, "01;04;13": true, "01;13": false, "x;04": true, "": false}
	for when, want := range cases {
		if got := IsItTimeToDo(when, at4); got != want {
			t.Errorf("IsItTimeToDo(%q, 04:30) = %v, want %v", when, got, want)
		}
	}
}
