// Package remoting is Skyrocket's RocketMQ remoting layer: a gnet event-loop server, the
// one dispatch table that routes request codes to handlers, bounded worker pools, and an
// outbound client for broker→namesrv and test traffic. It is the only package that
// imports gnet.
//
// Request path (DESIGN.md):
//
//  1. OnTraffic (event loop) takes every whole buffered frame with codec.ReadCommand,
//     which copies it into a buffer the command owns: gnet's bytes are never kept past
//     OnTraffic. A bad length or header closes that one connection with a logged reason.
//  2. The command is dispatched by code through the server's table. Inline routes run
//     on the event loop and their responses leave in one write at the end of OnTraffic;
//     pooled routes are queued to a bounded Pool whose workers answer with AsyncWrite. A
//     full pool answers SYSTEM_BUSY at once; a request that waited longer than the pool's
//     MaxWait answers SYSTEM_BUSY when dequeued (Java's BrokerFastFailure).
//  3. Handlers return a response or an error; Dispatch turns protocol.Error into the
//     response code and remark, anything else into SYSTEM_ERROR. Responses echo the
//     opaque, set the response flag and use the request's serialize type.
//  4. RocketMQ matches responses by opaque, so responses may leave out of order; within a
//     connection requests are started in order.
//  5. Flow control (flow.go): a connection whose unsent answers pass Limits.WriteHighWater
//     is not decoded until they drain; one that keeps sending meanwhile is closed, as are
//     connections over Limits.MaxConnections.
//  6. TLS (tls.go): the first byte of each connection chooses plaintext (served on the
//     loop as above) or TLS (the socket leaves gnet for crypto/tls on two goroutines,
//     which dispatch through the same table), as tls.server.mode allows.
//
// Concurrency: Conn methods are safe for concurrent use unless documented otherwise.
// Handlers may keep a request and answer it later with Context.Reply (long polling).
package remoting
