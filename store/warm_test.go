package store

import (
	"syscall"
	"testing"
	"unsafe"
)

// The warmer brings pages into the page cache without readahead: a populate that faults
// on an uncached page of a fallocated file made the kernel zero read_ahead_kb (8 MiB on
// the benchmark machine's disk) in one fault, a 30-120 ms stall of a CPU every 8 MiB.
// After a pass, nothing beyond the warmed window is cached.
func TestWarmer_NoReadaheadBeyondWindow(t *testing.T) {
	c := testConfig(t)
	c.MappedFileSizeCommitLog = 64 << 20
	s := openStore(t, c)
	defer s.Close()
	if s.fdWrite {
		t.Skip("the descriptor write path converts extents ahead instead")
	}
	w := s.warm
	mustPut(t, s, testMessage("TopicW", 0, body(1), ""))
	w.warmOnce()
	if w.noMadv.Load() {
		t.Skip("madvise(MADV_POPULATE_WRITE) is not supported by this kernel")
	}
	mf := s.cl.last()
	to := mf.warmTo.Load()
	if to == 0 || to >= int64(mf.size) {
		t.Fatalf("warmed to %d of %d", to, mf.size)
	}
	resident := func(from, n int64) int {
		vec := make([]byte, n/pageSize)
		b := mf.data[from : from+n]
		if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(n), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
			t.Fatalf("mincore: %v", e)
		}
		k := 0
		for _, v := range vec {
			k += int(v & 1)
		}
		return k
	}
	if k := resident(0, to); k != int(to/pageSize) {
		t.Errorf("%d of %d pages of the warmed window are resident", k, to/pageSize)
	}
	ahead := min(int64(8<<20), int64(mf.size)-to)
	if k := resident(to, ahead); k != 0 {
		t.Errorf("%d pages beyond the warmed window (%d) are resident: the warmer read ahead", k, to)
	}
}
