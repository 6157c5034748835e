package timer

import (
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

const slotSize = 24

// wheel is the mapped slot file: slot i holds the newest entry of the entries due at a
// time t with t/precision % len == i, for the one round whose time it records.
type wheel struct {
	path      string
	data      []byte
	slots     int64
	precision int64
}

func openWheel(path string, slots, precision int64) (*wheel, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := slots * slotSize
	// The wheel is rebuilt from the log at every start: a fresh file of the right size.
	if err := f.Truncate(0); err != nil {
		return nil, err
	}
	if err := f.Truncate(size); err != nil {
		return nil, err
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("timer: map %s: %w", path, err)
	}
	return &wheel{path: path, data: data, slots: slots, precision: precision}, nil
}

func (w *wheel) at(t int64) []byte {
	i := (t / w.precision) % w.slots
	return w.data[i*slotSize : (i+1)*slotSize]
}

// slot returns the newest entry position+1 and the count of slot time t; zero when the
// slot records another round.
func (w *wheel) slot(t int64) (lastPos int64, num int32) {
	b := w.at(t)
	if int64(binary.BigEndian.Uint64(b)) != t {
		return 0, 0
	}
	return int64(binary.BigEndian.Uint64(b[8:])), int32(binary.BigEndian.Uint32(b[16:]))
}

// link makes pos the newest entry of slot t and returns the previous newest (+1).
func (w *wheel) link(t, pos int64) int64 {
	b := w.at(t)
	prev, num := int64(0), uint32(0)
	if int64(binary.BigEndian.Uint64(b)) == t {
		prev = int64(binary.BigEndian.Uint64(b[8:]))
		num = binary.BigEndian.Uint32(b[16:])
	}
	binary.BigEndian.PutUint64(b, uint64(t))
	binary.BigEndian.PutUint64(b[8:], uint64(pos+1))
	binary.BigEndian.PutUint32(b[16:], num+1)
	return prev
}

func (w *wheel) close() {
	if w.data != nil {
		_ = syscall.Munmap(w.data)
		w.data = nil
	}
}

// msync writes a mapped range back to its file.
func msync(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, _, e := syscall.Syscall(syscall.SYS_MSYNC, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), syscall.MS_SYNC)
	if e != 0 {
		return e
	}
	return nil
}
