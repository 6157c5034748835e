package store

// Lazily reserved files: ConsumeQueue and IndexFile (Java creates both sparse).
//
// A ConsumeQueue file is 6,000,000 bytes and an IndexFile 420,000,040, and most of them
// stay mostly empty: a broker with 1024 queues and a few thousand messages used to hold
// 6 GB of fallocated ConsumeQueue blocks and 400 MB of index for a few MB of data. These
// files are now created at their full size but sparse (ftruncate), with only their first
// bytes reserved; the writer (the dispatcher) reserves the next blocks with fallocate just
// before it writes there (ensure), 16 KiB first, then doubling up to 1 MiB at a time. A
// write through the mapping therefore still lands only on reserved blocks: a full disk
// is an ENOSPC from fallocate, which dispatch reports and retries, never a SIGBUS, as
// with the CommitLog (doc.go). An IndexFile reserves its header and hash-slot table
// (20 MB with the default 5,000,000 slots) when created, since slots are written at
// random, and its entries lazily.
//
// Creating a ConsumeQueue file does no fsync on the dispatcher (it cost fallocate + two
// fsyncs, 5-30 ms on a busy disk, per new file): the queue marks its directories, and
// the ConsumeQueue flush syncs them before it persists a checkpoint that relies on the
// file (syncDirs). The file is still made under a temporary name and renamed, so a crash
// leaves either no file, a .tmp that load removes, or a whole-size file.

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

const (
	lazyGrowMin = 16 << 10 // the first reservation of a ConsumeQueue file (819 units), and the least step
	lazyGrowMax = 1 << 20  // the most one step reserves
)

func pageUp(n int64) int64 { return (n + osPageSize - 1) &^ (osPageSize - 1) }

// createLazyFile creates a sparse file of size bytes with [0, reserve) reserved, without
// fsync (see above).
func createLazyFile(dir, name string, from int64, size int, reserve int64, alloc allocFunc) (*mappedFile, error) {
	reserve = min(pageUp(reserve), int64(size))
	mf, err := createMappedFile(dir, name, from, size, func(f *os.File) error {
		if err := f.Truncate(int64(size)); err != nil {
			return err
		}
		return alloc(f, 0, reserve)
	}, false)
	if err != nil {
		return nil, err
	}
	mf.alloc, mf.allocated, mf.allocBase = alloc, reserve, reserve
	return mf, nil
}

// lazyLoaded makes a loaded file lazily reserved: from its write position on, which the
// recovery sets before the writer first calls ensure.
func (mf *mappedFile) lazyLoaded(alloc allocFunc) {
	mf.alloc, mf.allocated, mf.allocBase = alloc, -1, 0
}

// ensure reserves the file's blocks up to end (at most its size) before the writer writes
// there. It returns ErrCreateMappedFile (wrapping the cause, e.g. ENOSPC) when they cannot
// be reserved; nothing is written then.
func (mf *mappedFile) ensure(end int64) error {
	if mf.alloc == nil || end <= mf.allocated {
		return nil
	}
	from := mf.allocated
	if from < 0 {
		// A loaded file: the page holding the write position holds data, so it has its
		// block; reserving from the next page never covers stored bytes (preallocate's
		// fallback writes zeros).
		from = pageUp(mf.wrote.Load())
		if end <= from {
			mf.allocated = from
			return nil
		}
	}
	step := min(max(from-mf.allocBase, lazyGrowMin), lazyGrowMax)
	to := min(pageUp(max(end, from+step)), int64(mf.size))
	if to <= from {
		return nil
	}
	f, err := os.OpenFile(mf.path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCreateMappedFile, err)
	}
	defer f.Close()
	if err := mf.alloc(f, from, to-from); err != nil {
		return fmt.Errorf("%w: reserve %s [%d, %d): %w", ErrCreateMappedFile, mf.path, from, to, err)
	}
	mf.allocated = to
	return nil
}

// reserveExisting reserves [off, off+n) of a loaded file with fallocate only: the range
// may hold data (an IndexFile's slot table), which the zero-writing fallback would
// destroy. Where fallocate is unsupported the range stays as it is, sparse as Java leaves it.
func reserveExisting(path string, off, n int64) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer f.Close()
	_ = syscall.Fallocate(int(f.Fd()), 0, off, n)
}

// syncDirs fsyncs the directories in which lazily created files appeared (and their new
// parents), once each, and clears the marks (ConsumeQueue flush, before the checkpoint).
func syncDirs(queues []*consumeQueue) error {
	done := map[string]bool{}
	var first error
	for _, cq := range queues {
		levels := int(cq.q.dirsToSync.Swap(0))
		dir := cq.q.dir
		for i := 0; i < levels; i++ {
			if !done[dir] {
				done[dir] = true
				if err := syncDir(dir); err != nil && first == nil {
					first = fmt.Errorf("store: sync %s: %w", dir, err)
					cq.q.dirsToSync.Store(int32(levels)) // try again next time
				}
			}
			dir = filepath.Dir(dir)
		}
	}
	return first
}
