// Package ha is master/slave CommitLog replication, byte-compatible with the classic
// (non-DLedger) HA of Java RocketMQ 4.2–4.9.8 (Java: HAService, HAConnection): a Skyrocket
// slave follows a Java master and a Java slave follows a Skyrocket master. It imports
// only store, codec/message (record headers) and zerolog; the broker wires it up
// (listen address, master address from REGISTER_BROKER, SYNC_MASTER waits via
// SlaveOK, AckedOffset and SetAckHook, whose hook answers the covered sends on the
// reader goroutine that read the ack). The broker closes a Slave or Master before its
// store.
//
// # The stream
//
// Its own raw TCP port (listenPort+1), no handshake, no identity, no framing beyond
// this; every integer is big-endian.
//
// Slave -> master, repeated, nothing else ever:
//
//	+---------------------------+
//	| int64 slave max phyOffset |   8 bytes: the end of the slave's CommitLog data
//	+---------------------------+
//
// Master -> slave, repeated:
//
//	+----------------------+-------------+------------------------------------------+
//	| int64 startPhyOffset | int32 size  | size bytes of CommitLog, as stored       |
//	+----------------------+-------------+------------------------------------------+
//	  0                      8             12
//
// size = 0 is a heartbeat. A frame's body is at most TransferBatchSize (32 KiB; never
// more than 4 MiB - 12, a Java slave's buffer) and never crosses a CommitLog file: a
// full file is sent to its end, the end-of-file blank (int32 remaining | int32
// 0xCBD43194) and the bytes after it included, so the slave's file is byte-identical
// and the next frame starts the next file. Frames split records anywhere.
//
// # Master
//
// The master sends nothing before a connection's first report. A first report of 0
// (an empty slave) starts the transfer at the master's newest file
// (max - max % mappedFileSizeCommitLog); any other value starts it there. The reader
// acts on the newest whole report of each read (8-byte alignment counts from the start
// of the stream) and closes the connection, with the reason logged, on a negative
// report, a report beyond the master's CommitLog end (Java 4.9.3+ checks this after the
// first; we check the first too), a report cut short by EOF, or HousekeepingInterval
// (20 s) without reading anything. Every report raises AckedOffset, one monotonic value
// shared by all connections, starting at 0 with each Master (Java: push2SlaveMaxOffset).
// The writer sends a heartbeat after HeartbeatInterval (5 s) of silence; with nothing to
// send it waits 100 ms or until WakeTransfer (a SYNC_MASTER put). A slave that needs
// data the master has deleted gets heartbeats only, as in Java, but the master logs it
// once as an error. A write that cannot finish within HousekeepingInterval closes the
// connection. Garbage on the port is read as reports: it is refused as soon as one is
// negative or beyond the end.
//
// # Slave
//
// The slave connects (5 s timeout) to the address set by SetMasterAddr and reports its
// CommitLog end at once (Java waits about 5 s), again after each read that appended
// data, and at least every HeartbeatInterval. Each frame's header is checked as soon as
// it is in: unless the slave is empty its start must equal the end of what it has
// ("master pushed offset not equal the max phy offset in slave"); a size below 0 or above
// 4 MiB - 12 is refused. Bodies go to store.AppendToCommitLog (which for an empty store
// requires a file boundary) in whole records only: a record a frame cuts off is held
// back until the next frames complete it, so the slave's CommitLog never ends inside a
// record and a crash cannot leave a torn one there for recovery to misjudge (Java
// appends the raw bytes); records within one frame go to the store straight from the
// receive buffer. Reports are thus always record boundaries. A size field that is not a
// message or blank fitting its file closes the connection. Any failure closes the
// connection, logs why and reconnects at once (after min(5 s, 1 s) when the session
// ended within a second without data, so a refusing master is not hammered). A session
// also ends after HousekeepingInterval without a successful report (Java 4.6+) or
// without reading anything (Java 5.x; a master heartbeats every 5 s). With no address,
// or after a failed connect, the slave retries every 5 s; an address change is used at
// the next connect, at once if the slave is waiting.
//
// # Goroutines and locks
//
// Master: one accept goroutine; per connection a reader (reports, acks, housekeeping)
// and a writer (frames). The first of the two to fail calls conn.shut, which closes the
// socket (ending the other) and drops the connection. Close closes the listener and
// every connection and waits for all of them.
//
//	Master.mu     guards the listener, the connection map and closed
//	Master.ackMu  guards the AckNotify channel
//
// Both are leaves: nothing is locked under them and neither is held across I/O.
// WakeTransfer and Slaves read an atomically published copy of the connection list,
// AckedOffset and the connection count are atomics, so a put never takes a lock here.
//
// Slave: one goroutine connects, reads, appends and reports (the report is 8 bytes and
// written inline; Close closes the socket to interrupt a read). Slave.mu (connection,
// started, closed) and Slave.addrMu (master address) are leaves.
//
// # Copies and allocations
//
// The master writes header and body with one writev straight from the mapped CommitLog
// file, held until the write returns (store.CommitLogChunk); the slave reads into one
// 4 MiB buffer and appends from it (one copy, into the mapped file; records split
// across frames are copied once more, into the held-back buffer). In steady state
// neither side allocates per frame.
package ha
