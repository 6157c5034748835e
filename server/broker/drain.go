package broker

// Graceful drain, the first part of a stop (issue 10). Java's BrokerController#shutdown
// closes the ports first and unregisters last, so clients keep sending to a closed broker
// until their next route refresh (30 s) and see connection errors; its documented
// graceful offline is manual (mqadmin wipeWritePerm, wait, kill). Here SIGTERM does it:
// BeginDrain takes the write permission off and re-registers at once, so the NameServers
// announce every topic of this broker read-only and producers move their sends to the
// other brokers at their next refresh, while this broker keeps serving the sends still
// in flight, pulls and everything else; the caller (server.Node) waits its window, then
// calls Shutdown (unregister, answer held pulls, flush, checkpoint, remove abort).

import (
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// BeginDrain turns the broker's write permission off and re-registers with the name
// servers (the periodic registrations then go on read-only). It reports false, and does
// nothing, when draining serves no purpose: a slave (it takes no sends) or a broker with
// no name server to tell.
func (b *Broker) BeginDrain() bool {
	if b.opts.Role == RoleSlave || len(b.opts.NamesrvAddrs) == 0 {
		return false
	}
	b.adminInit()
	perm := b.admin.perm.Load() &^ protocol.PermWrite
	b.admin.perm.Store(perm)
	// A new data version, or the name servers keep the queue data they have (Java's
	// updateBrokerConfig of brokerPermission does the same: nextVersion, then register).
	w := b.topics.Wrapper()
	w.DataVersion = protocol.DataVersion{Timestamp: time.Now().UnixMilli(), Counter: w.DataVersion.Counter + 1}
	b.register(w, false)
	b.log.Info().Int32("brokerPermission", perm).Bool("namesrvAnswered", b.nsAnswered.Load()).
		Msg("draining: registered without write permission; still serving sends in flight and pulls")
	return true
}
