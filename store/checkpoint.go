package store

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
)

const checkpointSize = osPageSize

// checkpoint is the 4 KiB `checkpoint` file (Java: StoreCheckpoint): three int64
// timestamps that bound what is known to be on disk.
type checkpoint struct {
	data     []byte
	physicTs atomic.Int64 // store time of the last flushed CommitLog data
	logicsTs atomic.Int64 // store time of the last dispatched ConsumeQueue unit
	// logicsDurable is the logics time known to be flushed; flush persists it, not
	// logicsTs, so the file never claims units that are only in memory.
	logicsDurable atomic.Int64
	indexTs       atomic.Int64 // end time of the last flushed index file
}

func openCheckpoint(path string) (*checkpoint, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < checkpointSize {
		if err := f.Truncate(checkpointSize); err != nil {
			return nil, err
		}
	}
	data, err := mmapFile(f, checkpointSize)
	if err != nil {
		return nil, fmt.Errorf("store: map checkpoint: %w", err)
	}
	c := &checkpoint{data: data}
	be := binary.BigEndian
	c.physicTs.Store(int64(be.Uint64(data[0:])))
	c.logicsTs.Store(int64(be.Uint64(data[8:])))
	c.logicsDurable.Store(c.logicsTs.Load())
	c.indexTs.Store(int64(be.Uint64(data[16:])))
	return c, nil
}

// minTimestamp is Java StoreCheckpoint#getMinTimestamp: min(physic, logics) - 3 s.
func (c *checkpoint) minTimestamp() int64 {
	m := min(c.physicTs.Load(), c.logicsDurable.Load()) - 3000
	return max(m, 0)
}

// flush writes the three timestamps and msyncs the page.
func (c *checkpoint) flush() error {
	be := binary.BigEndian
	be.PutUint64(c.data[0:], uint64(c.physicTs.Load()))
	be.PutUint64(c.data[8:], uint64(c.logicsDurable.Load()))
	be.PutUint64(c.data[16:], uint64(c.indexTs.Load()))
	return msync(c.data, 0, checkpointSize)
}

func (c *checkpoint) close() error {
	err := c.flush()
	if e := syscall.Munmap(c.data); err == nil {
		err = e
	}
	return err
}
