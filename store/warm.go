package store

// Keeping page faults and file creation off the append path (Java: AllocateMappedFileService
// and warmMappedFile, which Java leaves off by default).
//
// Writing a record into a page of the mapped CommitLog for the first time faults the page in
// (the kernel allocates and zeroes it). Under load that was a third of the broker's CPU, paid
// on the network event loop under the append lock. The warmer goroutine keeps the pages ahead
// of the write position populated with madvise(MADV_POPULATE_WRITE), which faults them in
// without changing their content, so appends find them ready. Where the kernel lacks it
// (Linux < 5.14) the warmer reads one byte per page instead, which brings the page into the
// page cache and leaves only a cheap write fault.
//
// Creating a CommitLog file (fallocate, fsync, mmap, rename, fsync of the directory) took
// 0.2-0.4 s on a busy disk, also under the append lock. The warmer has the queue create the
// next file in the background once the current one is half written (prepareSpareWhenFilled;
// this goroutine runs for that even with page warming off), under its final name as Java
// does; the append path takes it when the current file fills. A spare beyond the recovered end is
// removed by recovery (truncateDirty), as Java's is, and Close removes it.

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const (
	madvPopulateRead  = 22 // MADV_POPULATE_READ (Linux 5.14+)
	madvPopulateWrite = 23 // MADV_POPULATE_WRITE (Linux 5.14+)
	warmAhead         = 16 << 20
	warmChunk         = 4 << 20
	pageSize          = 4096
	// fillStep is how much one pread/madvise pair of the warmer brings in (see fill).
	fillStep = 256 << 10
)

// warmer populates CommitLog pages ahead of the write position.
type warmer struct {
	q        *mappedQueue
	kick     chan struct{}
	stop     chan struct{}
	noMadv   atomic.Bool
	faulted  atomic.Int64  // bytes populated, for tests and stats
	sink     atomic.Uint32 // the read-touch fallback stores what it read here
	disabled bool
	// forRead populates for reading (MADV_POPULATE_READ) on the descriptor write path:
	// pwrite needs the page in the page cache, not mapped writable, and a write-populated
	// page would only be dirtied and written back for nothing.
	forRead bool
	// convert: on the descriptor write path, also write zeros over unwritten extents
	// ahead of the write position (convert.go); cleared if FIEMAP is not supported.
	convert   atomic.Bool
	converted atomic.Int64 // bytes of zeros written by the conversion

	// fillMu guards what follows: read-only descriptors of the files the warmer warms
	// (the current and the spare CommitLog file), opened with POSIX_FADV_RANDOM, and
	// the buffer fill reads into. Held by warmOnce throughout (tests call it too) and
	// by closeFDs; a leaf lock.
	fillMu  sync.Mutex
	fds     [2]warmFD
	uses    int64
	scratch []byte
}

type warmFD struct {
	mf   *mappedFile
	f    *os.File
	used int64 // w.uses at the last use
}

func newWarmer(q *mappedQueue, stop chan struct{}) *warmer {
	return &warmer{q: q, kick: make(chan struct{}, 1), stop: stop}
}

// wake asks the warmer to look again; it never blocks.
func (w *warmer) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// converting reports whether the warmer writes zeros over unwritten extents ahead of the
// write position (convert.go): on the descriptor write path with warming on, until FIEMAP
// proves unsupported.
func (w *warmer) converting() bool { return !w.disabled && w.convert.Load() }

// needed reports whether the file's populated window has fallen behind pos: one atomic
// load on the append path.
func (w *warmer) needed(mf *mappedFile, pos int64) bool {
	return !w.disabled && mf.warmTo.Load() < pos+warmAhead/2 && mf.warmTo.Load() < int64(mf.size)
}

func (w *warmer) run(wg *sync.WaitGroup) {
	defer wg.Done()
	defer w.closeFDs()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-w.kick:
		case <-t.C:
		}
		w.warmOnce()
	}
}

// warmOnce populates the current file up to warmAhead past its write position, and the
// start of the spare file when the current one is nearly full.
func (w *warmer) warmOnce() {
	w.q.prepareSpareWhenFilled()
	if w.disabled {
		return
	}
	w.fillMu.Lock()
	defer w.fillMu.Unlock()
	mf := w.q.last()
	if mf == nil || !mf.hold() {
		return
	}
	defer mf.release()
	// madvise wants a page-aligned start, and each pass starts where the last one ended:
	// keep warmTo on page boundaries (an unaligned one made every call after the first
	// fail with EINVAL, and the warmer fall back for good).
	target := min((mf.wrote.Load()+warmAhead+pageSize-1)&^(pageSize-1), int64(mf.size))
	if w.convert.Load() && mf.fd != nil && !w.convertTo(mf, target) {
		w.convert.Store(false)
	}
	for from := mf.warmTo.Load(); from < target; from = mf.warmTo.Load() {
		to := min(from+warmChunk, target)
		w.populate(mf, from, to)
		mf.warmTo.Store(to)
		w.faulted.Add(to - from)
	}
	if spare := w.q.spareFile(); spare != nil && int64(mf.size)-mf.wrote.Load() < warmAhead && spare.hold() {
		if w.convert.Load() && spare.fd != nil && !w.convertTo(spare, min(int64(warmAhead), int64(spare.size))) {
			w.convert.Store(false)
		}
		if to := min(int64(warmAhead), int64(spare.size)); spare.warmTo.Load() < to {
			w.populate(spare, spare.warmTo.Load(), to)
			spare.warmTo.Store(to)
		}
		spare.release()
	}
}

// populate brings mf's bytes [from, to) into the page cache and maps them, in steps of
// fillStep: for each, fill reads it (no readahead), then madvise populates the mapping.
//
// Why the two steps: a populate that faults on a page not yet cached makes the kernel
// read around it, ra_pages (this disk's read_ahead_kb, 8 MiB here) at once, and for a
// CommitLog file's unwritten extents that is 8 MiB of zeroing inside one page fault:
// 30-120 ms without a preemption point, on one of two CPUs, while the Go thread in the
// syscall still holds its P (sysmon takes it back only after up to ~20 ms). Under
// SYNC_MASTER the appender, the HA writer, the ack reader and the answers all stalled
// behind it every 8 MiB on master and slave (docs/benchmarks.md, "Where Skyrocket's
// SYNC_MASTER time goes"). Reading through a descriptor marked POSIX_FADV_RANDOM reads
// exactly the step, so each syscall does a bounded amount of work.
func (w *warmer) populate(mf *mappedFile, from, to int64) {
	for from < to {
		n := min(to-from, fillStep)
		w.fill(mf, from, n)
		w.madvise(mf.data[from : from+n])
		from += n
	}
}

// fill reads mf's bytes [off, off+n) through the warmer's own descriptor, which puts
// them in the page cache without readahead. Errors are ignored: the madvise that
// follows still populates, only with readahead.
func (w *warmer) fill(mf *mappedFile, off, n int64) {
	if w.forRead {
		// The descriptor write path (SYNC_FLUSH) converts the extents ahead with
		// written zeros first (convert.go): nothing to read around there.
		return
	}
	f := w.fdFor(mf)
	if f == nil {
		return
	}
	if w.scratch == nil {
		w.scratch = make([]byte, fillStep)
	}
	if off >= mf.wrote.Load()+fillStep {
		// Drop what an earlier fault's readahead cached here (clean, unmapped pages:
		// nothing written, nothing populated). Such a window carries a readahead mark,
		// and reading a marked page starts the next 8 MiB window, which marks the one
		// after: a chain that would keep the big zeroing going in this goroutine.
		_, _, _ = syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), uintptr(off), uintptr(n), fadvDontNeed, 0, 0)
	}
	_, _ = f.ReadAt(w.scratch[:n], off)
}

// fdFor returns the warmer's read-only descriptor of mf, opening it (with
// POSIX_FADV_RANDOM) on first use; nil when it cannot. It keeps two: the current
// file and the spare.
func (w *warmer) fdFor(mf *mappedFile) *os.File {
	w.uses++
	for i := range w.fds {
		if w.fds[i].mf == mf {
			w.fds[i].used = w.uses
			return w.fds[i].f
		}
	}
	slot := &w.fds[0] // the least recently used
	if w.fds[1].used < slot.used {
		slot = &w.fds[1]
	}
	if slot.f != nil {
		_ = slot.f.Close()
	}
	*slot = warmFD{mf: mf, used: w.uses}
	f, err := os.Open(mf.path)
	if err != nil {
		return nil // a file being removed: nothing worth warming
	}
	_, _, e := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvRandom, 0, 0)
	if e != 0 {
		_ = f.Close()
		return nil
	}
	slot.f = f
	return f
}

func (w *warmer) closeFDs() {
	w.fillMu.Lock()
	defer w.fillMu.Unlock()
	for i := range w.fds {
		if w.fds[i].f != nil {
			_ = w.fds[i].f.Close()
		}
		w.fds[i] = warmFD{}
	}
}

const (
	fadvRandom   = 1 // POSIX_FADV_RANDOM
	fadvDontNeed = 4 // POSIX_FADV_DONTNEED
)

func (w *warmer) madvise(b []byte) {
	if len(b) == 0 {
		return
	}
	if !w.noMadv.Load() {
		advice := uintptr(madvPopulateWrite)
		if w.forRead {
			advice = madvPopulateRead
		}
		_, _, e := syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), advice)
		if e == 0 {
			return
		}
		if errors.Is(e, syscall.EINVAL) {
			w.noMadv.Store(true)
		} else {
			return // ENOMEM, EFAULT...: leave the faults to the appender
		}
	}
	var sink byte
	for i := 0; i < len(b); i += pageSize {
		sink += b[i] // a read fault maps the page-cache page
	}
	w.sink.Store(uint32(sink)) // keeps the loads: without a use the compiler drops the loop
}
