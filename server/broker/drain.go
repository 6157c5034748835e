package broker

// Graceful drain, the first part of a stop (issue 10). Java's BrokerController#shutdown
// closes the ports first and unregisters last, so clients keep sending to a closed broker
// until their next route refresh (30 s) and see connection errors; its documented
// graceful offline is manual (mqadmin wipeWritePerm, wait, kill). Here SIGTERM does it:
// BeginDrain takes the write permission off and re-registers at once, so the NameServers
// announce every topic of this broker read-only and producers move their sends to the
// other brokers at their next refresh, while this broker keeps serving the sends still
// in flight, pulls and everything else; the caller (server.Node) waits its window, then
// calls Shutdown (unregister, answer held pulls, flush, checkpoint, remove abort). A slave
// takes no sends: it leaves the routes first and points its readers at the master
// (beginSlaveDrain).

import (
	"slices"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// BeginDrain turns the broker's write permission off and re-registers with the name
// servers (the periodic registrations then go on read-only); a slave instead leaves the
// routes (beginSlaveDrain). It reports false, and does nothing, when draining serves no
// purpose: a broker with no name server to tell.
func (b *Broker) BeginDrain() bool {
	if len(b.opts.NamesrvAddrs) == 0 {
		return false
	}
	if b.opts.Role == RoleSlave {
		b.beginSlaveDrain()
		return true
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

// beginSlaveDrain is a slave's drain. A slave takes no sends; clients read from it only
// when its master is not in the route (stopped) or, with slaveReadEnable, when the master
// suggests it for a slow consumer (ha-facts.md §8). Java's slave, like its master, closes
// its port first and unregisters last, so those readers get connection errors until their
// route refresh. Here the slave unregisters first and registers no more, so the routes drop
// it at once (the master's entry stays) and clients stop choosing it at their next route
// refresh; meanwhile it keeps serving pulls, with suggestWhichBrokerId = 0, so a consumer
// reading from it goes back to the master at its next pull when the master is there. With
// the master down its readers keep reading here until the window ends, as long as they can.
func (b *Broker) beginSlaveDrain() {
	b.regMu.Lock() // a registration in flight ends first; none follows the flag
	b.leaving.Store(true)
	b.regMu.Unlock()
	b.unregisterAll()
	b.log.Info().Str("master", b.MasterAddr()).
		Msg("draining (slave): unregistered from the name servers; still serving pulls, suggesting the master")
}

// NamesrvAddrs is the name servers the broker registers with.
func (b *Broker) NamesrvAddrs() []string { return slices.Clone(b.opts.NamesrvAddrs) }
