package broker

// Master/slave replication in the broker (Java: BrokerController's HA wiring,
// SlaveSynchronize, CommitLog#submitReplicaRequest). The byte stream itself is ha/.
//
// - A master (ASYNC_MASTER, SYNC_MASTER) serves slaves on haListenPort (listenPort+1) and
//   advertises brokerIP2:haListenPort in REGISTER_BROKER. A SYNC_MASTER send waits for
//   any slave's ack of its end offset (send_message.go, sync_replies.go); with no slave
//   connected, or one haSlaveFallbehindMax behind, it is answered SLAVE_NOT_AVAILABLE at
//   once (after the flush under SYNC_FLUSH).
// - A slave follows the HA address its registration answer names (or haMasterAddress),
//   appends what it receives, and every SlaveSyncPeriod (Java: 10 s, first after 3 s)
//   copies its master's topics (GET_ALL_TOPIC_CONFIG to the master's VIP port), consumer
//   offsets, delay offsets and subscription groups, each step on its own.
// - A Java slave's HA port is also open on a slave but serves nothing useful; Skyrocket's
//   slave does not listen on it.

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/ha"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/broker/schedule"
)

// newReplication builds the HA master or slave (not started).
func (b *Broker) newReplication(host string) {
	hc := b.opts.HA
	hc.Log = b.log.With().Str("component", "ha").Logger()
	if b.opts.Role == RoleSlave {
		b.haSlave = ha.NewSlave(b.store, hc)
		if b.opts.HAMasterAddress != "" {
			b.haSlave.SetMasterAddr(b.opts.HAMasterAddress)
		}
		return
	}
	if hc.ListenAddr == "" { // tests may ask for port 0
		hc.ListenAddr = net.JoinHostPort(host, strconv.Itoa(b.opts.HAPort))
	}
	b.haMaster = ha.NewMaster(b.store, hc)
}

func (b *Broker) startReplication() error {
	if b.haMaster != nil {
		if err := b.haMaster.Start(); err != nil {
			return fmt.Errorf("broker: HA listener: %w", err)
		}
		if _, port, err := net.SplitHostPort(b.haMaster.Addr()); err == nil {
			b.opts.HAPort, _ = strconv.Atoi(port) // advertised in REGISTER_BROKER
		}
		b.every(60*time.Second, b.logSlaveFallBehind)
		return nil
	}
	b.haSlave.Start()
	b.wg.Add(1)
	go b.slaveSyncLoop()
	return nil
}

func (b *Broker) stopReplication() {
	if b.haMaster != nil {
		if err := b.haMaster.Close(); err != nil {
			b.log.Warn().Err(err).Msg("close the HA listener")
		}
	}
	if b.haSlave != nil {
		if err := b.haSlave.Close(); err != nil {
			b.log.Warn().Err(err).Msg("close the HA client")
		}
	}
}

// setMaster records what a slave's registration answer names (Java:
// BrokerController#registerBrokerAll's result handling): the HA address, unless
// haMasterAddress is configured, and the master's main address for metadata sync, which
// an answer without one clears.
func (b *Broker) setMaster(masterAddr, haAddr string) {
	if old := b.masterAddr.Load(); old == nil || *old != masterAddr {
		b.log.Info().Str("master", masterAddr).Str("ha", haAddr).Msg("master address from name server")
	}
	b.masterAddr.Store(&masterAddr)
	if b.haSlave != nil && b.opts.HAMasterAddress == "" && haAddr != "" {
		b.haSlave.SetMasterAddr(haAddr)
	}
}

// MasterAddr returns the master a slave synchronises from ("" when unknown).
func (b *Broker) MasterAddr() string {
	if p := b.masterAddr.Load(); p != nil {
		return *p
	}
	return ""
}

// slaveSyncLoop is Java's slave schedule: syncAll after 3 s, then every SlaveSyncPeriod.
func (b *Broker) slaveSyncLoop() {
	defer b.wg.Done()
	first := 3 * time.Second
	if b.opts.SlaveSyncPeriod < first {
		first = b.opts.SlaveSyncPeriod
	}
	t := time.NewTimer(first)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
		}
		b.syncFromMaster()
		t.Reset(b.opts.SlaveSyncPeriod)
	}
}

// syncFromMaster is SlaveSynchronize#syncAll.
func (b *Broker) syncFromMaster() {
	master := b.MasterAddr()
	if master == "" || master == b.addr {
		return
	}
	steps := []struct {
		name string
		addr string
		code protocol.RequestCode
		take func(body []byte) error
	}{
		{"topics", vipAddr(master), protocol.CodeGetAllTopicConfig, b.takeMasterTopics},
		{"consumer offsets", master, protocol.CodeGetAllConsumerOffset, b.takeMasterOffsets},
		{"delay offsets", master, protocol.CodeGetAllDelayOffset, b.takeMasterDelayOffsets},
		{"subscription groups", master, protocol.CodeGetAllSubscriptiongroupConfig, b.takeMasterGroups},
	}
	for _, s := range steps {
		req := protocol.NewRequest(s.code)
		resp, err := b.nsClient.Invoke(context.Background(), s.addr, req, 3*time.Second)
		if err == nil && resp.ResponseCode() != protocol.ResSuccess {
			err = fmt.Errorf("%v: %s", resp.ResponseCode(), resp.Remark)
		}
		if err == nil {
			err = s.take(resp.Body)
		}
		if err != nil {
			b.log.Warn().Err(err).Str("master", s.addr).Str("step", s.name).Msg("slave sync failed")
		}
	}
}

// vipAddr is MixAll#brokerVIPChannel: the port two below.
func vipAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return addr
	}
	return net.JoinHostPort(host, strconv.Itoa(p-2))
}

func (b *Broker) takeMasterTopics(body []byte) error {
	var w protocol.TopicConfigSerializeWrapper
	if err := decodeFastJSON(body, &w); err != nil {
		return err
	}
	if b.topics.ReplaceIfNewer(w) {
		b.log.Info().Int("topics", len(w.TopicConfigTable)).Msg("update slave topic config from master")
	}
	return nil
}

func (b *Broker) takeMasterOffsets(body []byte) error {
	var w struct {
		OffsetTable map[string]map[int32]int64 `json:"offsetTable"`
	}
	if err := decodeFastJSON(body, &w); err != nil {
		return err
	}
	b.offsets.Merge(w.OffsetTable)
	return b.offsets.Persist(true)
}

// takeMasterDelayOffsets writes the body as delayOffset.json, verbatim (Java:
// SlaveSynchronize#syncDelayOffset, MixAll.string2File of the body as received; a
// a compat.ConfigFile would pretty-print it). The schedule service does not run on a slave, so
// nothing else writes the file meanwhile.
func (b *Broker) takeMasterDelayOffsets(body []byte) error {
	if _, err := compat.NormalizeJSON(body); err != nil {
		return fmt.Errorf("delay offsets: %w", err)
	}
	if err := compat.String2File(body, b.opts.configPath(schedule.FileName)); err != nil {
		return fmt.Errorf("delay offsets: %w", err)
	}
	return nil
}

func (b *Broker) takeMasterGroups(body []byte) error {
	var w meta.SubscriptionWrapper
	if err := decodeFastJSON(body, &w); err != nil {
		return err
	}
	if b.subs.ReplaceIfNewer(w) {
		b.log.Info().Int("groups", len(w.SubscriptionGroupTable)).Msg("update slave subscription group config from master")
	}
	return nil
}

// logSlaveFallBehind is Java's master log line, every 60 s (BrokerController: "Slave
// fall behind master: {} bytes"); 4.9.8's runtime info has no HA key, so operators read
// the lag from it or as the masters' and slaves' commitLogMaxOffset difference.
func (b *Broker) logSlaveFallBehind() {
	if b.haMaster == nil {
		return
	}
	behind := max(b.store.MaxPhyOffset()-b.haMaster.AckedOffset(), 0)
	b.log.Info().Int64("bytes", behind).Int("slaves", len(b.haMaster.Slaves())).Msg("Slave fall behind master")
}
