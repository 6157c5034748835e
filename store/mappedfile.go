package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

const osPageSize = 4096

// mappedFile is one memory-mapped file of a queue (Java: MappedFile + ReferenceResource).
// One goroutine appends (the CommitLog appender or the dispatcher for ConsumeQueues) and
// publishes with an atomic store of wrote; readers load wrote and read below it.
//
// Lifetime: the owner holds one reference from creation. Readers hold() before touching
// data and release() after. destroy() removes the file from disk at once (the mapping
// stays valid on Linux) and drops the owner's reference; the memory is unmapped when the
// last reference goes, never under a reader.
type mappedFile struct {
	path    string
	from    int64 // global offset of byte 0 (Java: fileFromOffset)
	size    int
	data    []byte
	wrote   atomic.Int64
	flushed atomic.Int64
	storeTs atomic.Int64 // store timestamp of the last append (CommitLog files)
	warmTo  atomic.Int64 // bytes from the start already populated by the warmer (warm.go)
	refs    atomic.Int64
	live    atomic.Bool
	// firstInQueue marks the first file a ConsumeQueue created (Java: firstCreateInQueue).
	firstInQueue bool
	// fd is the open file when the queue writes through the descriptor (CommitLog, see
	// writeAt), nil otherwise; closed with the mapping on the last release.
	fd *os.File
	// sysfd is fd's descriptor number, taken once: os.File#Fd is not safe against a
	// concurrent Close, and the number stays valid until the last release closes fd.
	sysfd int
	// zeroTo and zeroMu keep the warmer's extent conversion off written records
	// (convert.go); descriptor write path only.
	zeroTo atomic.Int64
	zeroMu sync.Mutex

	// A lazily reserved file (ConsumeQueue, IndexFile; lazy.go) is sparse: its writer
	// reserves blocks just ahead of what it writes (ensure). alloc is nil for a file
	// reserved whole (CommitLog). allocated is how far blocks are reserved, -1 when not
	// known (a loaded file: from its write position on); allocBase is what its creation
	// reserved. Writer goroutine only.
	alloc     allocFunc
	allocated int64
	allocBase int64
}

// fileName is Java UtilAll#offset2FileName: the offset as 20 zero-padded digits.
func fileName(offset int64) string {
	s := strconv.FormatInt(offset, 10)
	const zeros = "00000000000000000000"
	if len(s) < 20 {
		s = zeros[:20-len(s)] + s
	}
	return s
}

// allocFunc reserves the blocks of bytes [off, off+n) of f; tests replace it.
type allocFunc func(f *os.File, off, n int64) error

// preallocate reserves the blocks of [off, off+n) on disk, so that a full disk is an
// error here and never a SIGBUS on a later write through the mapping. Where fallocate is
// not supported it writes zeros, which reserves the blocks just as well: callers only
// pass ranges that hold no data yet.
func preallocate(f *os.File, off, n int64) error {
	err := syscall.Fallocate(int(f.Fd()), 0, off, n)
	if err == nil || !(errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS)) {
		return err
	}
	zero := zeroPage[:1<<20]
	for o := off; o < off+n; o += int64(len(zero)) {
		k := min(int64(len(zero)), off+n-o)
		if _, err := f.WriteAt(zero[:k], o); err != nil {
			return err
		}
	}
	return nil
}

func mmapFile(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

// syncDir fsyncs a directory so that a create, rename or unlink in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// createMappedFile creates a file of size bytes, lets prep size and reserve it, and maps
// it. The file is built under a temporary name and renamed into place, so a crash never
// leaves a short file that would make the next Open fail. With durable, the file and the
// directory are fsynced before it returns (the CommitLog); without, the owner syncs the
// directory later, before anything it writes there is relied on (lazy.go).
func createMappedFile(dir, name string, from int64, size int, prep func(*os.File) error, durable bool) (*mappedFile, error) {
	return createMapped(dir, name, from, size, prep, durable, false)
}

// createReservedFile creates a file whose size bytes are all reserved and synced (the
// CommitLog), keeping the descriptor open in mf.fd when keepFD.
func createReservedFile(dir, name string, from int64, size int, alloc allocFunc, keepFD bool) (*mappedFile, error) {
	return createMapped(dir, name, from, size, func(f *os.File) error { return alloc(f, 0, int64(size)) }, true, keepFD)
}

// createMapped is createMappedFile keeping the descriptor open in mf.fd when keepFD.
func createMapped(dir, name string, from int64, size int, prep func(*os.File) error, durable, keepFD bool) (*mappedFile, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCreateMappedFile, err)
	}
	path := filepath.Join(dir, name)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCreateMappedFile, err)
	}
	fail := func(err error) (*mappedFile, error) {
		f.Close()
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("%w: %s: %w", ErrCreateMappedFile, path, err)
	}
	if err := prep(f); err != nil {
		return fail(err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	data, err := mmapFile(f, size)
	if err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = syscall.Munmap(data)
		return fail(err)
	}
	if durable {
		if err := syncDir(dir); err != nil {
			_ = syscall.Munmap(data)
			return fail(err)
		}
	}
	mf := newMappedFile(path, from, data)
	if keepFD {
		mf.fd, mf.sysfd = f, int(f.Fd())
	} else {
		f.Close() // the mapping outlives the descriptor
	}
	return mf, nil
}

// openMappedFile maps an existing file, which must be exactly size bytes long.
func openMappedFile(path string, from int64, size int) (*mappedFile, error) {
	return openMapped(path, from, size, false)
}

// openMapped is openMappedFile keeping the descriptor open in mf.fd when keepFD.
func openMapped(path string, from int64, size int, keepFD bool) (*mappedFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.Size() != int64(size) {
		f.Close()
		return nil, fmt.Errorf("%w: %s is %d bytes, want %d", ErrFileSize, path, st.Size(), size)
	}
	data, err := mmapFile(f, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	mf := newMappedFile(path, from, data)
	if keepFD {
		mf.fd, mf.sysfd = f, int(f.Fd())
	} else {
		f.Close() // the mapping outlives the descriptor
	}
	return mf, nil
}

func newMappedFile(path string, from int64, data []byte) *mappedFile {
	mf := &mappedFile{path: path, from: from, size: len(data), data: data, allocated: int64(len(data))}
	mf.refs.Store(1)
	mf.live.Store(true)
	return mf
}

// hold takes a reference; it fails once the file is being destroyed (Java: hold()).
func (mf *mappedFile) hold() bool {
	if !mf.live.Load() {
		return false
	}
	if mf.refs.Add(1) > 1 {
		return true
	}
	mf.refs.Add(-1)
	return false
}

// release drops a reference and unmaps on the last one.
func (mf *mappedFile) release() {
	if mf.refs.Add(-1) == 0 {
		_ = syscall.Munmap(mf.data)
		if mf.fd != nil {
			_ = mf.fd.Close()
		}
	}
}

// shutdown drops the owner's reference once; readers keep the mapping alive.
func (mf *mappedFile) shutdown() {
	if mf.live.CompareAndSwap(true, false) {
		mf.release()
	}
}

// destroy deletes the file and drops the owner's reference.
func (mf *mappedFile) destroy() error {
	mf.shutdown()
	err := os.Remove(mf.path)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	return err
}

func (mf *mappedFile) full() bool { return mf.wrote.Load() >= int64(mf.size) }

// modTime is the file's modification time (Java: File#lastModified), zero if unknown.
func (mf *mappedFile) modTime() time.Time {
	st, err := os.Stat(mf.path)
	if err != nil {
		return time.Time{}
	}
	return st.ModTime()
}

// msync writes data[from:to] back to the file with MS_SYNC: when it returns nil the
// bytes are on stable storage (Linux msync MS_SYNC is an fdatasync of the range,
// including the metadata needed to read it back).
func msync(data []byte, from, to int) error {
	from = from &^ (osPageSize - 1)
	if to <= from {
		return nil
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MSYNC, uintptr(unsafe.Pointer(&data[from])), uintptr(to-from), syscall.MS_SYNC)
	if errno != 0 {
		return errno
	}
	return nil
}

// flush msyncs what was written since the last flush when at least leastPages pages
// are dirty (0: anything), and returns the flushed position (Java: MappedFile#flush).
func (mf *mappedFile) flush(leastPages int) (int64, error) {
	flushed := mf.flushed.Load()
	write := mf.wrote.Load()
	able := write > flushed
	if leastPages > 0 && !mf.full() {
		able = write/osPageSize-flushed/osPageSize >= int64(leastPages)
	}
	if !able || write <= flushed {
		return flushed, nil
	}
	if !mf.hold() {
		return flushed, nil
	}
	defer mf.release()
	if mf.fd != nil {
		// Written through the descriptor: fdatasync, the same durability as msync
		// MS_SYNC of the range (which also ends in vfs_fsync_range), for the whole file.
		if err := fdatasync(mf.sysfd); err != nil {
			return flushed, fmt.Errorf("store: fdatasync %s: %w", mf.path, err)
		}
	} else if err := msync(mf.data, int(flushed), int(write)); err != nil {
		return flushed, fmt.Errorf("store: msync %s: %w", mf.path, err)
	}
	mf.flushed.Store(write)
	return write, nil
}

// fdatasync is fdatasync(2), retried on EINTR.
func fdatasync(fd int) error {
	for {
		err := syscall.Fdatasync(fd)
		if err != syscall.EINTR {
			return err
		}
	}
}

// writeAt writes b at pos through the descriptor (pwrite), without moving the write
// position: the caller publishes it once the bytes are in. The page cache is the one
// the mapping shows, so readers of data see the bytes as soon as pwrite returns, and
// no page of the mapping is faulted for writing (see doc.go, "Write path").
func (mf *mappedFile) writeAt(b []byte, pos int64) error {
	if mf.fd == nil { // never write through descriptor 0
		return fmt.Errorf("store: %s was opened without its descriptor", mf.path)
	}
	if pos+int64(len(b)) > int64(mf.size) {
		return fmt.Errorf("store: write of %d bytes at %d past the end of %s", len(b), pos, mf.path)
	}
	for len(b) > 0 {
		n, err := syscall.Pwrite(mf.sysfd, b, pos)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("store: pwrite %s at %d: %w", mf.path, pos, err)
		}
		if n == 0 {
			return fmt.Errorf("store: pwrite %s at %d: %w", mf.path, pos, io.ErrShortWrite)
		}
		b, pos = b[n:], pos+int64(n)
	}
	return nil
}

// appendBytes writes b at the write position (ConsumeQueue units, HA data).
func (mf *mappedFile) appendBytes(b []byte) bool {
	pos := mf.wrote.Load()
	if pos+int64(len(b)) > int64(mf.size) {
		return false
	}
	copy(mf.data[pos:], b)
	mf.wrote.Store(pos + int64(len(b)))
	return true
}

// zeroStaleTail clears bytes from pos up to the first all-zero page after it, so that
// data written before a truncation can never be read back as valid by a later recovery.
func (mf *mappedFile) zeroStaleTail(pos int64) {
	end := int64(mf.size)
	for p := pos; p < end; {
		pageEnd := min((p&^(osPageSize-1))+osPageSize, end)
		seg := mf.data[p:pageEnd]
		if p&(osPageSize-1) == 0 && allZero(seg) {
			return
		}
		clear(seg)
		p = pageEnd
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
