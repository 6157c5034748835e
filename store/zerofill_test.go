package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

func TestZeroFill_WholeFileAndEarlyStop(t *testing.T) {
	const size = 2*zeroChunk + zeroChunk/2
	ff := bytes.Repeat([]byte{0xff}, size)
	for _, tc := range []struct {
		name  string
		stopA int // stop reports true from this call on
		zeros int // bytes expected zero from the start
	}{
		{"whole", 1 << 30, size},
		{"stops after the first chunk", 2, zeroChunk},
		{"stopped before starting", 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(path, ff, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			calls := 0
			if err := zeroFill(f, size, func() bool { calls++; return calls >= tc.stopA }); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != size {
				t.Fatalf("size %d", len(got))
			}
			if !bytes.Equal(got[:tc.zeros], make([]byte, tc.zeros)) {
				t.Fatal("the filled part is not all zeros")
			}
			if !bytes.Equal(got[tc.zeros:], ff[tc.zeros:]) {
				t.Fatal("bytes past where the fill stopped were changed")
			}
		})
	}
}

// unwrittenExtents reports how many of path's extents are allocated but unwritten
// (FIEMAP), and false when the filesystem cannot tell.
func unwrittenExtents(t *testing.T, path string) (int, bool) {
	t.Helper()
	const (
		fsIocFiemap        = 0xC020660B
		fiemapFlagSync     = 0x1
		fiemapExtUnwritten = 0x800
		maxExtents         = 512
		extentSize         = 56
		headerSize         = 32
	)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, headerSize+maxExtents*extentSize)
	*(*uint64)(unsafe.Pointer(&buf[0])) = 0               // fm_start
	*(*uint64)(unsafe.Pointer(&buf[8])) = ^uint64(0)      // fm_length
	*(*uint32)(unsafe.Pointer(&buf[16])) = fiemapFlagSync // fm_flags
	*(*uint32)(unsafe.Pointer(&buf[24])) = maxExtents     // fm_extent_count
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), fsIocFiemap, uintptr(unsafe.Pointer(&buf[0]))); e != 0 {
		return 0, false
	}
	n := int(*(*uint32)(unsafe.Pointer(&buf[20])))
	unwritten := 0
	for i := range min(n, maxExtents) {
		off := headerSize + i*extentSize
		if *(*uint32)(unsafe.Pointer(&buf[off+40]))&fiemapExtUnwritten != 0 {
			unwritten++
		}
	}
	return unwritten, true
}

// Under SYNC_FLUSH the pre-created next CommitLog file is zero-filled before use where
// nothing else converts its extents (the mapped write path, page warming off); on the
// descriptor write path the warmer converts ahead of the writes instead, so the spare is
// left as fallocate made it until the current file nearly fills, and then its first
// warmAhead bytes are converted before the roll-over. Under ASYNC_FLUSH nothing converts.
func TestStore_SpareCommitLog_ZeroFilledWhereNotConverted(t *testing.T) {
	for _, tc := range []struct {
		name      string
		flush     FlushDiskType
		write     CommitLogWriteMode
		noWarm    bool
		unwritten bool // right after its creation
		headDone  bool // its first warmAhead bytes converted once the current file nearly fills
	}{
		{"SYNC_FLUSH/descriptor", SyncFlush, CommitLogWriteAuto, false, true, true},
		{"SYNC_FLUSH/mapped", SyncFlush, CommitLogWriteMapped, false, false, true},
		{"SYNC_FLUSH/descriptor/no-warming", SyncFlush, CommitLogWriteAuto, true, false, true},
		{"ASYNC_FLUSH", AsyncFlush, CommitLogWriteAuto, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probe := filepath.Join(t.TempDir(), "probe")
			f, err := os.Create(probe)
			if err != nil {
				t.Fatal(err)
			}
			err = preallocate(f, 0, 1<<20)
			f.Close()
			if err != nil {
				t.Skipf("fallocate: %v", err)
			}
			if n, ok := unwrittenExtents(t, probe); !ok || n == 0 {
				t.Skip("this filesystem does not report fallocated extents as unwritten (FIEMAP)")
			}
			c := testConfig(t)
			c.MappedFileSizeCommitLog = 64 << 20 // more than warmAhead left when the spare is made
			c.FlushDiskType = tc.flush
			c.CommitLogWrite = tc.write
			c.DisablePageWarming = tc.noWarm
			s := openStore(t, c)
			defer s.Close()
			big := strings.Repeat("z", 1<<20)
			for i := 0; i < 33; i++ { // the next file is made once the first is half full
				mustPut(t, s, testMessage("ZeroFillTopic", 0, big, ""))
			}
			var spare *mappedFile
			eventually(t, 30*time.Second, "the next file pre-created", func() bool { spare = s.cl.spareFile(); return spare != nil })
			n, _ := unwrittenExtents(t, spare.path)
			if got := n > 0; got != tc.unwritten {
				t.Fatalf("%s: %d unwritten extents in the new spare file", tc.name, n)
			}
			if tc.headDone && tc.unwritten {
				for i := 0; i < 17; i++ { // less than warmAhead left in the current file
					mustPut(t, s, testMessage("ZeroFillTopic", 0, big, ""))
				}
				eventually(t, 30*time.Second, "the spare's head converted", func() bool {
					s.warm.wake()
					u, _ := hasUnwritten(spare.sysfd, 0, warmAhead)
					return !u
				})
				if u, _ := hasUnwritten(spare.sysfd, warmAhead, int64(spare.size)-warmAhead); !u {
					t.Fatal("the spare's tail was converted too: the whole file was written")
				}
			}
			b, err := os.ReadFile(spare.path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, make([]byte, len(b))) {
				t.Fatal("the spare file is not all zeros")
			}
		})
	}
}

// The page warmer keeps using madvise(MADV_POPULATE_WRITE) pass after pass: its window
// ends stay page-aligned (an unaligned end made every later call fail with EINVAL and the
// warmer fall back for good, leaving the appender to take the write faults).
func TestWarmer_StaysOnMadvise(t *testing.T) {
	c := testConfig(t)
	c.MappedFileSizeCommitLog = 64 << 20
	s := openStore(t, c)
	defer s.Close()
	w := s.warm
	for i := 0; i < 5; i++ {
		mustPut(t, s, testMessage("TopicW", 0, body(i)+strings.Repeat("x", 333*(i+1)), ""))
		w.warmOnce()
		if w.noMadv.Load() {
			if i == 0 {
				t.Skip("madvise(MADV_POPULATE_WRITE) is not supported by this kernel")
			}
			t.Fatalf("pass %d: madvise refused an unaligned window; the warmer fell back", i)
		}
	}
	if w.faulted.Load() == 0 {
		t.Fatal("nothing warmed")
	}
}
