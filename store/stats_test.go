package store

import (
	"path/filepath"
	"strconv"
	"testing"
)

func TestStore_Stats_MatchRuntimeInfo(t *testing.T) {
	c := testConfig(t)
	c.CommitLogDir = filepath.Join(c.RootDir, "commitlog")
	ratios := map[string]float64{c.CommitLogDir: 0.25, filepath.Join(c.RootDir, "consumequeue"): 0.5, filepath.Join(c.RootDir, "index"): 0.75}
	c.diskUsedRatio = func(p string) float64 {
		if r, ok := ratios[p]; ok {
			return r
		}
		return -1
	}
	s := openStore(t, c)
	defer s.Close()

	st := s.Stats()
	if st.PutMessageTimes != 0 || st.PutMessageBytes != 0 {
		t.Fatalf("empty store: %+v", st)
	}
	if info := s.RuntimeInfo(); info["putMessageTimesTotal"] != "1" || info["putMessageSizeTotal"] != "0" {
		t.Fatalf("empty store's runtime info reports %s puts, %s bytes; want Java's max(0, 1) and 0",
			info["putMessageTimesTotal"], info["putMessageSizeTotal"])
	}
	var bytes int64
	for i := 0; i < 3; i++ {
		bytes += int64(mustPut(t, s, testMessage("T", 0, body(i), "")).WroteBytes)
	}
	st = s.Stats()
	if st.PutMessageTimes != 3 || st.PutMessageBytes != bytes || st.CommitLogMaxOffset != bytes || st.CommitLogMinOffset != 0 {
		t.Fatalf("after 3 puts of %d bytes: %+v", bytes, st)
	}
	info := s.RuntimeInfo()
	for k, want := range map[string]int64{"putMessageTimesTotal": 3, "putMessageSizeTotal": bytes, "commitLogMaxOffset": bytes,
		"bootTimestamp": st.Boot.UnixMilli(), "putMessageFailedTimes": st.PutMessageFailed} {
		if info[k] != strconv.FormatInt(want, 10) {
			t.Errorf("RuntimeInfo %s = %q, Stats says %d", k, info[k], want)
		}
	}
	if d := s.DiskUsage(); d != (DiskUsage{CommitLog: 0.25, ConsumeQueue: 0.5, Index: 0.75}) {
		t.Errorf("DiskUsage %+v", d)
	}
	if info["commitLogDiskRatio"] != "0.25" || info["consumeQueueDiskRatio"] != "0.5" {
		t.Errorf("RuntimeInfo ratios %q %q", info["commitLogDiskRatio"], info["consumeQueueDiskRatio"])
	}
}

// BenchmarkStore_Stats compares what the broker's per-second samplers pay for the put
// count: the typed Stats against rebuilding RuntimeInfo's map (two statfs calls) and
// parsing the number back, as they did before.
func BenchmarkStore_Stats(b *testing.B) {
	s := openStore(b, testConfig(b))
	defer s.Close()
	mustPut(b, s, testMessage("T", 0, "x", ""))
	b.Run("Stats", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if s.Stats().PutMessageTimes != 1 {
				b.Fatal("puts")
			}
		}
	})
	b.Run("RuntimeInfo", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if n, _ := strconv.ParseInt(s.RuntimeInfo()["putMessageTimesTotal"], 10, 64); n != 1 {
				b.Fatal("puts")
			}
		}
	})
}
