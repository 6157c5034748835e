// Command mqbench is Skyrocket's load generator: it speaks the RocketMQ remoting protocol
// directly (codec and protocol from this repository, no client library), so a run
// measures the server, not a client. It also is the null broker every broker is measured
// against. docs/benchmarks.md ("mqbench") has the commands and this machine's figures.
//
// Modes:
//
//	produce     SEND_MESSAGE (10, V1 header) / SEND_MESSAGE_V2 (310) / SEND_BATCH_MESSAGE
//	            (320, V2 header, §5.6 body); -kind sync|async|oneway|batch|tx; -delay LEVEL; -timer D [-timer-spread S];
//	            -create-topic; -await-delivery reads the topic back (delivery.go)
//	consume     PULL_MESSAGE like a push consumer: heartbeat with the subscription, one
//	            pull in flight per queue, suspend flag, bodies walked record by record
//	route       GET_ROUTEINFO_BY_TOPIC; -register adds a stand-in broker owning the topics
//	nullbroker  acknowledges sends Java-shaped without storing (the ceiling)
//	namesrv     server/namesrv in this process (for route runs without other binaries)
//	compare     one mode, same flags, against a base, a target and optionally a ceiling,
//	            alternating: medians and ranges, "skyrocket/java throughput 4.47 (rounds 4.10-4.80)"
//
// -kind tx (txn.go) chains two requests on one window slot: the half message, then
// END_TRANSACTION built from its answer (commitLogOffset from the offset msgId,
// tranStateTableOffset = queueOffset). A slot's answer may be an intermediate step
// (outcomeStep: no latency recorded, the next request keeps the chain's start time), and
// a slot may leave the window (slotRetired) while the others finish their chains.
//
// The client side of a run (pipe.go): each connection has a window of -w slots; a writer
// goroutine fills every free slot and writes all ready frames in one write (-kind sync
// writes each request on its own, as a thread calling send() does); one reader goroutine
// per connection reads frames, takes code/opaque/flag with a scan that allocates nothing
// (scan.go; anything unusual falls back to the full decoder) and matches the slot by the
// opaque's low bits:
//
//	opaque = sequence << bits(window) | slot        slot == window: the end-of-run fence
//
// Latencies are recorded per connection in a log-linear histogram (hist.go: exact below
// 256 ns, then 128 sub-buckets per power of two, < 0.8 % error) and merged at the end.
//
// A run: connect (and heartbeat) every connection, warm up (-warmup, unmeasured), sample
// the server's /proc/<pid>/stat and status (-pid, or the process -server-cmd started),
// measure for -d or until -m messages, stop sending, wait for outstanding answers (oneway
// runs send one answered "fence" per connection instead; consume abandons its pending long
// polls), sample again. Reported: messages/s, MiB/s of message bodies, requests/s, latency
// p50/p90/p99/p99.9/max, errors by response code, server CPU seconds per million messages,
// cores busy, peak RSS (VmHWM), RssAnon (after, and the peak of samples every 250 ms:
// the process's own memory, the mapped store files aside) and RssFile, and mqbench's own
// CPU (to show the client is not the limit). -json prints the same as JSON, -json-out
// writes it to a file as well.
//
// A master and its slave (pair.go): -slave ADDR names the slave of the master under load
// (-b); -slave-cmd starts it once the -server-cmd master accepts connections. Before the
// warm-up mqbench waits until the slave holds what the master stored (a connected slave
// that has reported); during the measured window it samples the slave's /proc like the
// master's and the replication lag, commitLogMaxOffset of the master minus the slave's
// (GET_BROKER_RUNTIME_INFO to both at once, every -lag-interval); after it, how long the
// slave takes to hold the master's end. compare reports slave and pair (master + slave)
// CPU per message and the lag next to the other figures.
package main
