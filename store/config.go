package store

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// Config holds the Java MessageStoreConfig fields the store uses, with the same meanings
// and defaults (DefaultConfig). Open fills any zero numeric field with its default, so
// a zero Config plus RootDir works; booleans whose Java default is true
// (CheckCRCOnRecover, MessageIndexEnable, CleanFileForciblyEnable) are only true when
// the Config comes from DefaultConfig or sets them.
type Config struct {
	RootDir      string // storePathRootDir, default $HOME/store
	CommitLogDir string // storePathCommitLog, default RootDir/commitlog

	MappedFileSizeCommitLog    int64 // 1 GiB
	MappedFileSizeConsumeQueue int64 // 300000 * 20 bytes; rounded up to a multiple of 20

	FlushDiskType                     FlushDiskType
	FlushInterval                     time.Duration // flushIntervalCommitLog, 500ms
	FlushCommitLogLeastPages          int           // 4
	FlushCommitLogThoroughInterval    time.Duration // 10s
	FlushConsumeQueueInterval         time.Duration // flushIntervalConsumeQueue, 1s
	FlushConsumeQueueLeastPages       int           // 2
	FlushConsumeQueueThoroughInterval time.Duration // 60s
	SyncFlushTimeout                  time.Duration // 5s

	FileReservedTime                time.Duration // 72h
	DeleteWhen                      string        // "04": hours of the day, ';'-separated
	DiskMaxUsedSpaceRatio           int           // 75 (percent)
	DiskSpaceWarningLevelRatio      float64       // 0.90: above it puts are refused (disk full)
	DiskSpaceCleanForciblyRatio     float64       // 0.85: above it files are deleted before they expire
	CleanFileForciblyEnable         bool          // true
	CleanResourceInterval           time.Duration // 10s
	DeleteCommitLogFilesInterval    time.Duration // 100ms between two deleted CommitLog files
	DeleteConsumeQueueFilesInterval time.Duration // 100ms

	MaxMessageSize    int  // 4 MiB: body limit; a whole record may be up to 64 KiB more
	CheckCRCOnRecover bool // true

	MessageIndexEnable bool // true
	MaxHashSlotNum     int  // 5,000,000
	MaxIndexNum        int  // 20,000,000
	MaxMsgsNumBatch    int  // 64: cap of one index query
	DefaultQueryMaxNum int  // 32 (used by the broker's QUERY_MESSAGE)

	MessageDelayLevel string // "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"

	MaxTransferBytesOnMessageInMemory int // 256 KiB
	MaxTransferCountOnMessageInMemory int // 32
	MaxTransferBytesOnMessageInDisk   int // 64 KiB
	MaxTransferCountOnMessageInDisk   int // 8
	// AccessMessageInMemoryMaxRatio is the percent of physical memory behind the CommitLog
	// end still counted as in memory (40). 0 means the default; a negative value means
	// Java's accessMessageInMemoryMaxRatio=0: every message counts as on disk, and every
	// pull with a backlog suggests the slave (DefaultMessageStore#getMessage).
	AccessMessageInMemoryMaxRatio int

	OSPageCacheBusyTimeout time.Duration // osPageCacheBusyTimeOutMills, 1s

	// DisableFilePreAllocation turns off creating the next CommitLog file in the background
	// (warm.go); DisablePageWarming turns off populating CommitLog pages ahead of the write
	// position. Both are on by default (the zero value).
	DisableFilePreAllocation bool
	DisablePageWarming       bool
	// DisableZeroFill turns off writing zeros over the pre-created CommitLog file under
	// SYNC_FLUSH (zerofill.go); it is on by default with SYNC_FLUSH and never used with
	// ASYNC_FLUSH.
	DisableZeroFill bool
	// DisableWriteback turns off starting the CommitLog's writeback between ASYNC_FLUSH
	// flushes (flush.go, writeback): the flush then writes back all that FlushInterval
	// gathered at once, as Java's FlushRealTimeService does.
	DisableWriteback bool
	// CommitLogWrite chooses how records reach the CommitLog (doc.go, "Write path"):
	// CommitLogWriteAuto (the zero value) picks by flush type.
	CommitLogWrite CommitLogWriteMode

	// Slave: the store refuses PutMessage with PutServiceNotAvailable, accepts
	// AppendToCommitLog, and does not call OnArrive (Java: brokerRole SLAVE).
	Slave bool
	// ReadOnly refuses every write (PutServiceNotAvailable), as a slave does.
	ReadOnly bool
	// OffsetCheckInSlave: a slave corrects nextBeginOffset like a master (Java default false).
	OffsetCheckInSlave bool

	// OnArrive is called by dispatch after a message entered its ConsumeQueue, with the
	// queue's new max offset (Java: MessageArrivingListener#arriving, logicOffset = cq
	// offset + 1). props is a slice of the mapped CommitLog valid only during the call.
	// It runs on the dispatch goroutine: it must not block.
	OnArrive func(topic string, queueID int32, logicOffset int64, tagsCode int64, storeTimestamp int64, props []byte)

	// OnRecoveryProgress, when set, is called from Open as the load and recovery advance
	// (at each CommitLog file and every 1000 ConsumeQueues): /healthz reports it.
	OnRecoveryProgress func(RecoveryProgress)

	Logger zerolog.Logger

	// Test hooks; nil (or 0) means the real thing.
	indexInlineMax   int64       // replay at most this many CommitLog bytes into the index during Open (indexInlineMaxDefault)
	indexCatchUpHook func() bool // before each step of the background index rebuild: false postpones it
	now              func() time.Time
	fallocate        allocFunc
	diskUsedRatio    func(path string) float64
}

// DefaultConfig returns Java's MessageStoreConfig defaults rooted at root.
func DefaultConfig(root string) Config {
	return Config{
		RootDir:                           root,
		MappedFileSizeCommitLog:           1 << 30,
		MappedFileSizeConsumeQueue:        300000 * cqUnitSize,
		FlushDiskType:                     AsyncFlush,
		FlushInterval:                     500 * time.Millisecond,
		FlushCommitLogLeastPages:          4,
		FlushCommitLogThoroughInterval:    10 * time.Second,
		FlushConsumeQueueInterval:         time.Second,
		FlushConsumeQueueLeastPages:       2,
		FlushConsumeQueueThoroughInterval: 60 * time.Second,
		SyncFlushTimeout:                  5 * time.Second,
		FileReservedTime:                  72 * time.Hour,
		DeleteWhen:                        "04",
		DiskMaxUsedSpaceRatio:             75,
		DiskSpaceWarningLevelRatio:        0.90,
		DiskSpaceCleanForciblyRatio:       0.85,
		CleanFileForciblyEnable:           true,
		CleanResourceInterval:             10 * time.Second,
		DeleteCommitLogFilesInterval:      100 * time.Millisecond,
		DeleteConsumeQueueFilesInterval:   100 * time.Millisecond,
		MaxMessageSize:                    4 << 20,
		CheckCRCOnRecover:                 true,
		MessageIndexEnable:                true,
		MaxHashSlotNum:                    5000000,
		MaxIndexNum:                       5000000 * 4,
		MaxMsgsNumBatch:                   64,
		DefaultQueryMaxNum:                32,
		MessageDelayLevel:                 "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h",
		MaxTransferBytesOnMessageInMemory: 256 << 10,
		MaxTransferCountOnMessageInMemory: 32,
		MaxTransferBytesOnMessageInDisk:   64 << 10,
		MaxTransferCountOnMessageInDisk:   8,
		AccessMessageInMemoryMaxRatio:     40,
		OSPageCacheBusyTimeout:            time.Second,
		Logger:                            zerolog.Nop(),
	}
}

// withDefaults fills zero numeric fields and derived paths.
func (c Config) withDefaults() Config {
	d := DefaultConfig(c.RootDir)
	if c.RootDir == "" {
		home, _ := os.UserHomeDir()
		c.RootDir = filepath.Join(home, "store")
	}
	if c.CommitLogDir == "" {
		c.CommitLogDir = filepath.Join(c.RootDir, "commitlog")
	}
	setI64 := func(v *int64, def int64) {
		if *v <= 0 {
			*v = def
		}
	}
	setInt := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	setDur := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	setF := func(v *float64, def float64) {
		if *v <= 0 {
			*v = def
		}
	}
	setI64(&c.MappedFileSizeCommitLog, d.MappedFileSizeCommitLog)
	setI64(&c.MappedFileSizeConsumeQueue, d.MappedFileSizeConsumeQueue)
	// Java: MessageStoreConfig#getMappedFileSizeConsumeQueue rounds up to whole units.
	c.MappedFileSizeConsumeQueue = (c.MappedFileSizeConsumeQueue + cqUnitSize - 1) / cqUnitSize * cqUnitSize
	setDur(&c.FlushInterval, d.FlushInterval)
	setInt(&c.FlushCommitLogLeastPages, d.FlushCommitLogLeastPages)
	setDur(&c.FlushCommitLogThoroughInterval, d.FlushCommitLogThoroughInterval)
	setDur(&c.FlushConsumeQueueInterval, d.FlushConsumeQueueInterval)
	setInt(&c.FlushConsumeQueueLeastPages, d.FlushConsumeQueueLeastPages)
	setDur(&c.FlushConsumeQueueThoroughInterval, d.FlushConsumeQueueThoroughInterval)
	setDur(&c.SyncFlushTimeout, d.SyncFlushTimeout)
	setDur(&c.FileReservedTime, d.FileReservedTime)
	if c.DeleteWhen == "" {
		c.DeleteWhen = d.DeleteWhen
	}
	setInt(&c.DiskMaxUsedSpaceRatio, d.DiskMaxUsedSpaceRatio)
	setF(&c.DiskSpaceWarningLevelRatio, d.DiskSpaceWarningLevelRatio)
	setF(&c.DiskSpaceCleanForciblyRatio, d.DiskSpaceCleanForciblyRatio)
	setDur(&c.CleanResourceInterval, d.CleanResourceInterval)
	setDur(&c.DeleteCommitLogFilesInterval, d.DeleteCommitLogFilesInterval)
	setDur(&c.DeleteConsumeQueueFilesInterval, d.DeleteConsumeQueueFilesInterval)
	setInt(&c.MaxMessageSize, d.MaxMessageSize)
	setInt(&c.MaxHashSlotNum, d.MaxHashSlotNum)
	setInt(&c.MaxIndexNum, d.MaxIndexNum)
	setInt(&c.MaxMsgsNumBatch, d.MaxMsgsNumBatch)
	setInt(&c.DefaultQueryMaxNum, d.DefaultQueryMaxNum)
	if c.MessageDelayLevel == "" {
		c.MessageDelayLevel = d.MessageDelayLevel
	}
	setInt(&c.MaxTransferBytesOnMessageInMemory, d.MaxTransferBytesOnMessageInMemory)
	setInt(&c.MaxTransferCountOnMessageInMemory, d.MaxTransferCountOnMessageInMemory)
	setInt(&c.MaxTransferBytesOnMessageInDisk, d.MaxTransferBytesOnMessageInDisk)
	setInt(&c.MaxTransferCountOnMessageInDisk, d.MaxTransferCountOnMessageInDisk)
	if c.AccessMessageInMemoryMaxRatio == 0 { // negative: Java's 0 (see the field)
		c.AccessMessageInMemoryMaxRatio = d.AccessMessageInMemoryMaxRatio
	}
	setDur(&c.OSPageCacheBusyTimeout, d.OSPageCacheBusyTimeout)
	if c.now == nil {
		c.now = time.Now
	}
	if c.indexInlineMax == 0 {
		c.indexInlineMax = indexInlineMaxDefault
	}
	if c.fallocate == nil {
		c.fallocate = preallocate
	}
	if c.diskUsedRatio == nil {
		c.diskUsedRatio = DiskUsedRatio
	}
	return c
}

// parseDelayLevels parses messageDelayLevel into delays in ms, level 1 first (Java:
// ScheduleMessageService#parseDelayLevel; units s, m, h, d). Bad entries are skipped.
func parseDelayLevels(s string) []int64 {
	units := map[byte]int64{'s': 1000, 'm': 60000, 'h': 3600000, 'd': 86400000}
	var out []int64
	for _, f := range strings.Split(s, " ") {
		if len(f) < 2 {
			continue
		}
		u, ok := units[f[len(f)-1]]
		n, err := strconv.ParseInt(f[:len(f)-1], 10, 64)
		if !ok || err != nil {
			continue
		}
		out = append(out, n*u)
	}
	return out
}

// isTimeToDelete is Java UtilAll#isItTimeToDo: the local hour is one of when's.
func isTimeToDelete(when string, now time.Time) bool {
	for _, w := range strings.Split(when, ";") {
		if h, err := strconv.Atoi(strings.TrimSpace(w)); err == nil && h == now.Hour() {
			return true
		}
	}
	return false
}

// CommitLogWriteMode is how the appender puts records into the CommitLog file.
type CommitLogWriteMode int

const (
	// CommitLogWriteAuto is CommitLogWriteFD under SYNC_FLUSH, CommitLogWriteMapped
	// under ASYNC_FLUSH (measured: docs/benchmarks.md, "SYNC_FLUSH write path").
	CommitLogWriteAuto CommitLogWriteMode = iota
	// CommitLogWriteFD encodes each record into a buffer and writes it with pwrite
	// through the file's descriptor; the flush is an fdatasync.
	CommitLogWriteFD
	// CommitLogWriteMapped encodes each record straight into the mapped file; the flush
	// is an msync of the dirty range (Java's way).
	CommitLogWriteMapped
)

// commitLogFD reports whether the CommitLog is written through its descriptor.
func (c Config) commitLogFD() bool {
	switch c.CommitLogWrite {
	case CommitLogWriteFD:
		return true
	case CommitLogWriteMapped:
		return false
	}
	return c.FlushDiskType == SyncFlush
}
