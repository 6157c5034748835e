package store

// What the HA package (master/slave replication) needs beyond read.go's CommitLogData
// and AppendToCommitLog.

// CommitLogFileSize is mappedFileSizeCommitLog: the size of every CommitLog file. A
// master sends an empty slave the newest file from its start (Java:
// HAConnection.WriteSocketService, maxOffset - maxOffset % mappedFileSizeCommitLog).
func (s *Store) CommitLogFileSize() int64 { return s.clSize }

// Chunk is a held slice of one CommitLog file (see CommitLogChunk). The file stays
// mapped until Release, even if it is deleted meanwhile.
type Chunk struct {
	Data []byte
	mf   *mappedFile
}

// Release lets the file go; Data must not be used afterwards. Releasing twice, or a zero
// Chunk, is harmless.
func (c *Chunk) Release() {
	if c.mf != nil {
		c.mf.release()
		c.mf = nil
	}
	c.Data = nil
}

// CommitLogChunk returns the CommitLog bytes from offset to the end of the written data
// of the file that holds offset (for a full file: its end, the blank and the padding
// after it included), held until Release. It is CommitLogData without its two costs for
// a replication stream: no allocation (no release closure) and no fallback (offset 0 on
// a store whose first file starts later is empty, never the first file's data, so a
// caller cannot label one file's bytes with another's offset). Data is nil when no file
// holds offset or nothing is written there yet.
func (s *Store) CommitLogChunk(offset int64) Chunk {
	if s.closed.Load() || offset < 0 {
		return Chunk{}
	}
	b, mf := s.cl.sliceToEnd(offset, false)
	if mf == nil {
		return Chunk{}
	}
	return Chunk{Data: b, mf: mf}
}
