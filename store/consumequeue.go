package store

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

// cqUnitSize is one ConsumeQueue unit: int64 phyOffset ‖ int32 size ‖ int64 tagsCode.
const cqUnitSize = 20

// CQUnit is one ConsumeQueue entry.
type CQUnit struct {
	PhyOffset int64
	Size      int32
	TagsCode  int64
}

// consumeQueue is the index of one topic queue: unit N at byte N*20 (Java: ConsumeQueue).
// The dispatcher is its only writer.
type consumeQueue struct {
	topic   string
	queueID int32
	q       *mappedQueue
	// maxPhysicOffset is the end (offset+size) of the last dispatched record, -1 if none.
	maxPhysicOffset atomic.Int64
	minLogicOffset  atomic.Int64 // bytes
}

func newConsumeQueue(root, topic string, queueID int32, fileSize int, prealloc allocFunc) *consumeQueue {
	dir := filepath.Join(root, "consumequeue", topic, strconv.Itoa(int(queueID)))
	cq := &consumeQueue{topic: topic, queueID: queueID, q: newMappedQueue(dir, fileSize, prealloc)}
	cq.q.lazy = true // sparse files, reserved as units are written (lazy.go)
	cq.maxPhysicOffset.Store(-1)
	return cq
}

func getUnit(b []byte) CQUnit {
	return CQUnit{
		PhyOffset: int64(binary.BigEndian.Uint64(b)),
		Size:      int32(binary.BigEndian.Uint32(b[8:])),
		TagsCode:  int64(binary.BigEndian.Uint64(b[12:])),
	}
}

func putUnit(b []byte, u CQUnit) {
	binary.BigEndian.PutUint64(b, uint64(u.PhyOffset))
	binary.BigEndian.PutUint32(b[8:], uint32(u.Size))
	binary.BigEndian.PutUint64(b[12:], uint64(u.TagsCode))
}

// recover scans from the third-last file for the last valid unit and truncates after it
// (Java: ConsumeQueue#recover).
func (cq *consumeQueue) recover() error {
	files := cq.q.snapshot()
	if len(files) == 0 {
		return nil
	}
	idx := max(len(files)-3, 0)
	fs := int64(cq.q.fileSize)
	var process int64
	for {
		f := files[idx]
		var pos int64
		for i := int64(0); i+cqUnitSize <= fs; i += cqUnitSize {
			u := getUnit(f.data[i:])
			if u.PhyOffset < 0 || u.Size <= 0 {
				break
			}
			pos = i + cqUnitSize
			cq.maxPhysicOffset.Store(u.PhyOffset + int64(u.Size))
		}
		process = f.from + pos
		if pos == fs && idx+1 < len(files) {
			idx++
			continue
		}
		break
	}
	cq.q.flushedWhere.Store(process)
	return cq.q.truncateDirty(process)
}

// truncateDirtyLogicFiles drops units pointing at or past phyOffset (Java:
// ConsumeQueue#truncateDirtyLogicFiles) and zeroes them.
func (cq *consumeQueue) truncateDirtyLogicFiles(phyOffset int64) error {
	cq.maxPhysicOffset.Store(phyOffset)
	for {
		f := cq.q.last()
		if f == nil {
			return nil
		}
		var keep int64
		dropAll := false
		for i := int64(0); i+cqUnitSize <= int64(f.size); i += cqUnitSize {
			u := getUnit(f.data[i:])
			if i == 0 && u.PhyOffset >= phyOffset {
				dropAll = true
				break
			}
			if u.PhyOffset < 0 || u.Size <= 0 || u.PhyOffset >= phyOffset {
				break
			}
			keep = i + cqUnitSize
			cq.maxPhysicOffset.Store(u.PhyOffset + int64(u.Size))
		}
		if dropAll {
			if err := cq.q.deleteLast(); err != nil {
				return err
			}
			continue
		}
		f.zeroStaleTail(keep)
		f.wrote.Store(keep)
		f.flushed.Store(min(f.flushed.Load(), keep))
		if cq.q.flushedWhere.Load() > f.from+keep {
			cq.q.flushedWhere.Store(f.from + keep)
		}
		return nil
	}
}

// maxOffsetInQueue is the next logical offset (Java: getMaxOffsetInQueue).
func (cq *consumeQueue) maxOffsetInQueue() int64 { return cq.q.maxOffset() / cqUnitSize }

// minOffsetInQueue is the first valid logical offset (Java: getMinOffsetInQueue).
func (cq *consumeQueue) minOffsetInQueue() int64 { return cq.minLogicOffset.Load() / cqUnitSize }

// putPosition appends one unit at logical offset cqOffset (Java:
// ConsumeQueue#putMessagePositionInfo). It returns false only when a file cannot be
// created; units already present are skipped.
func (cq *consumeQueue) putPosition(phyOffset int64, size int32, tagsCode, cqOffset int64) (bool, error) {
	if phyOffset+int64(size) <= cq.maxPhysicOffset.Load() {
		return true, nil // built already (re-dispatch after recovery)
	}
	expect := cqOffset * cqUnitSize
	mf, err := cq.q.lastForWrite(expect)
	if err != nil {
		return false, err
	}
	if !mf.hold() { // the queue is being destroyed (topic deleted)
		return false, fmt.Errorf("store: consume queue %s/%d is closed", cq.topic, cq.queueID)
	}
	defer mf.release()
	if mf.firstInQueue && cqOffset != 0 && mf.wrote.Load() == 0 {
		// A queue that starts at a non-zero offset: pad its first file with blanks.
		cq.minLogicOffset.Store(expect)
		cq.q.flushedWhere.Store(expect)
		var blank [cqUnitSize]byte
		putUnit(blank[:], CQUnit{PhyOffset: 0, Size: math.MaxInt32, TagsCode: 0})
		until := expect % int64(cq.q.fileSize)
		if err := mf.ensure(until + cqUnitSize); err != nil {
			return false, err
		}
		for i := int64(0); i < until; i += cqUnitSize {
			mf.appendBytes(blank[:])
		}
	}
	if cqOffset != 0 {
		current := mf.from + mf.wrote.Load()
		if expect < current {
			return true, nil // Java: "Build consume queue repeatedly"
		}
		// expect > current ("[BUG]logic queue order maybe wrong" in Java) cannot happen
		// with one dispatcher; like Java, the unit is written at the write position.
	}
	if err := mf.ensure(mf.wrote.Load() + cqUnitSize); err != nil {
		return false, err
	}
	var unit [cqUnitSize]byte
	putUnit(unit[:], CQUnit{PhyOffset: phyOffset, Size: size, TagsCode: tagsCode})
	if !mf.appendBytes(unit[:]) {
		// The file filled up between lastForWrite and here: only if units were skipped.
		next, err := cq.q.lastForWrite(expect)
		if err != nil {
			return false, err
		}
		if !next.hold() {
			return false, fmt.Errorf("store: consume queue %s/%d is closed", cq.topic, cq.queueID)
		}
		defer next.release()
		if err := next.ensure(next.wrote.Load() + cqUnitSize); err != nil {
			return false, err
		}
		if !next.appendBytes(unit[:]) {
			return false, nil
		}
	}
	// Only once written: a unit that failed (no space) is built again on the retry.
	cq.maxPhysicOffset.Store(phyOffset + int64(size))
	return true, nil
}

// unitsFrom returns a held slice of units from logical offset index to the end of its
// file's written data (Java: getIndexBuffer).
func (cq *consumeQueue) unitsFrom(index int64) ([]byte, *mappedFile) {
	off := index * cqUnitSize
	if off < cq.minLogicOffset.Load() {
		return nil, nil
	}
	return cq.q.sliceToEnd(off, false)
}

// unitAt returns the unit at a logical offset.
func (cq *consumeQueue) unitAt(index int64) (CQUnit, bool) {
	b, mf := cq.unitsFrom(index)
	if mf == nil {
		return CQUnit{}, false
	}
	defer mf.release()
	if len(b) < cqUnitSize {
		return CQUnit{}, false
	}
	return getUnit(b), true
}

// lastOffset is the end of the CommitLog record the last unit points to, -1 if none
// (Java: ConsumeQueue#getLastOffset).
func (cq *consumeQueue) lastOffset() int64 {
	f := cq.q.last()
	if f == nil {
		return -1
	}
	pos := f.wrote.Load() - cqUnitSize
	if pos < 0 || !f.hold() {
		return -1
	}
	defer f.release()
	u := getUnit(f.data[pos:])
	if u.PhyOffset >= 0 && u.Size > 0 {
		return u.PhyOffset + int64(u.Size)
	}
	return -1
}

// correctMinOffset moves minLogicOffset to the first unit at or after phyMinOffset in
// the first file (Java: ConsumeQueue#correctMinOffset).
func (cq *consumeQueue) correctMinOffset(phyMinOffset int64) {
	f := cq.q.first()
	if f == nil || !f.hold() {
		return
	}
	defer f.release()
	end := f.wrote.Load()
	for i := int64(0); i+cqUnitSize <= end; i += cqUnitSize {
		if getUnit(f.data[i:]).PhyOffset >= phyMinOffset {
			cq.minLogicOffset.Store(f.from + i)
			return
		}
	}
}

// deleteExpired deletes files (never the last) whose last unit points before phyOffset
// (Java: deleteExpiredFileByOffset), then corrects the min offset.
func (cq *consumeQueue) deleteExpired(phyOffset int64) int {
	files := cq.q.snapshot()
	n := 0
	for i := 0; i+1 < len(files); i++ {
		f := files[i]
		if !f.hold() {
			break
		}
		lastUnit := getUnit(f.data[f.size-cqUnitSize:])
		f.release()
		if lastUnit.PhyOffset >= phyOffset {
			break
		}
		cq.q.removeFiles([]*mappedFile{f})
		_ = f.destroy()
		n++
	}
	cq.correctMinOffset(phyOffset)
	return n
}

// rollNextFile is the first logical offset of the next file (Java: rollNextFile).
func (cq *consumeQueue) rollNextFile(index int64) int64 {
	per := int64(cq.q.fileSize / cqUnitSize)
	return index + per - index%per
}

// units copies up to n units from logical offset from.
func (cq *consumeQueue) units(from int64, n int) []CQUnit {
	var out []CQUnit
	for len(out) < n {
		b, mf := cq.unitsFrom(from)
		if mf == nil {
			break
		}
		got := 0
		for i := 0; i+cqUnitSize <= len(b) && len(out) < n; i += cqUnitSize {
			out = append(out, getUnit(b[i:]))
			got++
		}
		mf.release()
		if got == 0 {
			break
		}
		from += int64(got)
	}
	return out
}

func (cq *consumeQueue) flush(leastPages int) error {
	_, err := cq.q.flush(leastPages)
	return err
}
