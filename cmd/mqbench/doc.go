// Command mqbench is Skyrocket's load generator: it speaks the RocketMQ remoting protocol
// directly (codec and protocol from this repository, no client library), so a run
// measures the server, not a client. It also is the null broker every broker is measured
// against. docs/benchmarks.md ("mqbench") has the commands and this machine's figures.
//
// Modes:
//
//	produce     SEND_MESSAGE (10, V1 header) / SEND_MESSAGE_V2 (310) / SEND_BATCH_MESSAGE
//	            (320, V2 header, §5.6 body); -kind sync|async|oneway|batch
//	consume     PULL_MESSAGE like a push consumer: heartbeat with the subscription, one
//	            pull in flight per queue, suspend flag, bodies walked record by record
//	route       GET_ROUTEINFO_BY_TOPIC; -register adds a stand-in broker owning the topics
//	nullbroker  acknowledges sends Java-shaped without storing (the ceiling)
//	namesrv     server/namesrv in this process (for route runs without other binaries)
//	compare     one mode, same flags, against a base and a target: "skyrocket/null throughput 0.71"
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
// cores busy, peak RSS (VmHWM), and mqbench's own CPU (to show the client is not the
// limit). -json prints the same as JSON.
package main
