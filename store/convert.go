package store

// Converting fallocate's unwritten extents ahead of the write position (descriptor write
// path, SYNC_FLUSH).
//
// fallocate reserves a file's blocks but marks its extents unwritten. The first time a
// block is written back, ext4 (and xfs) converts its extent to written: a metadata change
// that goes through the journal, so an fdatasync covering it also waits for a journal
// commit. With one small flush per group commit, every flush paid that: 1 KiB made durable
// by pwrite + fdatasync took 1.05-1.36 ms in a fallocated file against 0.23-0.30 ms in a
// zero-filled one (BenchmarkDisk_Durable1KiB). So on the descriptor write path the warmer
// writes zeros over the unwritten extents a little ahead of the write position, one chunk
// at a time, and fdatasyncs each chunk (the conversion and its journal commit happen
// there, off the append path), in every file: the current one, and the first warmAhead
// bytes of the spare once the current one is nearly full (warmOnce). The spare is then not
// zero-filled as a whole (zerofill.go, "When"). FIEMAP says which ranges are unwritten;
// converted ranges are skipped.
//
// The zeros must never land on a record. mappedFile.zeroTo is the frontier: below it the
// warmer never writes. The warmer writes only at or past max(zeroTo, the write position
// rounded up to a page) and holds mappedFile.zeroMu while it does; the appender takes
// zeroMu only when its write reaches past zeroTo (it has caught up with the warmer, or
// the warmer has not started), and then moves zeroTo past its write before releasing it.

import (
	"syscall"
	"unsafe"
)

const convertChunk = 1 << 20

// writeRecord writes b at pos through the descriptor; when the write reaches past the
// warmer's frontier it excludes the warmer and moves the frontier past it (see above).
func (mf *mappedFile) writeRecord(b []byte, pos int64) error {
	end := pos + int64(len(b))
	if end <= mf.zeroTo.Load() {
		return mf.writeAt(b, pos)
	}
	mf.zeroMu.Lock()
	defer mf.zeroMu.Unlock()
	err := mf.writeAt(b, pos)
	if mf.zeroTo.Load() < end {
		mf.zeroTo.Store(end)
	}
	return err
}

// convertTo writes zeros over the unwritten extents of mf between its frontier and
// target, a chunk at a time, each fdatasynced. It returns false when the filesystem
// cannot report extents (FIEMAP), so there is nothing it can do.
func (w *warmer) convertTo(mf *mappedFile, target int64) bool {
	if mf.fd == nil {
		return true
	}
	for {
		mf.zeroMu.Lock()
		from := max(mf.zeroTo.Load(), (mf.wrote.Load()+pageSize-1)&^(pageSize-1))
		if from >= target {
			mf.zeroMu.Unlock()
			return true
		}
		to := min(from+convertChunk, target)
		unwritten, ok := hasUnwritten(mf.sysfd, from, to-from)
		if !ok {
			mf.zeroMu.Unlock()
			return false
		}
		if unwritten {
			if err := writeZeros(mf.writeAt, from, to-from); err != nil { // small folios: zerofill.go
				mf.zeroMu.Unlock()
				return true // a failing disk: the appender will say so
			}
			w.converted.Add(to - from)
		}
		mf.zeroTo.Store(to)
		mf.zeroMu.Unlock()
		if unwritten {
			_ = fdatasync(mf.sysfd) // the conversion's journal commit, here rather than in a group commit
		}
		select {
		case <-w.stop:
			return true
		default:
		}
	}
}

// hasUnwritten reports whether any extent overlapping [off, off+n) of the file is
// allocated but unwritten (FIEMAP_EXTENT_UNWRITTEN); ok is false when the filesystem
// cannot tell.
func hasUnwritten(fd int, off, n int64) (unwritten, ok bool) {
	const (
		fsIocFiemap        = 0xC020660B
		fiemapExtUnwritten = 0x800
		maxExtents         = 32
		extentSize         = 56
		headerSize         = 32
	)
	var buf [headerSize + maxExtents*extentSize]byte
	*(*uint64)(unsafe.Pointer(&buf[0])) = uint64(off) // fm_start
	*(*uint64)(unsafe.Pointer(&buf[8])) = uint64(n)   // fm_length
	*(*uint32)(unsafe.Pointer(&buf[24])) = maxExtents // fm_extent_count
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), fsIocFiemap, uintptr(unsafe.Pointer(&buf[0]))); e != 0 {
		return false, false
	}
	count := int(*(*uint32)(unsafe.Pointer(&buf[20])))
	if count >= maxExtents {
		return true, true // fragmented: write the zeros, it costs a chunk
	}
	for i := range count {
		if *(*uint32)(unsafe.Pointer(&buf[headerSize+i*extentSize+40]))&fiemapExtUnwritten != 0 {
			return true, true
		}
	}
	return false, true
}
