package namesrv

import (
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// masterID is MixAll.MASTER_ID.
const masterID = 0

// brokerLive is what the namesrv knows of a registered broker address (Java: BrokerLiveInfo).
type brokerLive struct {
	lastUpdate   time.Time
	dataVersion  protocol.DataVersion
	conn         *remoting.Conn
	haServerAddr string
}

// RouteTable is Java's RouteInfoManager: topic → queues per broker name, broker name →
// addresses, cluster → broker names, and the live brokers. One RWMutex guards it all.
type RouteTable struct {
	mu           sync.RWMutex
	topicQueues  map[string]map[string]protocol.QueueData // topic → brokerName → queues
	brokerAddrs  map[string]*protocol.BrokerData          // brokerName → data
	clusterAddrs map[string]map[string]bool               // cluster → brokerNames
	live         map[string]*brokerLive                   // brokerAddr → liveness
	filterSrv    map[string][]string                      // brokerAddr → filter servers

	// version changes on every mutation; encoded routes are cached against it.
	version atomic.Uint64
	log     zerolog.Logger
	now     func() time.Time
}

// NewRouteTable returns an empty table.
func NewRouteTable(log zerolog.Logger) *RouteTable {
	return &RouteTable{
		topicQueues:  map[string]map[string]protocol.QueueData{},
		brokerAddrs:  map[string]*protocol.BrokerData{},
		clusterAddrs: map[string]map[string]bool{},
		live:         map[string]*brokerLive{},
		filterSrv:    map[string][]string{},
		log:          log,
		now:          time.Now,
	}
}

// Version returns the table's mutation counter.
func (t *RouteTable) Version() uint64 { return t.version.Load() }

func (t *RouteTable) changed() { t.version.Add(1) }

// duplicateWindow: an address that registered within it is still alive (brokers register
// every 30 s).
const duplicateWindow = 45 * time.Second

// RegisterResult is what a slave learns from registering (Java: RegisterBrokerResult).
type RegisterResult struct {
	HAServerAddr, MasterAddr string
}

// Register records a broker registration (Java: RouteInfoManager#registerBroker).
func (t *RouteTable) Register(cluster, brokerAddr, brokerName string, brokerID int64, haServerAddr string,
	topics *protocol.TopicConfigSerializeWrapper, filterServers []string, conn *remoting.Conn) RegisterResult {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Only what a route or the cluster info shows bumps the version (and so drops every
	// cached route): a broker's periodic re-registration with an unchanged dataVersion
	// (every 30 s per broker) only refreshes its liveness, and with 100,000 topics
	// re-encoding every route after each one would cost the route queries their rate.
	changed := false
	defer func() {
		if changed {
			t.changed()
		}
	}()
	names := t.clusterAddrs[cluster]
	if names == nil {
		names = map[string]bool{}
		t.clusterAddrs[cluster] = names
	}
	if !names[brokerName] {
		names[brokerName] = true
		changed = true
	}

	first := false
	bd := t.brokerAddrs[brokerName]
	if bd == nil {
		first = true
		bd = &protocol.BrokerData{Cluster: cluster, BrokerName: brokerName, BrokerAddrs: map[int64]string{}}
		t.brokerAddrs[brokerName] = bd
	}
	// Switching slave to master: the same ip:port keeps one record only.
	for id, addr := range bd.BrokerAddrs {
		if addr == brokerAddr && id != brokerID {
			delete(bd.BrokerAddrs, id)
			changed = true
		}
	}
	old, had := bd.BrokerAddrs[brokerID]
	bd.BrokerAddrs[brokerID] = brokerAddr
	if had && old != brokerAddr {
		if ol := t.live[old]; ol != nil && t.now().Sub(ol.lastUpdate) < duplicateWindow {
			// Java replaces the address silently: with two brokers of one name and id both
			// alive, the route flips between them at each one's 30 s registration.
			t.log.Warn().Str("cluster", cluster).Str("broker", brokerName).Int64("brokerId", brokerID).Str("old", old).Str("new", brokerAddr).
				Msg("two live brokers register the same brokerName and brokerId: the route follows whichever registered last; give each its own brokerId")
		} else if brokerID == masterID {
			t.log.Info().Str("cluster", cluster).Str("broker", brokerName).Str("old", old).Str("new", brokerAddr).Msg("master address changed")
		}
	}
	first = first || !had
	changed = changed || first || old != brokerAddr

	if topics != nil && brokerID == masterID {
		prev, ok := t.live[brokerAddr]
		if first || !ok || prev.dataVersion != topics.DataVersion {
			for _, tc := range topics.TopicConfigTable {
				t.updateQueueData(brokerName, tc)
			}
			changed = true
		}
	}
	var dv protocol.DataVersion
	if topics != nil {
		dv = topics.DataVersion
	}
	if _, ok := t.live[brokerAddr]; !ok {
		t.log.Info().Str("broker", brokerAddr).Str("ha", haServerAddr).Msg("new broker registered")
		changed = true
	}
	t.live[brokerAddr] = &brokerLive{lastUpdate: t.now(), dataVersion: dv, conn: conn, haServerAddr: haServerAddr}
	if filterServers != nil {
		if len(filterServers) == 0 {
			if _, ok := t.filterSrv[brokerAddr]; ok {
				delete(t.filterSrv, brokerAddr)
				changed = true
			}
		} else {
			if !slices.Equal(t.filterSrv[brokerAddr], filterServers) {
				changed = true
			}
			t.filterSrv[brokerAddr] = filterServers
		}
	}
	var res RegisterResult
	if brokerID != masterID {
		if master, ok := bd.BrokerAddrs[masterID]; ok {
			if ml := t.live[master]; ml != nil {
				res = RegisterResult{HAServerAddr: ml.haServerAddr, MasterAddr: master}
			}
		}
	}
	return res
}

// updateQueueData records a broker's queues of a topic. Queue counts above
// protocol.MaxQueueNums are lowered to it (Java keeps any count): a route is what every
// client sizes its queue lists by.
func (t *RouteTable) updateQueueData(brokerName string, tc protocol.TopicConfig) {
	qd := protocol.QueueData{BrokerName: brokerName, ReadQueueNums: protocol.ClampQueueNums(tc.ReadQueueNums),
		WriteQueueNums: protocol.ClampQueueNums(tc.WriteQueueNums), Perm: tc.Perm, TopicSysFlag: tc.TopicSysFlag}
	if qd.ReadQueueNums != tc.ReadQueueNums || qd.WriteQueueNums != tc.WriteQueueNums {
		t.log.Warn().Str("topic", tc.TopicName).Str("broker", brokerName).Int32("read", tc.ReadQueueNums).Int32("write", tc.WriteQueueNums).
			Int("max", protocol.MaxQueueNums).Msg("registered queue count above the limit, lowered to it")
	}
	m := t.topicQueues[tc.TopicName]
	if m == nil {
		m = map[string]protocol.QueueData{}
		t.topicQueues[tc.TopicName] = m
	}
	if old, ok := m[brokerName]; ok && old != qd {
		t.log.Info().Str("topic", tc.TopicName).Interface("old", old).Interface("new", qd).Msg("topic queue data changed")
	}
	m[brokerName] = qd
}

// DataVersionChanged reports whether dv differs from the broker's last registration
// (Java: isBrokerTopicConfigChanged); when it does not, the broker's liveness is refreshed
// as QUERY_DATA_VERSION does. It also returns the namesrv's copy, if any.
func (t *RouteTable) DataVersionChanged(brokerAddr string, dv protocol.DataVersion) (changed bool, known *protocol.DataVersion) {
	t.mu.Lock()
	defer t.mu.Unlock()
	bl := t.live[brokerAddr]
	if bl == nil {
		return true, nil
	}
	if bl.dataVersion != dv {
		v := bl.dataVersion
		return true, &v
	}
	bl.lastUpdate = t.now()
	v := bl.dataVersion
	return false, &v
}

// Unregister removes one broker address (Java: RouteInfoManager#unregisterBroker).
func (t *RouteTable) Unregister(cluster, brokerAddr, brokerName string, brokerID int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.changed()
	delete(t.live, brokerAddr)
	delete(t.filterSrv, brokerAddr)
	removeName := false
	if bd := t.brokerAddrs[brokerName]; bd != nil {
		delete(bd.BrokerAddrs, brokerID)
		if len(bd.BrokerAddrs) == 0 {
			delete(t.brokerAddrs, brokerName)
			removeName = true
		}
	}
	if removeName {
		if names := t.clusterAddrs[cluster]; names != nil {
			delete(names, brokerName)
			if len(names) == 0 {
				delete(t.clusterAddrs, cluster)
			}
		}
		t.removeTopicsOf(brokerName)
	}
	t.log.Info().Str("broker", brokerAddr).Str("name", brokerName).Int64("id", brokerID).Msg("broker unregistered")
}

func (t *RouteTable) removeTopicsOf(brokerName string) {
	for topic, m := range t.topicQueues {
		delete(m, brokerName)
		if len(m) == 0 {
			delete(t.topicQueues, topic)
		}
	}
}

// RemoveBrokerAddr forgets everything about brokerAddr, as when its channel closes or it
// expires (Java: RouteInfoManager#onChannelDestroy).
func (t *RouteTable) RemoveBrokerAddr(brokerAddr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.removeAddrLocked(brokerAddr)
}

// RemoveConn forgets the broker registered over conn, if any.
func (t *RouteTable) RemoveConn(conn *remoting.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for addr, bl := range t.live {
		if bl.conn == conn {
			t.log.Info().Str("broker", addr).Str("remote", conn.RemoteAddr()).Msg("broker channel closed, removing its routes")
			t.removeAddrLocked(addr)
			return
		}
	}
}

func (t *RouteTable) removeAddrLocked(brokerAddr string) {
	defer t.changed()
	delete(t.live, brokerAddr)
	delete(t.filterSrv, brokerAddr)
	var found string
	removeName := false
	for name, bd := range t.brokerAddrs {
		for id, a := range bd.BrokerAddrs {
			if a == brokerAddr {
				found = name
				delete(bd.BrokerAddrs, id)
				break
			}
		}
		if found != "" {
			if len(bd.BrokerAddrs) == 0 {
				removeName = true
				delete(t.brokerAddrs, name)
			}
			break
		}
	}
	if found == "" || !removeName {
		return
	}
	for cluster, names := range t.clusterAddrs {
		if names[found] {
			delete(names, found)
			if len(names) == 0 {
				delete(t.clusterAddrs, cluster)
			}
			break
		}
	}
	t.removeTopicsOf(found)
}

// ScanNotActive expires brokers that have not registered within expire, closing their
// connections (Java: RouteInfoManager#scanNotActiveBroker). It returns how many expired.
func (t *RouteTable) ScanNotActive(expire time.Duration) int {
	now := t.now()
	t.mu.Lock()
	var expired []*remoting.Conn
	n := 0
	for addr, bl := range t.live {
		if bl.lastUpdate.Add(expire).Before(now) {
			t.log.Warn().Str("broker", addr).Dur("expire", expire).Msg("broker channel expired")
			if bl.conn != nil {
				expired = append(expired, bl.conn)
			}
			t.removeAddrLocked(addr)
			n++
		}
	}
	t.mu.Unlock()
	for _, c := range expired {
		_ = c.Close()
	}
	return n
}

// Route returns the route of topic, or nil when no broker serves it
// (Java: RouteInfoManager#pickupTopicRouteData).
func (t *RouteTable) Route(topic string) *protocol.TopicRouteData {
	t.mu.RLock()
	defer t.mu.RUnlock()
	m := t.topicQueues[topic]
	if m == nil {
		return nil
	}
	r := &protocol.TopicRouteData{QueueDatas: make([]protocol.QueueData, 0, len(m)), FilterServerTable: map[string][]string{}}
	for name, qd := range m {
		r.QueueDatas = append(r.QueueDatas, qd)
		bd := t.brokerAddrs[name]
		if bd == nil {
			continue
		}
		c := protocol.BrokerData{Cluster: bd.Cluster, BrokerName: bd.BrokerName, BrokerAddrs: make(map[int64]string, len(bd.BrokerAddrs))}
		for id, a := range bd.BrokerAddrs {
			c.BrokerAddrs[id] = a
			if fs := t.filterSrv[a]; fs != nil {
				r.FilterServerTable[a] = fs
			}
		}
		r.BrokerDatas = append(r.BrokerDatas, c)
	}
	if len(r.BrokerDatas) == 0 {
		return nil
	}
	sort.Slice(r.QueueDatas, func(i, j int) bool { return r.QueueDatas[i].BrokerName < r.QueueDatas[j].BrokerName })
	sort.Slice(r.BrokerDatas, func(i, j int) bool { return r.BrokerDatas[i].BrokerName < r.BrokerDatas[j].BrokerName })
	return r
}

// ClusterInfo returns the broker and cluster tables (Java: getAllClusterInfo).
func (t *RouteTable) ClusterInfo() *protocol.ClusterInfo {
	t.mu.RLock()
	defer t.mu.RUnlock()
	ci := &protocol.ClusterInfo{BrokerAddrTable: map[string]protocol.BrokerData{}, ClusterAddrTable: map[string][]string{}}
	for name, bd := range t.brokerAddrs {
		c := protocol.BrokerData{Cluster: bd.Cluster, BrokerName: bd.BrokerName, BrokerAddrs: map[int64]string{}}
		for id, a := range bd.BrokerAddrs {
			c.BrokerAddrs[id] = a
		}
		ci.BrokerAddrTable[name] = c
	}
	for cluster, names := range t.clusterAddrs {
		ci.ClusterAddrTable[cluster] = sortedKeys(names)
	}
	return ci
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// WritePerm wipes (add=false) or restores (add=true) the write permission of every topic
// on brokerName; it returns how many topics changed (Java: operateWritePermOfBroker).
func (t *RouteTable) WritePerm(brokerName string, add bool) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.changed()
	n := 0
	for _, m := range t.topicQueues {
		qd, ok := m[brokerName]
		if !ok {
			continue
		}
		if add {
			qd.Perm = protocol.PermRead | protocol.PermWrite
		} else {
			qd.Perm &^= protocol.PermWrite
		}
		m[brokerName] = qd
		n++
	}
	return n
}

// DeleteTopic removes a topic everywhere, or only from cluster's brokers when cluster is set.
func (t *RouteTable) DeleteTopic(topic, cluster string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.changed()
	if cluster == "" {
		delete(t.topicQueues, topic)
		return
	}
	m := t.topicQueues[topic]
	for name := range t.clusterAddrs[cluster] {
		delete(m, name)
	}
	if m != nil && len(m) == 0 {
		delete(t.topicQueues, topic)
	}
}

// Topics returns every topic name, sorted.
func (t *RouteTable) Topics() []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]string, 0, len(t.topicQueues))
	for k := range t.topicQueues {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TopicsByCluster returns the topics with queues on any broker of cluster.
func (t *RouteTable) TopicsByCluster(cluster string) []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	set := map[string]bool{}
	for name := range t.clusterAddrs[cluster] {
		for topic, m := range t.topicQueues {
			if _, ok := m[name]; ok {
				set[topic] = true
			}
		}
	}
	return sortedKeys(set)
}

// SystemTopics returns cluster names and broker names (each is a topic on its brokers),
// and one broker address (Java: getSystemTopicList).
func (t *RouteTable) SystemTopics() protocol.TopicList {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var tl protocol.TopicList
	for _, cluster := range sortedKeys(boolSet(t.clusterAddrs)) {
		tl.TopicList = append(tl.TopicList, cluster)
		tl.TopicList = append(tl.TopicList, sortedKeys(t.clusterAddrs[cluster])...)
	}
	names := make([]string, 0, len(t.brokerAddrs))
	for n := range t.brokerAddrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		bd := t.brokerAddrs[n]
		if len(bd.BrokerAddrs) > 0 {
			ids := make([]int64, 0, len(bd.BrokerAddrs))
			for id := range bd.BrokerAddrs {
				ids = append(ids, id)
			}
			sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
			tl.BrokerAddr = bd.BrokerAddrs[ids[0]]
			break
		}
	}
	return tl
}

func boolSet[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// UnitTopics returns topics whose first queue data matches pick (Java: topicQueueTableIter).
func (t *RouteTable) UnitTopics(pick func(sysFlag int32) bool) []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var out []string
	for topic, m := range t.topicQueues {
		for _, qd := range m {
			if pick(qd.TopicSysFlag) {
				out = append(out, topic)
			}
			break
		}
	}
	sort.Strings(out)
	return out
}

// LiveBrokers returns the registered broker addresses, sorted.
func (t *RouteTable) LiveBrokers() []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return sortedKeys(boolSet(t.live))
}
