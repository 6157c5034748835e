package configs

import "path/filepath"

// ConsumeQueueUnitSize is the size of one ConsumeQueue entry: int64 CommitLog offset,
// int32 size, int64 tag hash (Java: ConsumeQueue.CQ_STORE_UNIT_SIZE).
const ConsumeQueueUnitSize = 20

// MessageStoreConfig is Java's org.apache.rocketmq.store.config.MessageStoreConfig
// (4.9.8): one field per Java field, in declaration order, with Java's defaults from
// DefaultMessageStoreConfig. Tags as on BrokerConfig. Where a Java getter computes
// something from the raw field, a method here does the same (CommitLogDir,
// ConsumeQueueFileSize, EffectiveDiskMaxUsedSpaceRatio, EffectiveTransientStorePoolEnable);
// the store paths derived from StorePathRootDir are in paths.go.
type MessageStoreConfig struct {
	// The store root (default $HOME/store); every other store path derives from it.
	StorePathRootDir string `prop:"storePathRootDir,important"`
	// The CommitLog directory; empty means <storePathRootDir>/commitlog (see CommitLogDir).
	StorePathCommitLog string `prop:"storePathCommitLog,important,nullable"`
	// DLedger CommitLog directory (DLedger is not supported).
	StorePathDLedgerCommitLog string `prop:"storePathDLedgerCommitLog,important,nullable"`
	// Extra read-only CommitLog directories (multi-path CommitLog; not supported).
	ReadOnlyCommitLogStorePaths string `prop:"readOnlyCommitLogStorePaths,nullable"`
	// Size of one CommitLog file (1 GiB).
	MappedFileSizeCommitLog int32 `prop:"mappedFileSizeCommitLog"`
	// Size of one ConsumeQueue file: 300000 units of 20 bytes (rounded up to a unit, see ConsumeQueueFileSize).
	MappedFileSizeConsumeQueue int32 `prop:"mappedFileSizeConsumeQueue"`
	// Write consumequeue_ext (filter bitmaps).
	EnableConsumeQueueExt bool `prop:"enableConsumeQueueExt"`
	// Size of one consumequeue_ext file (48 MiB).
	MappedFileSizeConsumeQueueExt int32 `prop:"mappedFileSizeConsumeQueueExt"`
	// Filter bitmap length in bits.
	BitMapLengthConsumeQueueExt int32 `prop:"bitMapLengthConsumeQueueExt"`
	// Ms between CommitLog flushes (ASYNC_FLUSH).
	FlushIntervalCommitLog int32 `prop:"flushIntervalCommitLog,important"`
	// Ms between commits from the transient store pool.
	CommitIntervalCommitLog int32 `prop:"commitIntervalCommitLog,important"`
	// Lock appends with a mutex instead of a spin lock.
	UseReentrantLockWhenPutMessage bool `prop:"useReentrantLockWhenPutMessage"`
	// Flush at every interval rather than when woken.
	FlushCommitLogTimed bool `prop:"flushCommitLogTimed,important"`
	// Ms between ConsumeQueue flushes.
	FlushIntervalConsumeQueue int32 `prop:"flushIntervalConsumeQueue"`
	// Ms between expired-file cleanup rounds.
	CleanResourceInterval int32 `prop:"cleanResourceInterval"`
	// Ms between two CommitLog file deletions in one round.
	DeleteCommitLogFilesInterval int32 `prop:"deleteCommitLogFilesInterval"`
	// Ms between two ConsumeQueue file deletions in one round.
	DeleteConsumeQueueFilesInterval int32 `prop:"deleteConsumeQueueFilesInterval"`
	// Ms after which a still-referenced expired file is destroyed anyway.
	DestroyMapedFileIntervalForcibly int32 `prop:"destroyMapedFileIntervalForcibly"`
	// Ms between retries of a hanging deletion.
	RedeleteHangedFileInterval int32 `prop:"redeleteHangedFileInterval"`
	// Hours of the day ("04", "01;13") when expired files are deleted.
	DeleteWhen string `prop:"deleteWhen,important"`
	// Disk use percent above which files are deleted early (Java clamps to 10..95).
	DiskMaxUsedSpaceRatio int32 `prop:"diskMaxUsedSpaceRatio"`
	// Hours a CommitLog file is kept.
	FileReservedTime int32 `prop:"fileReservedTime,important"`
	// ConsumeQueue dispatch backlog that slows appends.
	PutMsgIndexHightWater int32 `prop:"putMsgIndexHightWater"`
	// Largest message body accepted (4 MiB).
	MaxMessageSize int32 `prop:"maxMessageSize"`
	// Verify body CRCs when recovering the CommitLog.
	CheckCRCOnRecover bool `prop:"checkCRCOnRecover"`
	// Pages (4 KiB) that must be dirty before a CommitLog flush.
	FlushCommitLogLeastPages int32 `prop:"flushCommitLogLeastPages"`
	// Pages that must be pending before a commit.
	CommitCommitLogLeastPages int32 `prop:"commitCommitLogLeastPages"`
	// Pages per flush while pre-touching a new file.
	FlushLeastPagesWhenWarmMapedFile int32 `prop:"flushLeastPagesWhenWarmMapedFile"`
	// Pages that must be dirty before a ConsumeQueue flush.
	FlushConsumeQueueLeastPages int32 `prop:"flushConsumeQueueLeastPages"`
	// Ms after which the CommitLog is flushed whatever is dirty.
	FlushCommitLogThoroughInterval int32 `prop:"flushCommitLogThoroughInterval"`
	// Ms after which pending data is committed whatever its size.
	CommitCommitLogThoroughInterval int32 `prop:"commitCommitLogThoroughInterval"`
	// Ms after which ConsumeQueues are flushed whatever is dirty.
	FlushConsumeQueueThoroughInterval int32 `prop:"flushConsumeQueueThoroughInterval"`
	// Pull batch byte limit when the data is in memory.
	MaxTransferBytesOnMessageInMemory int32 `prop:"maxTransferBytesOnMessageInMemory,important"`
	// Pull batch message limit when the data is in memory.
	MaxTransferCountOnMessageInMemory int32 `prop:"maxTransferCountOnMessageInMemory,important"`
	// Pull batch byte limit when the data is on disk.
	MaxTransferBytesOnMessageInDisk int32 `prop:"maxTransferBytesOnMessageInDisk,important"`
	// Pull batch message limit when the data is on disk.
	MaxTransferCountOnMessageInDisk int32 `prop:"maxTransferCountOnMessageInDisk,important"`
	// Percent of RAM below which data counts as in memory.
	AccessMessageInMemoryMaxRatio int32 `prop:"accessMessageInMemoryMaxRatio,important"`
	// Build the IndexFile (keys, unique keys).
	MessageIndexEnable bool `prop:"messageIndexEnable,important"`
	// Hash slots per IndexFile.
	MaxHashSlotNum int32 `prop:"maxHashSlotNum"`
	// Entries per IndexFile.
	MaxIndexNum int32 `prop:"maxIndexNum"`
	// Max messages returned by one index query.
	MaxMsgsNumBatch int32 `prop:"maxMsgsNumBatch"`
	// Recover the index conservatively after a crash.
	MessageIndexSafe bool `prop:"messageIndexSafe,important"`
	// HA port; BrokerStartup overrides it with listenPort + 1 (Broker.Resolve).
	HaListenPort int32 `prop:"haListenPort"`
	// Ms between slave heartbeats (offset reports).
	HaSendHeartbeatInterval int32 `prop:"haSendHeartbeatInterval"`
	// Ms of HA silence after which the connection is dropped.
	HaHousekeepingInterval int32 `prop:"haHousekeepingInterval"`
	// Bytes per HA transfer.
	HaTransferBatchSize int32 `prop:"haTransferBatchSize"`
	// The master HA address a slave connects to; empty: learnt from the NameServer.
	HaMasterAddress string `prop:"haMasterAddress,important,nullable"`
	// Bytes a slave may lag before SYNC_MASTER reports SLAVE_NOT_AVAILABLE.
	HaSlaveFallbehindMax int32 `prop:"haSlaveFallbehindMax"`
	// ASYNC_MASTER, SYNC_MASTER or SLAVE.
	BrokerRole BrokerRole `prop:"brokerRole,important"`
	// ASYNC_FLUSH or SYNC_FLUSH.
	FlushDiskType FlushDiskType `prop:"flushDiskType,important"`
	// Ms a SYNC_FLUSH send waits for the flush (then FLUSH_DISK_TIMEOUT).
	SyncFlushTimeout int32 `prop:"syncFlushTimeout"`
	// Ms a SYNC_MASTER send waits for the slave ack (then FLUSH_SLAVE_TIMEOUT).
	SlaveTimeout int32 `prop:"slaveTimeout"`
	// Delay levels 1..N, space-separated durations (s, m, h, d).
	MessageDelayLevel string `prop:"messageDelayLevel"`
	// Ms between delayOffset.json persists.
	FlushDelayOffsetInterval int64 `prop:"flushDelayOffsetInterval"`
	// Delete unexpired files when the disk is nearly full.
	CleanFileForciblyEnable bool `prop:"cleanFileForciblyEnable,important"`
	// Pre-touch new mapped files.
	WarmMapedFileEnable bool `prop:"warmMapedFileEnable"`
	// Let a slave correct a pull offset.
	OffsetCheckInSlave bool `prop:"offsetCheckInSlave"`
	// Log lock holding times.
	DebugLockEnable bool `prop:"debugLockEnable"`
	// Let a dispatch restart from the CommitLog start (duplicates CQ entries).
	DuplicationEnable bool `prop:"duplicationEnable"`
	// Record the "fall behind" disk statistics.
	DiskFallRecorded bool `prop:"diskFallRecorded"`
	// Ms an append may hold the lock before the page cache counts as busy (SYSTEM_BUSY).
	OsPageCacheBusyTimeOutMills int64 `prop:"osPageCacheBusyTimeOutMills"`
	// Default max results of a message query.
	DefaultQueryMaxNum int32 `prop:"defaultQueryMaxNum"`
	// Write through off-heap buffers, then commit (effective only with ASYNC_FLUSH on a master).
	TransientStorePoolEnable bool `prop:"transientStorePoolEnable,important"`
	// Buffers in the transient store pool.
	TransientStorePoolSize int32 `prop:"transientStorePoolSize"`
	// Answer SYSTEM_BUSY when the pool is empty.
	FastFailIfNoBufferInStorePool bool `prop:"fastFailIfNoBufferInStorePool"`
	// Use the DLedger (Raft) CommitLog; not supported by Skyrocket.
	EnableDLegerCommitLog bool `prop:"enableDLegerCommitLog"`
	// DLedger group.
	DLegerGroup string `prop:"dLegerGroup,nullable"`
	// DLedger peers.
	DLegerPeers string `prop:"dLegerPeers,nullable"`
	// DLedger self id. Java: dLegerSelfId.
	DLegerSelfID string `prop:"dLegerSelfId,nullable"`
	// DLedger preferred leader. Java: preferredLeaderId.
	PreferredLeaderID string `prop:"preferredLeaderId,nullable"`
	// DLedger batch push. Java: isEnableBatchPush.
	EnableBatchPush bool `prop:"enableBatchPush,field=isEnableBatchPush"`
	// Count delayed message deliveries.
	EnableScheduleMessageStats bool `prop:"enableScheduleMessageStats"`
	// Light message queues (%LMQ%).
	EnableLmq bool `prop:"enableLmq"`
	// Dispatch one message to several queues (INNER_MULTI_DISPATCH).
	EnableMultiDispatch bool `prop:"enableMultiDispatch"`
	// Max light message queues.
	MaxLmqConsumeQueueNum int32 `prop:"maxLmqConsumeQueueNum"`
	// Deliver delayed messages asynchronously.
	EnableScheduleAsyncDeliver bool `prop:"enableScheduleAsyncDeliver"`
	// Pending async deliveries per level.
	ScheduleAsyncDeliverMaxPendingLimit int32 `prop:"scheduleAsyncDeliverMaxPendingLimit"`
	// Resends before an async delivery blocks.
	ScheduleAsyncDeliverMaxResendNum2Blocked int32 `prop:"scheduleAsyncDeliverMaxResendNum2Blocked"`
}

// DefaultMessageStoreConfig returns Java's defaults; StorePathRootDir is $HOME/store.
func DefaultMessageStoreConfig() MessageStoreConfig {
	return MessageStoreConfig{
		StorePathRootDir:                         filepath.Join(userHome(), "store"),
		MappedFileSizeCommitLog:                  1 << 30,
		MappedFileSizeConsumeQueue:               300000 * ConsumeQueueUnitSize,
		MappedFileSizeConsumeQueueExt:            48 << 20,
		BitMapLengthConsumeQueueExt:              64,
		FlushIntervalCommitLog:                   500,
		CommitIntervalCommitLog:                  200,
		UseReentrantLockWhenPutMessage:           true,
		FlushCommitLogTimed:                      true,
		FlushIntervalConsumeQueue:                1000,
		CleanResourceInterval:                    10000,
		DeleteCommitLogFilesInterval:             100,
		DeleteConsumeQueueFilesInterval:          100,
		DestroyMapedFileIntervalForcibly:         120000,
		RedeleteHangedFileInterval:               120000,
		DeleteWhen:                               "04",
		DiskMaxUsedSpaceRatio:                    75,
		FileReservedTime:                         72,
		PutMsgIndexHightWater:                    600000,
		MaxMessageSize:                           4 << 20,
		CheckCRCOnRecover:                        true,
		FlushCommitLogLeastPages:                 4,
		CommitCommitLogLeastPages:                4,
		FlushLeastPagesWhenWarmMapedFile:         4096,
		FlushConsumeQueueLeastPages:              2,
		FlushCommitLogThoroughInterval:           10000,
		CommitCommitLogThoroughInterval:          200,
		FlushConsumeQueueThoroughInterval:        60000,
		MaxTransferBytesOnMessageInMemory:        262144,
		MaxTransferCountOnMessageInMemory:        32,
		MaxTransferBytesOnMessageInDisk:          65536,
		MaxTransferCountOnMessageInDisk:          8,
		AccessMessageInMemoryMaxRatio:            40,
		MessageIndexEnable:                       true,
		MaxHashSlotNum:                           5000000,
		MaxIndexNum:                              20000000,
		MaxMsgsNumBatch:                          64,
		HaListenPort:                             10912,
		HaSendHeartbeatInterval:                  5000,
		HaHousekeepingInterval:                   20000,
		HaTransferBatchSize:                      32768,
		HaSlaveFallbehindMax:                     256 << 20,
		BrokerRole:                               AsyncMaster,
		FlushDiskType:                            AsyncFlush,
		SyncFlushTimeout:                         5000,
		SlaveTimeout:                             3000,
		MessageDelayLevel:                        "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h",
		FlushDelayOffsetInterval:                 10000,
		CleanFileForciblyEnable:                  true,
		DiskFallRecorded:                         true,
		OsPageCacheBusyTimeOutMills:              1000,
		DefaultQueryMaxNum:                       32,
		TransientStorePoolSize:                   5,
		EnableScheduleMessageStats:               true,
		MaxLmqConsumeQueueNum:                    20000,
		ScheduleAsyncDeliverMaxPendingLimit:      2000,
		ScheduleAsyncDeliverMaxResendNum2Blocked: 3,
	}
}
