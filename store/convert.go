package store

// Converting fallocate's unwritten extents ahead of the write position (descriptor write
// path, SYNC_FLUSH).
//
// fallocate reserves a file's blocks but marks its extents unwritten. The first time a
// block is written back, ext4 (and xfs) converts its extent to written: a metadata change
// that goes through the journal, so an fdatasync covering it also waits for a journal
// commit. With one small flush per group commit, every flush paid that: 1 KiB made durable
// by pwrite + fdatasync took 1.05-1.36 ms in a fallocated file against 0.23-0.30 ms in a
// zero-filled one (BenchmarkDisk_Durable1KiB). The spare file is zero-filled before use
// (zerofill.go), but the first file of a store, and any file the appender takes before its
// fill ended, are not. So on the descriptor write path the warmer writes zeros over the
// unwritten extents a little ahead of the write position, one chunk at a time, and
// fdatasyncs each chunk (the conversion and its journal commit happen there, off the
// append path). FIEMAP says which ranges are unwritten; zero-filled files are skipped.
//
// The zeros must never land on a record. mappedFile.zeroTo is the frontier: below it the
// warmer never writes. The warmer writes only at or past max(zeroTo, the write position
// rounded up to a page) and holds mappedFile.zeroMu while it does; the appender takes
// zeroMu only when its write reaches past zeroTo (it has caught up with the warmer, or
// the warmer has not started), and then moves zeroTo past its write before releasing it.

import (
	"os"
	"sync"
	"syscall"
	"unsafe"
)

const convertChunk = 1 << 20

// convertZeros is what the conversion writes. Never written, it stays in the zero-filled
// data segment and costs no memory.
var convertZeros [convertChunk]byte

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
	var direct *os.File // O_DIRECT descriptor of mf, opened at the first chunk to convert
	noDirect := false
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
			if direct == nil && !noDirect {
				direct, noDirect = openDirect(mf.path)
				if direct != nil {
					defer direct.Close()
				}
			}
			if err := writeZeros(mf, direct, from, to-from); err != nil {
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

// The zeros go through an O_DIRECT descriptor when the filesystem takes one: written
// through the page cache, they were 1 MiB of dirty pages that the next group commit's
// fdatasync (which writes back every dirty page of the file) wrote and waited for, a
// stall of several milliseconds for every send in flight about nine times a second at
// 16 senders. A direct write leaves no dirty page behind (the kernel drops the range from
// the page cache; the warmer populates it again right after), so a group commit at most
// shares the conversion's journal commit. Where O_DIRECT is refused (tmpfs) or a direct
// write fails, the zeros go through the shared descriptor as before.
var directZeros struct {
	once sync.Once
	buf  []byte // convertChunk zero bytes, page-aligned (an anonymous mapping)
}

// openDirect opens path for direct writes; noDirect is true when it cannot.
func openDirect(path string) (f *os.File, noDirect bool) {
	directZeros.once.Do(func() {
		b, err := syscall.Mmap(-1, 0, convertChunk, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err == nil {
			directZeros.buf = b
		}
	})
	if directZeros.buf == nil {
		return nil, true
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_DIRECT, 0)
	if err != nil {
		return nil, true
	}
	return f, false
}

// writeZeros writes n zero bytes at off of mf: through direct when it is not nil and
// the range is aligned for it, else through mf's descriptor (into the page cache).
func writeZeros(mf *mappedFile, direct *os.File, off, n int64) error {
	if direct != nil && off%pageSize == 0 && n%pageSize == 0 && n <= int64(len(directZeros.buf)) {
		b := directZeros.buf[:n]
		for len(b) > 0 {
			k, err := syscall.Pwrite(int(direct.Fd()), b, off)
			if err == syscall.EINTR {
				continue
			}
			if err != nil || k <= 0 || k%pageSize != 0 {
				break // fall back for what is left
			}
			b, off = b[k:], off+int64(k)
		}
		if len(b) == 0 {
			return nil
		}
		n = int64(len(b))
	}
	return mf.writeAt(convertZeros[:n], off)
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
