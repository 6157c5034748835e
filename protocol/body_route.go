package protocol

import (
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// Permission bits (Java: PermName).
const (
	PermPriority int32 = 0x8
	PermRead     int32 = 0x4
	PermWrite    int32 = 0x2
	PermInherit  int32 = 0x1
)

// IsReadable / IsWriteable / IsInherited mirror PermName's helpers.
func IsReadable(perm int32) bool  { return perm&PermRead == PermRead }
func IsWriteable(perm int32) bool { return perm&PermWrite == PermWrite }
func IsInherited(perm int32) bool { return perm&PermInherit == PermInherit }

// PermString is PermName#perm2String ("RW-", "R--", ...).
func PermString(perm int32) string {
	b := []byte("---")
	if IsReadable(perm) {
		b[0] = 'R'
	}
	if IsWriteable(perm) {
		b[1] = 'W'
	}
	if IsInherited(perm) {
		b[2] = 'X'
	}
	return string(b)
}

// DataVersion is Java's DataVersion: a timestamp and a counter, equal when both are.
type DataVersion struct {
	Timestamp int64 `json:"timestamp"`
	Counter   int64 `json:"counter"`
}

// AppendJSON writes {"counter":N,"timestamp":T} (fastjson order).
func (d DataVersion) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"counter":`...)
	dst = strconv.AppendInt(dst, d.Counter, 10)
	dst = append(dst, `,"timestamp":`...)
	dst = strconv.AppendInt(dst, d.Timestamp, 10)
	return append(dst, '}')
}

// TopicConfig is Java's TopicConfig.
type TopicConfig struct {
	TopicName       string `json:"topicName"`
	ReadQueueNums   int32  `json:"readQueueNums"`
	WriteQueueNums  int32  `json:"writeQueueNums"`
	Perm            int32  `json:"perm"`
	TopicFilterType string `json:"topicFilterType"` // SINGLE_TAG | MULTI_TAG
	TopicSysFlag    int32  `json:"topicSysFlag"`
	Order           bool   `json:"order"`
}

// NewTopicConfig returns Java's defaults: 16/16 queues, perm RW, SINGLE_TAG.
func NewTopicConfig(name string) TopicConfig {
	return TopicConfig{TopicName: name, ReadQueueNums: 16, WriteQueueNums: 16, Perm: PermRead | PermWrite, TopicFilterType: "SINGLE_TAG"}
}

// AppendJSON writes the config with fastjson's alphabetical keys.
func (t *TopicConfig) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"order":`...)
	dst = strconv.AppendBool(dst, t.Order)
	dst = append(dst, `,"perm":`...)
	dst = strconv.AppendInt(dst, int64(t.Perm), 10)
	dst = append(dst, `,"readQueueNums":`...)
	dst = strconv.AppendInt(dst, int64(t.ReadQueueNums), 10)
	dst = append(dst, `,"topicFilterType":`...)
	dst = compat.AppendJSONString(dst, filterType(t.TopicFilterType))
	dst = append(dst, `,"topicName":`...)
	dst = compat.AppendJSONString(dst, t.TopicName)
	dst = append(dst, `,"topicSysFlag":`...)
	dst = strconv.AppendInt(dst, int64(t.TopicSysFlag), 10)
	dst = append(dst, `,"writeQueueNums":`...)
	dst = strconv.AppendInt(dst, int64(t.WriteQueueNums), 10)
	return append(dst, '}')
}

func filterType(s string) string {
	if s == "" {
		return "SINGLE_TAG"
	}
	return s
}

// QueueData is one broker's queues of a topic in a route (Java: QueueData).
type QueueData struct {
	BrokerName     string `json:"brokerName"`
	ReadQueueNums  int32  `json:"readQueueNums"`
	WriteQueueNums int32  `json:"writeQueueNums"`
	Perm           int32  `json:"perm"`
	TopicSysFlag   int32  `json:"topicSysFlag"`
	// TopicSynFlag is the ≤ 4.8 spelling, accepted when decoding.
	TopicSynFlag int32 `json:"topicSynFlag"`
}

// BrokerData is one broker group: its name, cluster and addresses by broker id.
type BrokerData struct {
	Cluster     string           `json:"cluster"`
	BrokerName  string           `json:"brokerName"`
	BrokerAddrs map[int64]string `json:"brokerAddrs"`
}

// MasterAddr returns the address of broker id 0, or "".
func (b *BrokerData) MasterAddr() string { return b.BrokerAddrs[0] }

// TopicRouteData is the GET_ROUTEINFO_BY_TOPIC body (Java: TopicRouteData).
type TopicRouteData struct {
	OrderTopicConf    string              `json:"orderTopicConf,omitempty"`
	QueueDatas        []QueueData         `json:"queueDatas"`
	BrokerDatas       []BrokerData        `json:"brokerDatas"`
	FilterServerTable map[string][]string `json:"filterServerTable"`
}

// AppendJSON writes the route as the 4.9.8 namesrv does: compact, keys alphabetical,
// brokerAddrs always present. standard selects the quoted-key form sent to requesters
// of version ≥ V4_9_4 (or acceptStandardJsonOnly); otherwise fastjson's unquoted numeric
// keys ({0:"ip:port"}), which older Java clients and the Go client expect.
func (r *TopicRouteData) AppendJSON(dst []byte, standard bool) []byte {
	dst = append(dst, `{"brokerDatas":[`...)
	for i := range r.BrokerDatas {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = r.BrokerDatas[i].appendJSON(dst, standard)
	}
	dst = append(dst, `],"filterServerTable":`...)
	dst = appendSortedMap(dst, r.FilterServerTable, appendStrings)
	if r.OrderTopicConf != "" {
		dst = append(dst, `,"orderTopicConf":`...)
		dst = compat.AppendJSONString(dst, r.OrderTopicConf)
	}
	dst = append(dst, `,"queueDatas":[`...)
	for i, q := range r.QueueDatas {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"brokerName":`...)
		dst = compat.AppendJSONString(dst, q.BrokerName)
		dst = append(dst, `,"perm":`...)
		dst = strconv.AppendInt(dst, int64(q.Perm), 10)
		dst = append(dst, `,"readQueueNums":`...)
		dst = strconv.AppendInt(dst, int64(q.ReadQueueNums), 10)
		dst = append(dst, `,"topicSysFlag":`...)
		dst = strconv.AppendInt(dst, int64(q.TopicSysFlag), 10)
		dst = append(dst, `,"writeQueueNums":`...)
		dst = strconv.AppendInt(dst, int64(q.WriteQueueNums), 10)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

func (b *BrokerData) appendJSON(dst []byte, standard bool) []byte {
	dst = append(dst, `{"brokerAddrs":`...)
	dst = appendAddrs(dst, b.BrokerAddrs, standard)
	dst = append(dst, `,"brokerName":`...)
	dst = compat.AppendJSONString(dst, b.BrokerName)
	dst = append(dst, `,"cluster":`...)
	dst = compat.AppendJSONString(dst, b.Cluster)
	return append(dst, '}')
}

// appendAddrs writes a Map<Long,String> in id order; fastjson leaves numeric keys unquoted.
func appendAddrs(dst []byte, addrs map[int64]string, quoted bool) []byte {
	ids := make([]int64, 0, len(addrs))
	for id := range addrs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	dst = append(dst, '{')
	for i, id := range ids {
		if i > 0 {
			dst = append(dst, ',')
		}
		if quoted {
			dst = append(dst, '"')
		}
		dst = strconv.AppendInt(dst, id, 10)
		if quoted {
			dst = append(dst, '"')
		}
		dst = append(dst, ':')
		dst = compat.AppendJSONString(dst, addrs[id])
	}
	return append(dst, '}')
}

// ClusterInfo is the GET_BROKER_CLUSTER_INFO body.
type ClusterInfo struct {
	BrokerAddrTable  map[string]BrokerData `json:"brokerAddrTable"`
	ClusterAddrTable map[string][]string   `json:"clusterAddrTable"`
}

// AppendJSON writes fastjson's form (unquoted broker-id keys, as mqadmin expects).
func (c *ClusterInfo) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"brokerAddrTable":`...)
	dst = appendSortedMap(dst, c.BrokerAddrTable, func(dst []byte, bd BrokerData) []byte { return bd.appendJSON(dst, false) })
	dst = append(dst, `,"clusterAddrTable":`...)
	dst = appendSortedMap(dst, c.ClusterAddrTable, appendStrings)
	return append(dst, '}')
}

// appendSortedMap writes m as a JSON object with its keys in order, each value by appendValue.
func appendSortedMap[V any](dst []byte, m map[string]V, appendValue func([]byte, V) []byte) []byte {
	dst = append(dst, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = compat.AppendJSONString(dst, k)
		dst = append(dst, ':')
		dst = appendValue(dst, m[k])
	}
	return append(dst, '}')
}

func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = compat.AppendJSONString(dst, s)
	}
	return append(dst, ']')
}

// TopicList is the body of the topic-list requests (Java: TopicList).
type TopicList struct {
	TopicList  []string `json:"topicList"`
	BrokerAddr string   `json:"brokerAddr,omitempty"`
}

// AppendJSON writes {"brokerAddr":..,"topicList":[..]} (brokerAddr omitted when empty).
func (t *TopicList) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	if t.BrokerAddr != "" {
		dst = append(dst, `"brokerAddr":`...)
		dst = compat.AppendJSONString(dst, t.BrokerAddr)
		dst = append(dst, ',')
	}
	dst = append(dst, `"topicList":`...)
	return append(appendStrings(dst, t.TopicList), '}')
}

// KVTable is {"table":{k:v}} (Java: KVTable).
type KVTable struct {
	Table map[string]string `json:"table"`
}

// AppendJSON writes the table with keys sorted.
func (t *KVTable) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"table":`...)
	dst = appendSortedMap(dst, t.Table, compat.AppendJSONString)
	return append(dst, '}')
}
