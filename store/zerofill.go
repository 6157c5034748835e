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
//
// When: only where nothing else converts the extents. On the descriptor write path (the
// SYNC_FLUSH default) the warmer writes zeros a little ahead of the write position in
// every file, the spare's first warmAhead bytes included before the roll-over (convert.go),
// so filling the whole spare there only wrote zeros a second time, at once: 1 GiB of page
// cache touched and written back within a few seconds, while group commits waited behind
// that writeback. Measured with 16 senders one send at a time (mqbench -kind sync -c 16
// -w 1, 20 s, 1 GiB files; the spare is made halfway through the first file, inside the
// run): 23.7-32.4 k msg/s with the fill against 33.9-36.4 k without it, 3 pairs, broker
// CPU per message 29-40 us against 24-26, p99 2.6-3.2 ms against 1.4-2.0. The fill stays
// for the mapped write path and wherever the warmer cannot convert (page warming off, no
// FIEMAP).

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
	write := func(b []byte, at int64) error { _, err := f.WriteAt(b, at); return err }
	for off := int64(0); off < size; off += zeroChunk {
		if stop() {
			return nil
		}
		n := min(zeroChunk, size-off)
		if err := writeZeros(write, off, n); err != nil {
			return err
		}
		err := syscall.SyncFileRange(int(f.Fd()), off, n, syncFileRangeWaitBefore|syncFileRangeWrite|syncFileRangeWaitAfter)
		if err != nil && err != syscall.ENOSYS && err != syscall.EINVAL {
			return err
		}
	}
	return nil
}

// zeroWrite is the size of each write of zeros. The page cache sizes a new folio by the
// write that creates it, and ext4 has large folios (Linux 6.16+): a 4 MiB write of zeros
// leaves folios of up to 2 MiB, and each 1 KiB append later written into one costs far
// more, in the event loop's pwrite and in the flush (most likely ext4 walking the
// folio's per-block buffers on each write; not traced). Measured on this machine
// (BenchmarkDisk_AppendAfterZeros, and a 256 MiB file filled the same way by hand):
// CPU per append 8.0-8.1 us after 4 MiB writes of zeros, 4.0 us after 1 MiB, 2.8-3.4 us
// after 64 KiB, 3.0-3.3 us after 4 or 16 KiB; and the fill itself cost 450-650 ms of CPU
// in 4 MiB writes against 55-63 ms in 64 KiB ones. Small folios are what a record-sized
// writer wants.
const zeroWrite = 64 << 10

// writeZeros writes n zeros at off through write in zeroWrite pieces (see zeroWrite).
func writeZeros(write func([]byte, int64) error, off, n int64) error {
	for n > 0 {
		k := min(n, zeroWrite)
		if err := write(zeroPage[:k], off); err != nil {
			return err
		}
		off += k
		n -= k
	}
	return nil
}

// sync_file_range flags (linux/fs.h).
const (
	syncFileRangeWaitBefore = 1
	syncFileRangeWrite      = 2
	syncFileRangeWaitAfter  = 4
)
