package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// mappedQueue is a directory of same-sized mapped files named by their start offsets
// (Java: MappedFileQueue). The file list is guarded by mu; one goroutine appends.
type mappedQueue struct {
	dir      string
	fileSize int
	prealloc allocFunc
	// lazy: files are created sparse and reserved as they are written (lazy.go); the
	// directory levels to fsync for them are in dirsToSync.
	lazy       bool
	dirsToSync atomic.Int32

	mu    sync.RWMutex // guards files; lock order: after Store.putMu / Store.cqMu
	files []*mappedFile

	removedEmpty string // load removed this empty newest file
	// writeFD keeps each file's descriptor open for pwrite/fdatasync (the CommitLog's
	// descriptor write path, doc.go "Write path").
	writeFD bool

	flushedWhere atomic.Int64
	flushedTs    atomic.Int64 // store timestamp of the last thorough flush (CommitLog)
	syncs        atomic.Int64 // msync calls that wrote something back

	// The next file, created in the background when preAllocate is set (warm.go).
	preAllocate bool
	spareMu     sync.Mutex
	spare       *mappedFile // created, mapped, not yet in files
	spareBusy   bool        // a creation of the file at spareFrom is running
	spareFrom   int64
	spareDone   chan struct{} // closed when that creation ends
	// creating is the start of the file the append path is creating itself, -1 when none:
	// the warmer's prepareSpare never creates the same file at the same time.
	creating int64
	// zeroFill, when set and true at the time, has the spare file's blocks written before
	// use (zerofill.go); hurry asks a running fill to stop because the file is wanted now.
	zeroFill func() bool
	hurry    atomic.Bool
	log      func(error)
}

func newMappedQueue(dir string, fileSize int, prealloc allocFunc) *mappedQueue {
	return &mappedQueue{dir: dir, fileSize: fileSize, prealloc: prealloc, creating: -1}
}

// isOffsetName reports whether name is a 20-digit offset file name.
func isOffsetName(name string) (int64, bool) {
	if len(name) != 20 {
		return 0, false
	}
	v, err := strconv.ParseInt(name, 10, 64)
	return v, err == nil
}

// load maps every file of the directory in name order; all are marked fully written
// until recovery sets the real positions (Java: MappedFileQueue#doLoad).
func (q *mappedQueue) load() error {
	ents, err := os.ReadDir(q.dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if filepath.Ext(e.Name()) == ".tmp" { // a creation interrupted by a crash
			_ = os.Remove(filepath.Join(q.dir, e.Name()))
			continue
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for i, n := range names {
		from, ok := isOffsetName(n)
		if !ok {
			continue
		}
		path := filepath.Join(q.dir, n)
		if i == len(names)-1 {
			// Java creates a file and then maps it to its size: a crash in between leaves
			// an empty newest file, on which Java's load refuses to start ("length not
			// matched message store config value"). It holds nothing: remove it.
			if st, err := os.Stat(path); err == nil && st.Size() == 0 {
				if err := os.Remove(path); err != nil {
					return err
				}
				q.removedEmpty = path // logged by the store
				continue
			}
		}
		mf, err := openMapped(path, from, q.fileSize, q.writeFD)
		if err != nil {
			return err
		}
		mf.wrote.Store(int64(q.fileSize))
		mf.flushed.Store(int64(q.fileSize))
		if q.lazy {
			mf.lazyLoaded(q.prealloc)
		}
		q.files = append(q.files, mf)
	}
	return nil
}

func (q *mappedQueue) snapshot() []*mappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return append([]*mappedFile(nil), q.files...)
}

func (q *mappedQueue) count() int {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return len(q.files)
}

func (q *mappedQueue) first() *mappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if len(q.files) == 0 {
		return nil
	}
	return q.files[0]
}

func (q *mappedQueue) last() *mappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if len(q.files) == 0 {
		return nil
	}
	return q.files[len(q.files)-1]
}

// lastForWrite returns the last file, creating the next one when there is none (at
// startOffset's file) or the last is full (Java: getLastMappedFile(startOffset, true)).
func (q *mappedQueue) lastForWrite(startOffset int64) (*mappedFile, error) {
	last := q.last()
	create := int64(-1)
	if last == nil {
		create = startOffset - startOffset%int64(q.fileSize)
	} else if last.full() {
		create = last.from + int64(q.fileSize)
	}
	if create < 0 {
		return last, nil
	}
	if q.lazy {
		return q.createLazy(create)
	}
	mf := q.takeSpare(create)
	if mf == nil {
		var err error
		if mf, err = createReservedFile(q.dir, fileName(create), create, q.fileSize, q.prealloc, q.writeFD); err != nil {
			q.spareMu.Lock()
			q.creating = -1
			q.spareMu.Unlock()
			return nil, err
		}
	}
	q.mu.Lock()
	mf.firstInQueue = len(q.files) == 0
	q.files = append(q.files, mf)
	q.mu.Unlock()
	q.spareMu.Lock()
	q.creating = -1
	q.spareMu.Unlock()
	return mf, nil
}

// createLazy adds a sparse file at from (lazy.go) and marks the directories to sync: its
// own, and for a queue's first file also the topic directory and consumequeue/.
func (q *mappedQueue) createLazy(from int64) (*mappedFile, error) {
	mf, err := createLazyFile(q.dir, fileName(from), from, q.fileSize, lazyGrowMin, q.prealloc)
	if err != nil {
		return nil, err
	}
	q.mu.Lock()
	mf.firstInQueue = len(q.files) == 0
	q.files = append(q.files, mf)
	q.mu.Unlock()
	levels := int32(1)
	if mf.firstInQueue {
		levels = 3
	}
	for {
		cur := q.dirsToSync.Load()
		if cur >= levels || q.dirsToSync.CompareAndSwap(cur, levels) {
			break
		}
	}
	return mf, nil
}

// prepareSpareWhenFilled pre-creates the next file once the current one is half written
// (the warmer calls it). Earlier, a fresh store held two fallocated 1 GiB files where one
// had a few bytes; half a file ahead still leaves the background creation (and the zero
// fill under SYNC_FLUSH) the time half a file takes to write.
func (q *mappedQueue) prepareSpareWhenFilled() {
	mf := q.last()
	if mf == nil || !q.preAllocate || mf.wrote.Load() < int64(q.fileSize)/2 {
		return
	}
	q.prepareSpare(mf.from + int64(q.fileSize))
}

// takeSpare returns the pre-created file starting at from, if there is one; if not, it
// marks from as being created by the caller (lastForWrite clears the mark).
func (q *mappedQueue) takeSpare(from int64) *mappedFile {
	q.spareMu.Lock()
	for q.spareBusy && q.spareFrom == from {
		done := q.spareDone
		q.spareMu.Unlock()
		q.hurry.Store(true) // a zero fill stops at its next chunk
		<-done              // never create the same file twice: wait for the background one
		q.spareMu.Lock()
	}
	defer q.spareMu.Unlock()
	if q.spare == nil || q.spare.from != from {
		q.creating = from
		return nil
	}
	mf := q.spare
	q.spare = nil
	return mf
}

// spareFile returns the pre-created next file, or nil.
func (q *mappedQueue) spareFile() *mappedFile {
	q.spareMu.Lock()
	defer q.spareMu.Unlock()
	return q.spare
}

// prepareSpare creates the file starting at from in the background (Java:
// AllocateMappedFileService). A failure (a full disk) is logged; the append path then
// creates the file itself and reports the error cleanly.
func (q *mappedQueue) prepareSpare(from int64) {
	if !q.preAllocate {
		return
	}
	q.spareMu.Lock() // lock order: spareMu, then mu (q.last)
	if last := q.last(); q.spareBusy || (q.spare != nil && q.spare.from == from) ||
		q.creating >= from || (last != nil && last.from >= from) {
		q.spareMu.Unlock()
		return // being made, made, or already in the queue
	}
	old := q.spare
	q.spare = nil
	q.spareBusy = true
	q.spareFrom = from
	done := make(chan struct{})
	q.spareDone = done
	q.hurry.Store(false)
	q.spareMu.Unlock()
	if old != nil {
		_ = old.destroy()
	}
	go func() {
		defer close(done)
		size := int64(q.fileSize)
		mf, err := createMapped(q.dir, fileName(from), from, q.fileSize, func(f *os.File) error {
			if err := q.prealloc(f, 0, size); err != nil || q.zeroFill == nil || !q.zeroFill() {
				return err
			}
			return zeroFill(f, size, q.hurry.Load)
		}, true, q.writeFD)
		q.spareMu.Lock()
		q.spareBusy = false
		if err == nil {
			q.spare = mf
		}
		q.spareMu.Unlock()
		if err != nil && q.log != nil {
			q.log(err)
		}
	}()
}

// dropSpare waits for a background creation and removes the spare file (clean shutdown,
// as Java deletes its pre-created file).
func (q *mappedQueue) dropSpare() error {
	q.hurry.Store(true)
	q.spareMu.Lock()
	if q.spareBusy {
		done := q.spareDone
		q.spareMu.Unlock()
		<-done
		q.spareMu.Lock()
	}
	mf := q.spare
	q.spare = nil
	q.spareMu.Unlock()
	if mf == nil {
		return nil
	}
	if err := mf.destroy(); err != nil {
		return err
	}
	return syncDir(q.dir)
}

// minOffset is the first file's start, or -1 when empty.
func (q *mappedQueue) minOffset() int64 {
	if f := q.first(); f != nil {
		return f.from
	}
	return -1
}

// maxOffset is the end of the written data, 0 when empty.
func (q *mappedQueue) maxOffset() int64 {
	if f := q.last(); f != nil {
		return f.from + f.wrote.Load()
	}
	return 0
}

// find returns the file holding offset (Java: findMappedFileByOffset); with
// returnFirst, the first file when offset is out of range. It does not hold the file.
func (q *mappedQueue) find(offset int64, returnFirst bool) *mappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if len(q.files) == 0 {
		return nil
	}
	first, last := q.files[0], q.files[len(q.files)-1]
	fs := int64(q.fileSize)
	if offset >= first.from && offset < last.from+fs {
		i := int(offset/fs - first.from/fs)
		if i >= 0 && i < len(q.files) && offset >= q.files[i].from && offset < q.files[i].from+fs {
			return q.files[i]
		}
		for _, f := range q.files {
			if offset >= f.from && offset < f.from+fs {
				return f
			}
		}
	}
	if returnFirst {
		return first
	}
	return nil
}

// slice returns a held slice of the written data [offset, offset+size) of one file.
func (q *mappedQueue) slice(offset int64, size int) ([]byte, *mappedFile) {
	mf := q.find(offset, offset == 0)
	if mf == nil || size < 0 {
		return nil, nil
	}
	pos := offset - mf.from
	if pos < 0 || pos+int64(size) > mf.wrote.Load() || !mf.hold() {
		return nil, nil
	}
	return mf.data[pos : pos+int64(size) : pos+int64(size)], mf
}

// sliceToEnd returns a held slice from offset to the end of its file's written data.
func (q *mappedQueue) sliceToEnd(offset int64, returnFirst bool) ([]byte, *mappedFile) {
	mf := q.find(offset, returnFirst)
	if mf == nil {
		return nil, nil
	}
	pos := offset - mf.from
	if pos < 0 || pos >= int64(mf.size) {
		pos = 0
	}
	end := mf.wrote.Load()
	if pos >= end || !mf.hold() {
		return nil, nil
	}
	return mf.data[pos:end:end], mf
}

// truncateDirty cuts the queue at offset: the file holding it keeps data up to offset
// and its stale tail is zeroed; later files are deleted (Java: truncateDirtyFiles).
func (q *mappedQueue) truncateDirty(offset int64) error {
	q.mu.Lock()
	var keep, drop []*mappedFile
	for _, f := range q.files {
		switch {
		case f.from+int64(q.fileSize) <= offset:
			keep = append(keep, f)
		case offset >= f.from:
			pos := offset - f.from
			f.zeroStaleTail(pos)
			f.wrote.Store(pos)
			f.flushed.Store(pos)
			keep = append(keep, f)
		default:
			drop = append(drop, f)
		}
	}
	q.files = keep
	q.mu.Unlock()
	var firstErr error
	for _, f := range drop {
		if err := f.destroy(); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if len(drop) > 0 {
		if err := syncDir(q.dir); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// removeFiles drops the given files from the list (they stay mapped for their holders).
func (q *mappedQueue) removeFiles(files []*mappedFile) {
	if len(files) == 0 {
		return
	}
	q.mu.Lock()
	set := make(map[*mappedFile]bool, len(files))
	for _, f := range files {
		set[f] = true
	}
	kept := q.files[:0:0]
	for _, f := range q.files {
		if !set[f] {
			kept = append(kept, f)
		}
	}
	q.files = kept
	q.mu.Unlock()
}

// deleteLast removes the last file (Java: deleteLastMappedFile).
func (q *mappedQueue) deleteLast() error {
	q.mu.Lock()
	if len(q.files) == 0 {
		q.mu.Unlock()
		return nil
	}
	f := q.files[len(q.files)-1]
	q.files = q.files[:len(q.files)-1]
	q.mu.Unlock()
	return f.destroy()
}

// deleteExpiredByTime deletes, oldest first and never the last file, the files modified
// before now-reserved (all of them when force), at most maxBatch, pausing interval
// between two (Java: deleteExpiredFileByTime). stop interrupts the pauses.
func (q *mappedQueue) deleteExpiredByTime(now time.Time, reserved time.Duration, interval time.Duration,
	force bool, stop <-chan struct{}) (int, error) {
	const maxBatch = 10 // Java: DELETE_FILES_BATCH_MAX
	files := q.snapshot()
	n := 0
	for i := 0; i+1 < len(files) && n < maxBatch; i++ {
		f := files[i]
		if !force && now.Before(f.modTime().Add(reserved)) {
			break // never delete files in the middle
		}
		q.removeFiles([]*mappedFile{f})
		if err := f.destroy(); err != nil {
			return n, err
		}
		n++
		if interval > 0 && i+2 < len(files) {
			select {
			case <-stop:
				return n, nil
			case <-time.After(interval):
			}
		}
	}
	return n, nil
}

// flush flushes from flushedWhere (Java: MappedFileQueue#flush) and reports whether
// anything was written back. With leastPages 0 it also records the file's last store
// timestamp as flushedTs.
func (q *mappedQueue) flush(leastPages int) (bool, error) {
	where := q.flushedWhere.Load()
	mf := q.find(where, where == 0)
	if mf == nil {
		return false, nil
	}
	ts := mf.storeTs.Load() // read before the flush: it is then covered by it
	pos, err := mf.flush(leastPages)
	if err != nil {
		return false, err
	}
	newWhere := mf.from + pos
	if newWhere != where {
		q.syncs.Add(1)
	}
	q.flushedWhere.Store(newWhere)
	if leastPages == 0 && ts > 0 {
		q.flushedTs.Store(ts)
	}
	return newWhere != where, nil
}

// flushTo flushes file after file until flushedWhere reaches target or nothing more
// can be flushed, and reports whether anything was written back. A group commit
// flushes to the end it saw when it started, then publishes: what is appended during
// the sync waits for the next one, never the waiters the sync already covers.
func (q *mappedQueue) flushTo(target int64) (bool, error) {
	any := false
	for q.flushedWhere.Load() < target {
		progressed, err := q.flush(0)
		if err != nil {
			return any, err
		}
		if !progressed {
			break
		}
		any = true
	}
	return any, nil
}

// flushAll flushes everything written so far, across file boundaries.
func (q *mappedQueue) flushAll() error {
	for i := 0; i < 1+q.count(); i++ {
		progressed, err := q.flush(0)
		if err != nil {
			return err
		}
		if !progressed && q.flushedWhere.Load() >= q.maxOffset() {
			return nil
		}
	}
	return nil
}

// shutdownAll drops the owner references of every file.
func (q *mappedQueue) shutdownAll() {
	q.mu.Lock()
	files := q.files
	q.files = nil
	q.mu.Unlock()
	for _, f := range files {
		f.shutdown()
	}
}

// destroyAll deletes every file and the directory (Java: MappedFileQueue#destroy).
func (q *mappedQueue) destroyAll() error {
	q.mu.Lock()
	files := q.files
	q.files = nil
	q.mu.Unlock()
	for _, f := range files {
		if err := f.destroy(); err != nil {
			return err
		}
	}
	q.flushedWhere.Store(0)
	if err := os.Remove(q.dir); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("store: remove %s: %w", q.dir, err)
	}
	return nil
}
