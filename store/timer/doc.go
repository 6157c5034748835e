// Package timer is Skyrocket's persistent timing wheel for arbitrary-delay messages: the
// 5.x timer properties (TIMER_DELIVER_MS, TIMER_DELAY_SEC, TIMER_DELAY_MS) served to
// unmodified 4.x clients. Java peer: TimerMessageStore, TimerWheel, TimerLog and
// TimerCheckpoint of the 5.x store (RIP-43); the layout here is our own.
//
// The broker parks a timer message in the CommitLog under Topic (rmq_sys_wheel_timer),
// queue 0, with TIMER_OUT_MS (its deliver time), REAL_TOPIC and REAL_QID. The store's
// dispatch builds that topic's ConsumeQueue; this package reads it (enqueue), keeps the
// pending set on disk, and writes each message to its real topic and queue once due
// (deliver), with the parked properties less REAL_TOPIC/REAL_QID.
//
// Files, under <storePathRootDir>/timer:
//
//	timerlog/<20-digit start position>   segments of entries, append-only (log.go)
//	timerwheel                           slots, memory-mapped (wheel.go)
//	checkpoint                           JSON: next ConsumeQueue offset, cursor (checkpoint.go)
//
// A timerlog entry is 48 bytes, big-endian:
//
//	0  prevPos   int64  position+1 of the previous entry of the same slot, 0 = none
//	8  deliverMs int64  deliver time (TIMER_OUT_MS)
//	16 phyOffset int64  CommitLog offset of the parked record
//	24 cqOffset  int64  its rmq_sys_wheel_timer ConsumeQueue offset
//	32 size      int32  its size
//	36 state     int32  magic<<8 | flags | state (pending, delivering, done); written last;
//	                    flag 0x10: a delete marker
//	40 clBefore  int64  CommitLog end before the delivery started (state delivering)
//
// A wheel slot is 24 bytes: timeMs int64 (the slot's absolute time), lastPos int64
// (position+1 of its newest entry), num int32, 4 bytes padding. The wheel spans twice
// the maximum delay, so one slot never holds two live rounds. Slot t holds the entries
// due in (t-precision, t]; it opens at t-precision and each entry is delivered at its own
// time, in due order, so the precision sets the wheel's size, not the lateness.
//
// Cancel (5.x's TIMER_DEL_UNIQKEY, MAGIC_DELETE): a parked message with that property is
// a delete marker. When its slot is delivered, the markers' keys ("<real topic>+<UNIQ_KEY>")
// are read first and the slot's messages with those keys are marked done instead of
// delivered; a marker is never delivered. Like 5.x, a marker acts on its own slot only.
// Markers stay pending until their slot is over, so a restart before then still cancels.
//
// Memory is bounded whatever the pending count: the pending set is the timerlog, the
// slots are a mapped file, and what the process holds is one counter per segment.
//
// Crash safety (kill -9): entries are written in ConsumeQueue order with their state
// word last, so the log's valid prefix says exactly how far enqueue got. Delivery marks
// an entry "delivering" with the CommitLog end before it writes the real message, and
// "done" after; at start the wheel is rebuilt from the log's live segments, and the one
// entry a crash can leave "delivering" is settled by looking for its copy in the
// CommitLog written after clBefore (recover.go). So each message is delivered exactly
// once across kill -9. Enqueue resumes after the last entry's ConsumeQueue offset: what
// the log misses is rebuilt from the CommitLog through the ConsumeQueue.
//
// A power loss can lose the last unflushed part of the files like the CommitLog's own
// ASYNC_FLUSH tail; the files are flushed every FlushInterval.
//
// One goroutine does enqueue, delivery and file upkeep, so the wheel and log need no
// lock; the statistics are atomics.
package timer
