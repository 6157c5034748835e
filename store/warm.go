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

// needed reports whether the file's populated window has fallen behind pos: one atomic
// load on the append path.
func (w *warmer) needed(mf *mappedFile, pos int64) bool {
	return !w.disabled && mf.warmTo.Load() < pos+warmAhead/2 && mf.warmTo.Load() < int64(mf.size)
}

func (w *warmer) run(wg *sync.WaitGroup) {
	defer wg.Done()
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
		w.populate(mf.data[from:to])
		mf.warmTo.Store(to)
		w.faulted.Add(to - from)
	}
	if spare := w.q.spareFile(); spare != nil && int64(mf.size)-mf.wrote.Load() < warmAhead && spare.hold() {
		if w.convert.Load() && spare.fd != nil && !w.convertTo(spare, min(int64(warmAhead), int64(spare.size))) {
			w.convert.Store(false)
		}
		if to := min(int64(warmAhead), int64(spare.size)); spare.warmTo.Load() < to {
			w.populate(spare.data[spare.warmTo.Load():to])
			spare.warmTo.Store(to)
		}
		spare.release()
	}
}

func (w *warmer) populate(b []byte) {
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
