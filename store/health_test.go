package store

import "testing"

// TestRecover_Progress_ReportsEveryStageToTheEnd: a crashed store spanning several
// CommitLog files reports its recovery as it goes: the ConsumeQueues, each CommitLog
// file scanned (from the checkpointed one) with its bytes (never decreasing, never past the total), the replay, and
// a final "recovered" with everything done.
func TestRecover_Progress_ReportsEveryStageToTheEnd(t *testing.T) {
	c := testConfig(t)
	rs := crashedStore(t, c, 2000)
	var got []RecoveryProgress
	c.OnRecoveryProgress = func(p RecoveryProgress) { got = append(got, p) }
	s := openStore(t, c)
	defer s.Close()
	want := rs[len(rs)-1].WroteOffset + int64(rs[len(rs)-1].WroteBytes)
	min := s.MinPhyOffset()
	checkRecovered(t, s, 2000, want)
	stages := map[string]int{}
	var lastScan int64 = -1
	for _, p := range got {
		stages[p.Stage]++
		if p.FilesDone > p.FilesTotal || p.BytesDone > p.BytesTotal {
			t.Errorf("progress past its total: %+v", p)
		}
		if p.Stage == "commitlog" {
			if p.BytesDone < lastScan {
				t.Errorf("scan progress went back: %+v after %d", p, lastScan)
			}
			lastScan = p.BytesDone
		}
	}
	if len(got) == 0 || got[0].Stage != "consumequeue" || got[len(got)-1].Stage != "recovered" {
		t.Fatalf("progress %+v", got)
	}
	end := got[len(got)-1]
	if end.FilesDone != end.FilesTotal || end.BytesDone != end.BytesTotal || end.BytesTotal != want-min {
		t.Errorf("final progress %+v, CommitLog %d..%d", end, min, want)
	}
	if stages["commitlog"] < 1 || stages["replay"] < 1 || end.FilesTotal < 2 {
		t.Errorf("stages %v, final %+v: want a scan, a replay and several CommitLog files of %d bytes", stages, end, c.MappedFileSizeCommitLog)
	}
}
