// Package clients holds the broker's tables of connected clients: consumer groups with
// their channels and the subscriptions their heartbeats registered (ConsumerManager,
// Java's ConsumerManager and ConsumerGroupInfo), producer groups with their channels
// (ProducerManager, Java's ProducerManager; used for transaction check-back and
// request-reply), and the ordered-consumption queue locks (LockTable, Java's
// RebalanceLockManager). The handlers that read and fill them (HEART_BEAT,
// UNREGISTER_CLIENT, LOCK_BATCH_MQ, the consumer admin codes) stay in the broker, which
// this package never imports; a connection is a *remoting.Conn.
//
// Channels that send no heartbeat for 120 s are dropped and closed by ScanExpired
// (Java: scanNotActiveChannel); a closed connection leaves every group at once
// (ConnClosed). The ConsumerManager reports changes to one listener (ConsumerEvent),
// called after its lock is released, with a snapshot of the group.
//
// Lock order: ConsumerManager.mu, ProducerManager.mu and LockTable.mu are leaves: none
// is held while taking another or while calling the listener. ScanExpired closes expired
// connections under its manager's lock; that is safe because Conn.Close only queues the
// close on the connection's event loop, and the close event (ConnClosed, which takes the
// lock) arrives later from there.
package clients
