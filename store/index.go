package store

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rs/zerolog"
	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/compat"
)

const (
	indexHeaderSize = 40
	indexSlotSize   = 4
	indexEntrySize  = 20
)

// indexFile is one IndexFile (Java: IndexFile + IndexHeader): a 40-byte header, a table
// of hash slots, then entries chained per slot. The dispatcher is its only writer; the
// header counters are mirrored in atomics for concurrent queries.
type indexFile struct {
	mf                *mappedFile
	slotNum, indexNum int
	beginTs, endTs    atomic.Int64
	beginPhy, endPhy  atomic.Int64
	slotCount, count  atomic.Int32
}

func indexFileSize(slotNum, indexNum int) int {
	return indexHeaderSize + slotNum*indexSlotSize + indexNum*indexEntrySize
}

func newIndexFile(mf *mappedFile, slotNum, indexNum int) *indexFile {
	f := &indexFile{mf: mf, slotNum: slotNum, indexNum: indexNum}
	be := binary.BigEndian
	d := mf.data
	f.beginTs.Store(int64(be.Uint64(d[0:])))
	f.endTs.Store(int64(be.Uint64(d[8:])))
	f.beginPhy.Store(int64(be.Uint64(d[16:])))
	f.endPhy.Store(int64(be.Uint64(d[24:])))
	f.slotCount.Store(int32(be.Uint32(d[32:])))
	c := int32(be.Uint32(d[36:]))
	if c <= 0 {
		c = 1 // entry 0 is never used: 0 means "empty" (Java: IndexHeader#load)
	}
	f.count.Store(c)
	return f
}

func (f *indexFile) setHeader64(pos int, v *atomic.Int64, val int64) {
	v.Store(val)
	binary.BigEndian.PutUint64(f.mf.data[pos:], uint64(val))
}

func (f *indexFile) full() bool { return int(f.count.Load()) >= f.indexNum }

// keyHash is Java IndexFile#indexKeyHashMethod: abs(hashCode), 0 for MIN_VALUE.
func keyHash(key string) int32 {
	h := compat.JavaHashCode(key)
	if h == math.MinInt32 {
		return 0
	}
	if h < 0 {
		h = -h
	}
	return h
}

// putKey adds one entry (Java: IndexFile#putKey); false when the file is full.
func (f *indexFile) putKey(hash int32, phyOffset, storeTs int64) bool {
	count := f.count.Load()
	if int(count) >= f.indexNum {
		return false
	}
	be := binary.BigEndian
	d := f.mf.data
	slotPos := indexHeaderSize + int(hash)%f.slotNum*indexSlotSize
	slot := int32(be.Uint32(d[slotPos:]))
	if slot <= 0 || slot > count {
		slot = 0
	}
	var diff int64
	if begin := f.beginTs.Load(); begin > 0 {
		diff = (storeTs - begin) / 1000
		diff = max(min(diff, math.MaxInt32), 0)
	}
	p := f.entryPos(count)
	be.PutUint32(d[p:], uint32(hash))
	be.PutUint64(d[p+4:], uint64(phyOffset))
	be.PutUint32(d[p+12:], uint32(int32(diff)))
	be.PutUint32(d[p+16:], uint32(slot))
	be.PutUint32(d[slotPos:], uint32(count))
	if count <= 1 {
		f.setHeader64(16, &f.beginPhy, phyOffset)
		f.setHeader64(0, &f.beginTs, storeTs)
	}
	if slot == 0 {
		be.PutUint32(d[32:], uint32(f.slotCount.Add(1)))
	}
	f.setHeader64(24, &f.endPhy, phyOffset)
	f.setHeader64(8, &f.endTs, storeTs)
	be.PutUint32(d[36:], uint32(count+1))
	f.count.Store(count + 1)
	return true
}

// entryPos is the byte position of entry n.
func (f *indexFile) entryPos(n int32) int {
	return indexHeaderSize + f.slotNum*indexSlotSize + int(n)*indexEntrySize
}

// lazyLoaded makes a loaded file lazily reserved: its entries from the next one on
// (lazy.go).
func (f *indexFile) lazyLoaded(alloc allocFunc) {
	f.mf.alloc = alloc
	f.mf.allocBase = int64(f.entryPos(0))
	f.mf.allocated = pageUp(int64(f.entryPos(f.count.Load())))
}

// reserveNext reserves the blocks of the next entry before putKey writes it; a full file
// needs none (putKey refuses).
func (f *indexFile) reserveNext() error {
	if f.full() {
		return nil
	}
	return f.mf.ensure(int64(f.entryPos(f.count.Load() + 1)))
}

// timeMatched is Java IndexFile#isTimeMatched.
func (f *indexFile) timeMatched(begin, end int64) bool {
	b, e := f.beginTs.Load(), f.endTs.Load()
	return (begin < b && end > e) || (begin >= b && begin <= e) || (end >= b && end <= e)
}

// selectPhyOffsets follows the chain of hash's slot (Java: IndexFile#selectPhyOffset).
func (f *indexFile) selectPhyOffsets(out []int64, hash int32, maxNum int, begin, end int64) []int64 {
	if !f.mf.hold() {
		return out
	}
	defer f.mf.release()
	be := binary.BigEndian
	d := f.mf.data
	count := f.count.Load()
	slot := int32(be.Uint32(d[indexHeaderSize+int(hash)%f.slotNum*indexSlotSize:]))
	if slot <= 0 || slot > count || count <= 1 {
		return out
	}
	beginTs := f.beginTs.Load()
	for next := slot; len(out) < maxNum; {
		p := indexHeaderSize + f.slotNum*indexSlotSize + int(next)*indexEntrySize
		h := int32(be.Uint32(d[p:]))
		phy := int64(be.Uint64(d[p+4:]))
		diff := int64(int32(be.Uint32(d[p+12:])))
		prev := int32(be.Uint32(d[p+16:]))
		if diff < 0 {
			break
		}
		t := beginTs + diff*1000
		if h == hash && t >= begin && t <= end {
			out = append(out, phy)
		}
		if prev <= 0 || prev > count || prev == next || t < begin {
			break
		}
		next = prev
	}
	return out
}

func (f *indexFile) flush() error {
	if !f.mf.hold() {
		return nil
	}
	defer f.mf.release()
	return msync(f.mf.data, 0, f.mf.size)
}

// indexService owns the index directory (Java: IndexService).
type indexService struct {
	dir               string
	slotNum, indexNum int
	prealloc          allocFunc
	now               func() time.Time
	ckpt              *checkpoint
	log               zerolog.Logger
	wg                *sync.WaitGroup

	mu    sync.RWMutex // guards files
	files []*indexFile

	keyBuf []byte // dispatch goroutine only
}

// load opens the index files; after an abnormal stop it deletes those that end after
// the checkpoint's index time (Java: IndexService#load). It returns the lowest begin
// offset of a deleted file (-1 if none), from which dispatch must rebuild.
func (is *indexService) load(lastExitOK bool) (int64, error) {
	ents, err := os.ReadDir(is.dir)
	if os.IsNotExist(err) {
		return -1, nil
	}
	if err != nil {
		return -1, err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if filepath.Ext(e.Name()) == ".tmp" {
			_ = os.Remove(filepath.Join(is.dir, e.Name()))
			continue
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	rebuildFrom := int64(-1)
	size := indexFileSize(is.slotNum, is.indexNum)
	for _, n := range names {
		mf, err := openMappedFile(filepath.Join(is.dir, n), 0, size)
		if err != nil {
			return -1, err
		}
		f := newIndexFile(mf, is.slotNum, is.indexNum)
		if !lastExitOK && f.endTs.Load() > is.ckpt.indexTs.Load() {
			if rebuildFrom < 0 || f.beginPhy.Load() < rebuildFrom {
				rebuildFrom = f.beginPhy.Load()
			}
			is.log.Info().Str("file", n).Msg("index file written after the last checkpoint: deleted, will be rebuilt")
			if err := mf.destroy(); err != nil {
				return -1, err
			}
			continue
		}
		f.lazyLoaded(is.prealloc)
		is.files = append(is.files, f)
	}
	if last := is.last(); last != nil && !last.full() {
		// The file entries go on being written to: reserve its slot table, which a Java
		// store leaves sparse (our own files have it reserved already; fallocate then
		// changes nothing).
		reserveExisting(last.mf.path, 0, int64(last.entryPos(0)))
	}
	return rebuildFrom, nil
}

func (is *indexService) last() *indexFile {
	is.mu.RLock()
	defer is.mu.RUnlock()
	if len(is.files) == 0 {
		return nil
	}
	return is.files[len(is.files)-1]
}

// writable returns the last index file, creating the next one when there is none or
// it is full (Java: getAndCreateLastIndexFile).
func (is *indexService) writable() (*indexFile, error) {
	last := is.last()
	if last != nil && !last.full() {
		return last, nil
	}
	var endPhy, endTs int64
	if last != nil {
		endPhy, endTs = last.endPhy.Load(), last.endTs.Load()
	}
	now := is.now()
	var mf *mappedFile
	var err error
	for try := 0; try < 1000; try++ { // two files in one millisecond: take the next name
		name := now.Add(time.Duration(try) * time.Millisecond).Format("20060102150405.000")
		name = name[:14] + name[15:]
		if _, statErr := os.Stat(filepath.Join(is.dir, name)); statErr == nil {
			continue
		}
		// Sparse (lazy.go): the header and slot table reserved, entries as they come.
		reserve := int64(indexHeaderSize + is.slotNum*indexSlotSize + lazyGrowMin)
		mf, err = createLazyFile(is.dir, name, 0, indexFileSize(is.slotNum, is.indexNum), reserve, is.prealloc)
		if err == nil {
			if err = syncDir(is.dir); err != nil { // once per 20,000,000 keys: here, not later
				mf.shutdown()
				mf = nil
			}
		}
		break
	}
	if err != nil {
		return nil, err
	}
	if mf == nil {
		return nil, fmt.Errorf("%w: no free index file name", ErrCreateMappedFile)
	}
	f := newIndexFile(mf, is.slotNum, is.indexNum)
	if endPhy > 0 {
		f.setHeader64(16, &f.beginPhy, endPhy)
		f.setHeader64(24, &f.endPhy, endPhy)
	}
	if endTs > 0 {
		f.setHeader64(0, &f.beginTs, endTs)
		f.setHeader64(8, &f.endTs, endTs)
	}
	is.mu.Lock()
	is.files = append(is.files, f)
	is.mu.Unlock()
	if last != nil {
		// The previous file is full: flush it in the background and move the index
		// checkpoint to its end (Java: IndexService#flush on FlushIndexFileThread).
		is.wg.Add(1)
		go func() {
			defer is.wg.Done()
			ts := last.endTs.Load()
			if err := last.flush(); err != nil {
				is.log.Error().Err(err).Msg("flush full index file")
				return
			}
			is.ckpt.indexTs.Store(ts)
			if err := is.ckpt.flush(); err != nil {
				is.log.Error().Err(err).Msg("flush checkpoint")
			}
		}()
	}
	return f, nil
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func (is *indexService) hashOf(topic []byte, key []byte) int32 {
	is.keyBuf = append(append(append(is.keyBuf[:0], topic...), '#'), key...)
	return keyHash(unsafeString(is.keyBuf))
}

// build indexes topic#UNIQ_KEY and topic#k for each KEYS token of a record (Java:
// IndexService#buildIndex). Rollback records are not indexed. A record at or before the
// last indexed offset is skipped, so re-dispatch after a restart adds nothing twice.
func (is *indexService) build(r *message.Record) error {
	if r.TransactionType() == message.TransactionRollback {
		return nil
	}
	uniq, hasUniq := r.Property(message.PropertyUniqClientMessageIDKeyIdx)
	keys, hasKeys := r.Property(message.PropertyKeys)
	if !hasUniq && (!hasKeys || len(keys) == 0) {
		return nil
	}
	// Already indexed? Judged on the last file before writable replaces a full one: a
	// new file starts with the full one's end offset and no entries, and would take the
	// record at that offset (indexed in the full file) a second time.
	if last := is.last(); last != nil {
		if end := last.endPhy.Load(); r.PhysicalOffset < end || (r.PhysicalOffset == end && last.count.Load() > 1) {
			return nil
		}
	}
	f, err := is.writable()
	if err != nil {
		return err
	}
	put := func(key []byte) error {
		h := is.hashOf(r.Topic, key)
		for {
			if err := f.reserveNext(); err != nil {
				return err
			}
			if f.putKey(h, r.PhysicalOffset, r.StoreTimestamp) {
				return nil
			}
			if f, err = is.writable(); err != nil {
				return err
			}
		}
	}
	if hasUniq {
		if err := put(uniq); err != nil {
			return err
		}
	}
	for len(keys) > 0 {
		i := indexOf(keys, ' ')
		var k []byte
		if i < 0 {
			k, keys = keys, nil
		} else {
			k, keys = keys[:i], keys[i+1:]
		}
		if len(k) > 0 {
			if err := put(k); err != nil {
				return err
			}
		}
	}
	return nil
}

func indexOf(b []byte, c byte) int {
	for i := range b {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// query returns the physical offsets of topic#key stored in [begin, end], newest file
// first, and the last file's end time and offset (Java: IndexService#queryOffset).
func (is *indexService) query(topic, key string, maxNum int, begin, end int64) (offs []int64, lastTs, lastPhy int64) {
	hash := keyHash(topic + "#" + key)
	is.mu.RLock()
	files := append([]*indexFile(nil), is.files...)
	is.mu.RUnlock()
	for i := len(files) - 1; i >= 0; i-- {
		f := files[i]
		if i == len(files)-1 {
			lastTs, lastPhy = f.endTs.Load(), f.endPhy.Load()
		}
		if f.timeMatched(begin, end) {
			offs = f.selectPhyOffsets(offs, hash, maxNum, begin, end)
		}
		if f.beginTs.Load() < begin || len(offs) >= maxNum {
			break
		}
	}
	return offs, lastTs, lastPhy
}

// deleteExpired deletes files (never the last) that end before offset.
func (is *indexService) deleteExpired(offset int64) {
	is.mu.Lock()
	var drop []*indexFile
	for len(is.files) > 1 && is.files[0].endPhy.Load() < offset {
		drop = append(drop, is.files[0])
		is.files = is.files[1:]
	}
	is.mu.Unlock()
	for _, f := range drop {
		if err := f.mf.destroy(); err != nil {
			is.log.Warn().Err(err).Str("file", f.mf.path).Msg("delete expired index file")
		}
	}
}

// flushLast msyncs the last file and moves the index checkpoint to what it covers.
func (is *indexService) flushLast() error {
	f := is.last()
	if f == nil {
		return nil
	}
	ts := f.endTs.Load()
	if err := f.flush(); err != nil {
		return err
	}
	if ts > is.ckpt.indexTs.Load() {
		is.ckpt.indexTs.Store(ts)
	}
	return nil
}

func (is *indexService) close() {
	is.mu.Lock()
	files := is.files
	is.files = nil
	is.mu.Unlock()
	for _, f := range files {
		f.mf.shutdown()
	}
}
