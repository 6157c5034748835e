package timer

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
)

// Entry states, in the low byte of the state word; the high bytes hold entryMagic, so
// a zero (never written) entry is recognised as the log's end.
const (
	entrySize       = 48
	entryMagic      = 0x54494d // "TIM"
	statePending    = 1
	stateDelivering = 2
	stateDone       = 3
	// flagDelete marks a delete marker (5.x's TIMER_DEL_UNIQKEY message, MAGIC_DELETE): it
	// cancels the entries of its slot with its key and is never delivered itself.
	flagDelete = 0x10
	stateMask  = 0x0f
)

// entry is one decoded timerlog entry.
type entry struct {
	prevPos   int64
	deliverMs int64
	phyOffset int64
	cqOffset  int64
	size      int32
	state     int32
	clBefore  int64
	del       bool // a delete marker (flagDelete)
}

// segment is one mapped timerlog file holding entries [from, from+len(data)).
type segment struct {
	from    int64
	data    []byte
	pending int   // entries not done
	maxPhy  int64 // largest phyOffset in it
}

// timerLog is the segmented, append-only entry log. Positions are byte positions over
// all segments; a segment's file name is its start position.
type timerLog struct {
	dir     string
	segSize int64
	segs    []*segment // ascending
	end     int64      // position of the next entry
}

func openLog(dir string, segSize int64) (*timerLog, error) {
	segSize = segSize / entrySize * entrySize
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	names, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	l := &timerLog{dir: dir, segSize: segSize}
	var froms []int64
	for _, n := range names {
		from, err := strconv.ParseInt(n.Name(), 10, 64)
		if err != nil || len(n.Name()) != 20 {
			continue
		}
		froms = append(froms, from)
	}
	sort.Slice(froms, func(i, j int) bool { return froms[i] < froms[j] })
	for _, from := range froms {
		s, err := l.mapSegment(from)
		if err != nil {
			l.close()
			return nil, err
		}
		l.segs = append(l.segs, s)
	}
	return l, nil
}

func (l *timerLog) path(from int64) string {
	return filepath.Join(l.dir, fmt.Sprintf("%020d", from))
}

// mapSegment maps (creating when missing) the segment starting at from.
func (l *timerLog) mapSegment(from int64) (*segment, error) {
	f, err := os.OpenFile(l.path(from), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := l.segSize
	if fi.Size() > 0 && fi.Size() != size {
		// A segment written with another segment size keeps its own size.
		size = fi.Size() / entrySize * entrySize
	}
	if fi.Size() < size {
		if err := f.Truncate(size); err != nil {
			return nil, err
		}
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("timer: map %s: %w", l.path(from), err)
	}
	return &segment{from: from, data: data}, nil
}

// seg returns the segment holding pos, nil when none does (deleted or not written).
func (l *timerLog) seg(pos int64) *segment {
	i := sort.Search(len(l.segs), func(i int) bool { return l.segs[i].from+int64(len(l.segs[i].data)) > pos })
	if i == len(l.segs) || l.segs[i].from > pos {
		return nil
	}
	return l.segs[i]
}

// firstPos is the position of the oldest live entry (entries before it are gone).
func (l *timerLog) firstPos() int64 {
	if len(l.segs) == 0 {
		return l.end
	}
	return l.segs[0].from
}

func (l *timerLog) read(pos int64) (entry, bool) {
	s := l.seg(pos)
	if s == nil {
		return entry{}, false
	}
	b := s.data[pos-s.from:]
	e := entry{
		prevPos:   int64(binary.BigEndian.Uint64(b[0:])),
		deliverMs: int64(binary.BigEndian.Uint64(b[8:])),
		phyOffset: int64(binary.BigEndian.Uint64(b[16:])),
		cqOffset:  int64(binary.BigEndian.Uint64(b[24:])),
		size:      int32(binary.BigEndian.Uint32(b[32:])),
		clBefore:  int64(binary.BigEndian.Uint64(b[40:])),
	}
	w := binary.BigEndian.Uint32(b[36:])
	if w>>8 != entryMagic {
		return entry{}, false
	}
	e.state = int32(w & stateMask)
	e.del = w&flagDelete != 0
	return e, true
}

// append writes e at the end, its state word last, rolling to a new segment as needed.
func (l *timerLog) append(e entry) (int64, error) {
	s := l.seg(l.end)
	if s == nil {
		ns, err := l.mapSegment(l.end)
		if err != nil {
			return 0, err
		}
		l.segs = append(l.segs, ns)
		s = ns
	}
	pos := l.end
	b := s.data[pos-s.from:]
	binary.BigEndian.PutUint64(b[0:], uint64(e.prevPos))
	binary.BigEndian.PutUint64(b[8:], uint64(e.deliverMs))
	binary.BigEndian.PutUint64(b[16:], uint64(e.phyOffset))
	binary.BigEndian.PutUint64(b[24:], uint64(e.cqOffset))
	binary.BigEndian.PutUint32(b[32:], uint32(e.size))
	binary.BigEndian.PutUint64(b[40:], 0)
	binary.BigEndian.PutUint32(b[36:], entryMagic<<8|e.flags()|uint32(e.state))
	l.end += entrySize
	if e.state != stateDone {
		s.pending++
	}
	if e.phyOffset > s.maxPhy {
		s.maxPhy = e.phyOffset
	}
	return pos, nil
}

func (e entry) flags() uint32 {
	if e.del {
		return flagDelete
	}
	return 0
}

// setState changes an entry's state, keeping its flags (clBefore is written first when
// delivering).
func (l *timerLog) setState(pos int64, state int32, clBefore int64) {
	s := l.seg(pos)
	b := s.data[pos-s.from:]
	if state == stateDelivering {
		binary.BigEndian.PutUint64(b[40:], uint64(clBefore))
	}
	old := binary.BigEndian.Uint32(b[36:])
	binary.BigEndian.PutUint32(b[36:], entryMagic<<8|old&flagDelete|uint32(state))
	switch wasDone := old&stateMask == stateDone; {
	case state == stateDone && !wasDone:
		s.pending--
	case state != stateDone && wasDone:
		s.pending++
	}
}

// scan calls fn for each valid entry from the first live segment and sets end after the
// last one; entries past the first invalid one are not part of the log.
func (l *timerLog) scan(fn func(pos int64, e entry)) {
	l.end = l.firstPos()
	for _, s := range l.segs {
		s.pending, s.maxPhy = 0, 0
	}
	for {
		e, ok := l.read(l.end)
		if !ok {
			break
		}
		s := l.seg(l.end)
		if e.state != stateDone {
			s.pending++
		}
		if e.phyOffset > s.maxPhy {
			s.maxPhy = e.phyOffset
		}
		fn(l.end, e)
		l.end += entrySize
	}
	// Segments wholly past the end (a crash between creating one and writing it) go.
	for len(l.segs) > 0 && l.segs[len(l.segs)-1].from > l.end {
		l.dropLast()
	}
}

func (l *timerLog) dropLast() {
	s := l.segs[len(l.segs)-1]
	_ = syscall.Munmap(s.data)
	_ = os.Remove(l.path(s.from))
	l.segs = l.segs[:len(l.segs)-1]
}

// pendingCount is the number of entries not yet delivered.
func (l *timerLog) pendingCount() int64 {
	var n int64
	for _, s := range l.segs {
		n += int64(s.pending)
	}
	return n
}

// deleteOld removes leading segments that are full and hold nothing to deliver: every
// entry done, or every parked record gone with the CommitLog's expiry (minPhy). It
// returns how many it removed.
func (l *timerLog) deleteOld(minPhy int64) int {
	n := 0
	for len(l.segs) > 1 {
		s := l.segs[0]
		if s.pending > 0 && s.maxPhy >= minPhy {
			break
		}
		_ = syscall.Munmap(s.data)
		if err := os.Remove(l.path(s.from)); err != nil && !os.IsNotExist(err) {
			break
		}
		l.segs = l.segs[1:]
		n++
	}
	return n
}

func (l *timerLog) flush() error {
	for _, s := range l.segs {
		if err := msync(s.data); err != nil {
			return err
		}
	}
	return nil
}

func (l *timerLog) close() {
	for _, s := range l.segs {
		_ = syscall.Munmap(s.data)
	}
	l.segs = nil
}

// relink rewrites an entry's chain link and slot time (the wheel's rebuild).
func (l *timerLog) relink(pos, prev, t int64) {
	s := l.seg(pos)
	b := s.data[pos-s.from:]
	binary.BigEndian.PutUint64(b[0:], uint64(prev))
	binary.BigEndian.PutUint64(b[8:], uint64(t))
}
