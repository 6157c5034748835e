// Package broker is Skyrocket's RocketMQ broker: request handlers (one file per request
// family, one dispatch table in handlers.go) over the managers Java's BrokerController
// wires together — topics, subscription groups, consumer offsets, consumer and producer
// channels, long polling — and the store.
//
// Request threading: handlers that never block run inline on the event loop (heartbeat,
// offsets, appends with ASYNC_FLUSH, so a connection's sends are stored in arrival
// order); pulls and everything that may wait run on bounded pools (pools.go), and a
// SYNC_FLUSH send answers from the flush waiter once the data is durable.
//
// Lock order: the metadata managers of package meta (meta.TopicManager.mu,
// meta.SubscriptionManager.mu, meta.OffsetManager.mu; their file locks come before
// them, see meta's doc), clients.ConsumerManager.mu and clients.ProducerManager.mu are
// leaves: none is held while taking another or while calling the store. The other leaf
// packages under server/broker (consumerfilter, schedule, stats, transaction) never
// import the broker either and write their lock order in their doc.go.
package broker
