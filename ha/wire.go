package ha

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The HA stream's two messages (doc.go draws them). Both are big-endian.
const (
	ReportSize = 8  // slave -> master: int64 slave max CommitLog offset
	HeaderSize = 12 // master -> slave: int64 startPhyOffset | int32 size, then size bytes
	// MaxFrameBody is the largest body a Java slave can take: its read buffer is 4 MiB
	// and holds the header too (HAService.HAClient READ_MAX_BUFFER_SIZE).
	MaxFrameBody = 4<<20 - HeaderSize
)

// errBadFrameSize is returned by the slave's frame reader for a negative or oversized size.
var errBadFrameSize = errors.New("ha: bad frame size")

func putHeader(b []byte, offset int64, size int32) {
	binary.BigEndian.PutUint64(b, uint64(offset))
	binary.BigEndian.PutUint32(b[8:], uint32(size))
}

// frameReader cuts the master's byte stream into frames. The caller reads from the
// socket into space(), calls filled(n), then takes frames with next until it reports
// none, then calls compact. Frames may be split anywhere across reads; a body is handed
// out as a slice of the buffer, valid until the next compact.
type frameReader struct {
	buf  []byte
	r, w int // unread bytes are buf[r:w]
}

func newFrameReader(size int) *frameReader { return &frameReader{buf: make([]byte, size)} }

func (f *frameReader) reset()        { f.r, f.w = 0, 0 }
func (f *frameReader) space() []byte { return f.buf[f.w:] }
func (f *frameReader) filled(n int)  { f.w += n }
func (f *frameReader) buffered() int { return f.w - f.r }

// header returns the header of the frame at the read position, once its 12 bytes are
// there; err for a size no slave can take.
func (f *frameReader) header() (offset int64, size int32, ok bool, err error) {
	if f.w-f.r < HeaderSize {
		return 0, 0, false, nil
	}
	h := f.buf[f.r:]
	offset = int64(binary.BigEndian.Uint64(h))
	size = int32(binary.BigEndian.Uint32(h[8:]))
	if size < 0 || size > MaxFrameBody {
		return offset, size, true, fmt.Errorf("%w: %d at offset %d", errBadFrameSize, size, offset)
	}
	return offset, size, true, nil
}

// next returns the next whole frame and consumes it; ok is false when it is not all
// there yet.
func (f *frameReader) next() (offset int64, body []byte, ok bool, err error) {
	offset, size, ok, err := f.header()
	if !ok || err != nil {
		return offset, nil, false, err
	}
	end := f.r + HeaderSize + int(size)
	if end > f.w {
		return offset, nil, false, nil
	}
	body = f.buf[f.r+HeaderSize : end : end]
	f.r = end
	return offset, body, true, nil
}

// compact makes room for the rest of a partial frame: it moves the unread bytes to the
// front when the frame would not fit after them (or nothing is unread).
func (f *frameReader) compact() {
	if f.r == f.w {
		f.r, f.w = 0, 0
		return
	}
	need := HeaderSize
	if _, size, ok, err := f.header(); ok && err == nil {
		need += int(size)
	}
	if f.r > 0 && f.r+need > len(f.buf) {
		f.w = copy(f.buf, f.buf[f.r:f.w])
		f.r = 0
	}
}

// reportReader keeps the 8-byte alignment of the slave's report stream across reads
// and yields the newest whole report of each read, as Java's master does
// (HAConnection.ReadSocketService: the last complete 8-byte word).
type reportReader struct {
	buf [32 * ReportSize]byte
	n   int // bytes of an incomplete report at the front
}

func (r *reportReader) space() []byte { return r.buf[r.n:] }

// filled records n new bytes and returns the newest whole report among them, if any.
func (r *reportReader) filled(n int) (report int64, ok bool) {
	total := r.n + n
	whole := total - total%ReportSize
	if whole > 0 {
		report = int64(binary.BigEndian.Uint64(r.buf[whole-ReportSize:]))
		ok = true
	}
	r.n = copy(r.buf[:], r.buf[whole:total])
	return report, ok
}

// partial is how many bytes of an incomplete report are buffered.
func (r *reportReader) partial() int { return r.n }
