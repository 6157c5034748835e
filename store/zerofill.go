package store

// Zero-filling the next CommitLog file (SYNC_FLUSH).
//
// A file made by fallocate has its blocks reserved but marked unwritten. On ext4 (and xfs)
// the first writeback of each page converts its extent to written, a metadata change that
// goes through the journal: under SYNC_FLUSH, where every group commit is an msync, the
// appender then waits on a locked page or a journal commit with a device cache flush (perf
// sched: filemap_fault on a locked folio, blkdev_issue_flush up to 15 ms), and the send
// p99 was 16-18 ms against a p50 of 1 ms. Writing zeros over the file before it is used
// does those conversions ahead of time. The file being created in the background
// (mappedqueue.go, prepareSpare), the fill writes a chunk, waits for it to reach the disk
// (sync_file_range), and goes on, so it never leaves a large amount of dirty page cache to
// compete with the flushes. If the appender wants the file before the fill is done, the
// fill stops at its next chunk and the rest of the file stays as fallocate left it: slower
// to flush the first time, never wrong. Measured (docs/benchmarks.md): SYNC_FLUSH p99
// 5.3-5.9 ms instead of 15.3-16.7 ms with 256 MiB files, at the cost of writing every
// CommitLog byte twice. Java's equivalent is warmMapedFileEnable (off by default there).
//
// The fill runs on a file nobody else has open or mapped yet (it is renamed into place
// after), so it can never overwrite a message.

import (
	"os"
	"syscall"
)

const zeroChunk = 4 << 20

// zeroPage is what the fill writes from. It is never written, so it stays in the binary's
// zero-filled data segment and reading it maps the kernel's shared zero page: it adds
// nothing to the process's anonymous memory (a fresh 4 MiB buffer per file did: RssAnon
// 17 MiB instead of 10 in the SYNC_FLUSH benchmark).
var zeroPage [zeroChunk]byte

// zeroFill writes zeros over the first size bytes of f, chunk by chunk, each written back
// before the next. It returns early, without error, once stop reports true.
func zeroFill(f *os.File, size int64, stop func() bool) error {
	zero := zeroPage[:]
	for off := int64(0); off < size; off += int64(len(zero)) {
		if stop() {
			return nil
		}
		n := min(int64(len(zero)), size-off)
		if _, err := f.WriteAt(zero[:n], off); err != nil {
			return err
		}
		err := syscall.SyncFileRange(int(f.Fd()), off, n, syncFileRangeWaitBefore|syncFileRangeWrite|syncFileRangeWaitAfter)
		if err != nil && err != syscall.ENOSYS && err != syscall.EINVAL {
			return err
		}
	}
	return nil
}

// sync_file_range flags (linux/fs.h).
const (
	syncFileRangeWaitBefore = 1
	syncFileRangeWrite      = 2
	syncFileRangeWaitAfter  = 4
)
