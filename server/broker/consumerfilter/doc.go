// Package consumerfilter is the broker's table of SQL92 consumer filters (Java:
// org.apache.rocketmq.broker.filter.ConsumerFilterManager and ConsumerFilterData): per
// topic and consumer group, the expression the group's heartbeats registered, compiled,
// with the client's subscription version. Pulls of push consumers (which send no
// expression) filter with it. The broker registers heartbeats into it and builds a
// pull's filter from it (expression.go); the language itself is package filter.
//
//   - Registered from every consumer heartbeat (Register); a newer subVersion with a
//     changed expression replaces the entry, an older one is ignored; an expression that
//     no longer compiles removes the entry (the pull then answers FILTER_DATA_NOT_EXIST).
//   - A group that goes away, or stops subscribing a topic, leaves its entries "dead"
//     (deadTime ≥ bornTime) rather than deleted; a later heartbeat revives them. Dead
//     entries are dropped when persisted filterDataCleanTimeSpan (24 h) after their death.
//   - Persisted (Persist: every 10 s and at shutdown, by the broker) to
//     <root>/config/consumerFilter.json in fastjson's layout; at load every entry is
//     compiled again and marked dead (its consumers have to heartbeat again), and the
//     whole file is ignored when its bloom filter data was made with other bloom
//     settings, as Java does.
//   - The bloom filter data (bit positions of "group#topic", Java's BloomFilter over
//     Guava's murmur3_128) is kept and persisted so a Java broker can load our file; the
//     ConsumeQueue bitmaps it feeds (enableCalcFilterBitMap) are not built: every SQL92
//     match is decided on the CommitLog record.
//
// Why a package of its own next to filter/ rather than filter/table: filter is the pure
// SQL92 language (parse, evaluate; no state, no I/O, no protocol types), which the store
// side could use alone; this table is stateful, persists a file and reads protocol's
// subscriptions. Placed under filter/ it would make filter the parent of an I/O package,
// and call sites would read table.Manager; here they read consumerfilter.Manager, the
// name of the Java class it mirrors. It imports filter, protocol and compat, never the
// broker.
//
// Lock order: Manager.fileMu (writers of the file), then Manager.mu (the table);
// Manager.cacheMu (the pull-time compile cache) is a leaf, never held with the others.
// Nothing is called out under mu but the compiler and the logger.
package consumerfilter
