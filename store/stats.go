package store

import (
	"path/filepath"
	"time"
)

// Stats are the store's counters as numbers (Java: StoreStatsService's totals and the
// CommitLog's bounds). Reading them costs atomic loads and no system call: the broker's
// per-second samplers read Stats, GET_BROKER_RUNTIME_INFO reads RuntimeInfo (built from
// Stats and DiskUsage).
type Stats struct {
	Boot             time.Time // when the store opened
	PutMessageTimes  int64     // messages stored; RuntimeInfo reports max(this, 1) as Java does
	PutMessageBytes  int64     // bytes of the stored records
	PutMessageFailed int64     // puts refused
	PutMessageMaxMs  int64     // longest put, ms
	GetMessageMaxMs  int64     // longest GetMessage, ms
	CommitLogMinOffset,
	CommitLogMaxOffset int64
}

// Stats returns the counters.
func (s *Store) Stats() Stats {
	return Stats{
		Boot:               s.stats.boot,
		PutMessageTimes:    s.stats.putTimes.Load(),
		PutMessageBytes:    s.stats.putBytes.Load(),
		PutMessageFailed:   s.stats.putFailed.Load(),
		PutMessageMaxMs:    s.stats.putMaxMs.Load(),
		GetMessageMaxMs:    s.stats.getMaxMs.Load(),
		CommitLogMinOffset: s.MinPhyOffset(),
		CommitLogMaxOffset: s.MaxPhyOffset(),
	}
}

// DiskUsage is the used fraction (0..1) of the partitions holding the store's
// directories, -1 where it cannot be read (Java: UtilAll#getDiskPartitionSpaceUsedPercent).
type DiskUsage struct {
	CommitLog    float64 // storePathCommitLog
	ConsumeQueue float64 // <root>/consumequeue
	Index        float64 // <root>/index (-1 until the first index file exists, as in Java)
}

// DiskUsage measures the partitions: one statfs per directory.
func (s *Store) DiskUsage() DiskUsage {
	return DiskUsage{
		CommitLog:    s.cfg.diskUsedRatio(s.cfg.CommitLogDir),
		ConsumeQueue: s.cfg.diskUsedRatio(s.cqRoot()),
		Index:        s.cfg.diskUsedRatio(filepath.Join(s.cfg.RootDir, "index")),
	}
}
