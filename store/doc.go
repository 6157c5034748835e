// Package store is the message store: Java RocketMQ 4.9.8's on-disk format byte for
// byte (a store directory written by Java opens here and the reverse), with the
// services that flush, dispatch and clean it (Java: DefaultMessageStore, CommitLog,
// ConsumeQueue, IndexService, StoreCheckpoint). It knows nothing of the wire; it imports
// only codec/message, compat and zerolog.
//
// # Directory
//
//	<root>/commitlog/<20-digit start offset>      mappedFileSizeCommitLog bytes each (1 GiB)
//	<root>/consumequeue/<topic>/<queueId>/<20-digit start byte offset>   300,000 units each
//	<root>/index/<yyyyMMddHHmmssSSS, local time>   40 + slots*4 + entries*20 bytes
//	<root>/checkpoint   4 KiB      <root>/abort   empty marker      <root>/lock   flock'd
//
// # CommitLog record (codec/message has the full table; all integers big-endian)
//
//	0 TOTALSIZE int32 | 4 MAGIC 0xDAA320A7 | 8 BODYCRC | 12 QUEUEID | 16 FLAG |
//	20 QUEUEOFFSET int64 | 28 PHYSICALOFFSET int64 | 36 SYSFLAG | 40 BORNTIMESTAMP int64 |
//	48 BORNHOST 8/20 | STORETIMESTAMP int64 | STOREHOST 8/20 | RECONSUMETIMES |
//	PREPAREDTXOFFSET int64 | BODYLEN int32 + BODY | TOPICLEN int8 + TOPIC |
//	PROPSLEN int16 + PROPERTIES
//
// Records sit back to back; one never crosses a file. When a record and an 8-byte blank
// no longer fit, the file ends with a blank: int32 remaining ‖ int32 0xCBD43194.
//
// # ConsumeQueue unit (20 bytes): logical offset N at byte N*20
//
//	+------------------+--------------+-------------------+
//	| int64 phyOffset  | int32 size   | int64 tagsCode    |
//	+------------------+--------------+-------------------+
//	tagsCode = String#hashCode(TAGS) sign-extended, 0 without tags; in
//	SCHEDULE_TOPIC_XXXX the deliver time. A queue starting past 0 is padded with
//	(0, Integer.MAX_VALUE, 0).
//
// # IndexFile
//
//	header (40): int64 beginTimestamp | int64 endTimestamp | int64 beginPhyOffset |
//	             int64 endPhyOffset | int32 hashSlotCount | int32 indexCount (starts at 1)
//	slots  (maxHashSlotNum x 4): int32 newest entry number of the bucket, 0 = empty
//	entries (maxIndexNum x 20): int32 keyHash | int64 phyOffset | int32 timeDiff seconds
//	             from beginTimestamp | int32 previous entry in the bucket
//	keyHash = abs(String#hashCode("topic#key")), slot = keyHash % maxHashSlotNum; keys are
//	topic#UNIQ_KEY and topic#k for each space-separated KEYS token (not for ROLLBACK).
//
// # checkpoint (4 KiB, only the first 24 bytes used)
//
//	int64 physicMsgTimestamp | int64 logicsMsgTimestamp | int64 indexMsgTimestamp
//
// # Durability and disk space
//
// Every mapped file is created under a temporary name, sized, mapped and renamed into
// place. A CommitLog file is fallocated whole and fsynced with its directory before use;
// the next one is made in the background once the current one is half written (warm.go).
// ConsumeQueue and IndexFile files are sparse, as Java's are, and reserved with fallocate
// just ahead of what is written into them (lazy.go): a fresh store takes about one
// CommitLog file of real disk, not two plus a fallocated 400 MB index and 6 MB per queue.
// Java's sparse files turn a full disk into a SIGBUS on a write into the mapping; here
// every write lands on reserved blocks, so a full disk is an ENOSPC from fallocate: the
// put answers CREATE_MAPEDFILE_FAILED (or dispatch holds the puts until a ConsumeQueue
// can grow), nothing stored is touched, no partial file is left, and the next try goes
// on. Flushing is msync(MS_SYNC) of the dirty range, which on Linux is an fdatasync of
// that range, or an fdatasync of the file on the descriptor write path: WaitFlushed
// returning nil means the bytes are on stable storage. Files are deleted by unlinking them at once; their mapping lives until the
// last reader releases it, so cleanup never waits for readers and never unmaps under one.
//
// # Write path
//
// Under ASYNC_FLUSH (the default) the appender encodes each record straight into the
// mapped CommitLog file and the flush is an msync of the dirty range. Under SYNC_FLUSH
// (Config.CommitLogWrite) it encodes into a buffer and pwrites it through the file's
// descriptor at the write position, and the flush is an fdatasync: a page written
// through the mapping after its writeback faults again for writing (page_mkwrite), and
// 1 KiB made durable through the mapping + msync measured 3-5x slower than pwrite +
// fdatasync on the same disk (BenchmarkDisk_Durable1KiB). Both paths fill the same page
// cache, so every reader (pull, dispatch, HA, recovery) reads the mappings either way,
// and the bytes on disk are the same. The position is published (an atomic store of the
// file's write position) only after pwrite returned, so a reader never sees a record
// that is not in the page cache, and a failed pwrite publishes nothing.
//
// Under ASYNC_FLUSH the flush is Java's: an msync every flushIntervalCommitLog (500 ms)
// once flushCommitLogLeastPages pages are dirty. Between two flushes the flushing
// goroutine starts, every 10 ms, the writeback of the whole pages appended since
// (sync_file_range SYNC_FILE_RANGE_WRITE; flush.go, writeback), so the msync finds them
// written: one msync writing 500 ms of appends at once held up the sends of those
// milliseconds. It changes when bytes reach the disk, not what a flush promises.
//
// A SYNC_FLUSH group commit syncs everything appended before it starts, publishes the
// new flushed offset (every waiter it covers is released), and starts again at once if
// a waiter arrived during the sync: one sync in flight, each covering all that was
// appended by the time the previous one returned. A flush hook (SetFlushHook) runs on
// the flushing goroutine after each publish, before the next sync: the broker answers
// its SYNC_FLUSH sends there, with no goroutine hand-off in between.
//
// # Recovery
//
// No abort file: trust the files, scan the last three CommitLog files. Abort file: scan
// from the last file whose first record is older than the checkpoint. The scan checks
// magic, sizes, body CRC (checkCRCOnRecover), that each record says it is stored where
// it is, and that its topic is a plausible name; the first failure is the end, and the
// bytes after it are zeroed so they can never be read back. ConsumeQueues are cut at
// that end; the records the ConsumeQueues or the index lack are dispatched again
// (Java forgets index entries written after the last full index file; we rebuild them).
//
// # Lock order
//
//	Store.cqMu  ->  Store.putMu  ->  mappedQueue.mu (any queue)
//	indexService.mu and Store.flushMu are leaves.
//
// putMu is the append lock: one appender at a time encodes a record straight into the
// mapped CommitLog (or pwrites it, see Write path) and assigns the queue offset. Readers take no lock on the data: the
// writer publishes with an atomic store of the write position, readers load it and read
// below it, holding a reference on the file (mappedFile.hold/release).
//
// # Goroutines (stopped by Close)
//
// dispatch (Java ReputMessageService), CommitLog flush (FlushRealTimeService or
// GroupCommitService), ConsumeQueue flush + checkpoint, cleanup (CleanCommitLogService,
// CleanConsumeQueueService), disk check; and a short one per full index file to flush it.
package store
