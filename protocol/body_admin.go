package protocol

// Response bodies of the broker's consumer and admin requests (Java:
// org.apache.rocketmq.common.admin.*, common.protocol.body.*), each written as fastjson
// writes it: compact, bean fields in alphabetical order. Java writes its HashMaps in hash
// order; where a Java map is keyed by MessageQueue or client id the Go type is a slice
// written in the order given, so that a caller (a handler, or a golden test replaying
// Java's order) chooses it. String-keyed tables are written with sorted keys.

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// MessageQueueEntry is one entry of a Java Map<MessageQueue, V>, written as fastjson
// writes such maps: the MessageQueue as an object key, `{{"brokerName":..}:value}`.
type MessageQueueEntry[V any] struct {
	Queue MessageQueue
	Value V
}

// appendMessageQueueTable writes entries as a MessageQueue-keyed object in their order.
func appendMessageQueueTable[V any](dst []byte, entries []MessageQueueEntry[V], appendValue func([]byte, V) []byte) []byte {
	dst = append(dst, '{')
	for i := range entries {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = entries[i].Queue.AppendJSON(dst)
		dst = append(dst, ':')
		dst = appendValue(dst, entries[i].Value)
	}
	return append(dst, '}')
}

func appendInt64(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

// AppendJavaDouble writes a double as fastjson does: always with a fraction (0.0, 1.5).
func AppendJavaDouble(dst []byte, v float64) []byte {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	dst = append(dst, s...)
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || s[i] == 'e' || s[i] == 'E' {
			return dst
		}
	}
	return append(dst, ".0"...)
}

// TopicOffset is one queue's offsets in a TopicStatsTable (Java: TopicOffset).
type TopicOffset struct {
	MinOffset           int64
	MaxOffset           int64
	LastUpdateTimestamp int64
}

// TopicStatsTable is the GET_TOPIC_STATS_INFO (202) body (Java: TopicStatsTable).
type TopicStatsTable struct {
	OffsetTable []MessageQueueEntry[TopicOffset]
}

// AppendJSON writes {"offsetTable":{{mq}:{"lastUpdateTimestamp":..,"maxOffset":..,"minOffset":..}}}.
func (t *TopicStatsTable) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"offsetTable":`...)
	dst = appendMessageQueueTable(dst, t.OffsetTable, func(dst []byte, o TopicOffset) []byte {
		dst = append(dst, `{"lastUpdateTimestamp":`...)
		dst = strconv.AppendInt(dst, o.LastUpdateTimestamp, 10)
		dst = append(dst, `,"maxOffset":`...)
		dst = strconv.AppendInt(dst, o.MaxOffset, 10)
		dst = append(dst, `,"minOffset":`...)
		dst = strconv.AppendInt(dst, o.MinOffset, 10)
		return append(dst, '}')
	})
	return append(dst, '}')
}

// OffsetWrapper is one queue's offsets in a ConsumeStats (Java: OffsetWrapper).
type OffsetWrapper struct {
	BrokerOffset   int64
	ConsumerOffset int64
	LastTimestamp  int64
}

// ConsumeStats is the GET_CONSUME_STATS (208) body and an element of ConsumeStatsList
// (Java: ConsumeStats).
type ConsumeStats struct {
	ConsumeTps  float64
	OffsetTable []MessageQueueEntry[OffsetWrapper]
}

// TotalDiff is Java's ConsumeStats#computeTotalDiff: the sum of brokerOffset - consumerOffset.
func (c *ConsumeStats) TotalDiff() int64 {
	var diff int64
	for _, e := range c.OffsetTable {
		diff += e.Value.BrokerOffset - e.Value.ConsumerOffset
	}
	return diff
}

// AppendJSON writes {"consumeTps":1.5,"offsetTable":{{mq}:{"brokerOffset":..,"consumerOffset":..,"lastTimestamp":..}}}.
func (c *ConsumeStats) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"consumeTps":`...)
	dst = AppendJavaDouble(dst, c.ConsumeTps)
	dst = append(dst, `,"offsetTable":`...)
	dst = appendMessageQueueTable(dst, c.OffsetTable, func(dst []byte, o OffsetWrapper) []byte {
		dst = append(dst, `{"brokerOffset":`...)
		dst = strconv.AppendInt(dst, o.BrokerOffset, 10)
		dst = append(dst, `,"consumerOffset":`...)
		dst = strconv.AppendInt(dst, o.ConsumerOffset, 10)
		dst = append(dst, `,"lastTimestamp":`...)
		dst = strconv.AppendInt(dst, o.LastTimestamp, 10)
		return append(dst, '}')
	})
	return append(dst, '}')
}

// GroupConsumeStats is one element of ConsumeStatsList.consumeStatsList, a one-entry
// Map<String, List<ConsumeStats>> in Java.
type GroupConsumeStats struct {
	Group string
	Stats []ConsumeStats
}

// ConsumeStatsList is the GET_BROKER_CONSUME_STATS (317) body (Java: ConsumeStatsList).
type ConsumeStatsList struct {
	BrokerAddr       string
	ConsumeStatsList []GroupConsumeStats
	TotalDiff        int64
}

// AppendJSON writes {"brokerAddr":..,"consumeStatsList":[{group:[ConsumeStats..]}..],"totalDiff":..}.
func (l *ConsumeStatsList) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"brokerAddr":`...)
	dst = compat.AppendJSONString(dst, l.BrokerAddr)
	dst = append(dst, `,"consumeStatsList":[`...)
	for i := range l.ConsumeStatsList {
		g := &l.ConsumeStatsList[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		dst = compat.AppendJSONString(dst, g.Group)
		dst = append(dst, ":["...)
		for j := range g.Stats {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = g.Stats[j].AppendJSON(dst)
		}
		dst = append(dst, "]}"...)
	}
	dst = append(dst, `],"totalDiff":`...)
	dst = strconv.AppendInt(dst, l.TotalDiff, 10)
	return append(dst, '}')
}

// BrokerStatsItem is one window of a BrokerStatsData (Java: BrokerStatsItem).
type BrokerStatsItem struct {
	Sum   int64
	Tps   float64
	Avgpt float64
}

// AppendJSON writes {"avgpt":..,"sum":..,"tps":..}.
func (s BrokerStatsItem) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"avgpt":`...)
	dst = AppendJavaDouble(dst, s.Avgpt)
	dst = append(dst, `,"sum":`...)
	dst = strconv.AppendInt(dst, s.Sum, 10)
	dst = append(dst, `,"tps":`...)
	dst = AppendJavaDouble(dst, s.Tps)
	return append(dst, '}')
}

// BrokerStatsData is the VIEW_BROKER_STATS_DATA (315) body (Java: BrokerStatsData).
type BrokerStatsData struct {
	StatsMinute BrokerStatsItem
	StatsHour   BrokerStatsItem
	StatsDay    BrokerStatsItem
}

// AppendJSON writes {"statsDay":..,"statsHour":..,"statsMinute":..}.
func (d *BrokerStatsData) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"statsDay":`...)
	dst = d.StatsDay.AppendJSON(dst)
	dst = append(dst, `,"statsHour":`...)
	dst = d.StatsHour.AppendJSON(dst)
	dst = append(dst, `,"statsMinute":`...)
	dst = d.StatsMinute.AppendJSON(dst)
	return append(dst, '}')
}

// Connection is one client connection (Java: Connection).
type Connection struct {
	ClientID   string
	ClientAddr string
	Language   LanguageCode
	Version    int32
}

func appendConnectionSet(dst []byte, set []Connection) []byte {
	dst = append(dst, `"connectionSet":[`...)
	for i, c := range set {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"clientAddr":`...)
		dst = compat.AppendJSONString(dst, c.ClientAddr)
		dst = append(dst, `,"clientId":`...)
		dst = compat.AppendJSONString(dst, c.ClientID)
		dst = append(dst, `,"language":"`...)
		dst = append(dst, c.Language.String()...)
		dst = append(dst, `","version":`...)
		dst = strconv.AppendInt(dst, int64(c.Version), 10)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// ConsumerConnection is the GET_CONSUMER_CONNECTION_LIST (203) body (Java: ConsumerConnection).
type ConsumerConnection struct {
	ConnectionSet     []Connection
	ConsumeType       string
	MessageModel      string
	ConsumeFromWhere  string
	SubscriptionTable map[string]SubscriptionData // written with topics sorted
}

// AppendJSON writes the connection set, the group's settings and its subscriptions.
func (c *ConsumerConnection) AppendJSON(dst []byte) []byte {
	dst = appendConnectionSet(append(dst, '{'), c.ConnectionSet)
	dst = append(dst, `,"consumeFromWhere":`...)
	dst = compat.AppendJSONString(dst, c.ConsumeFromWhere)
	dst = append(dst, `,"consumeType":`...)
	dst = compat.AppendJSONString(dst, c.ConsumeType)
	dst = append(dst, `,"messageModel":`...)
	dst = compat.AppendJSONString(dst, c.MessageModel)
	dst = append(dst, `,"subscriptionTable":`...)
	dst = appendSortedMap(dst, c.SubscriptionTable, func(dst []byte, s SubscriptionData) []byte { return s.AppendJSON(dst) })
	return append(dst, '}')
}

// ProducerConnection is the GET_PRODUCER_CONNECTION_LIST (204) body (Java: ProducerConnection).
type ProducerConnection struct {
	ConnectionSet []Connection
}

// AppendJSON writes {"connectionSet":[..]}.
func (p *ProducerConnection) AppendJSON(dst []byte) []byte {
	return append(appendConnectionSet(append(dst, '{'), p.ConnectionSet), '}')
}

// ProducerInfo is one producer of a ProducerTableInfo (Java: ProducerInfo).
type ProducerInfo struct {
	ClientID            string
	RemoteIP            string // Java's SocketAddress#toString, "/ip:port"
	Language            LanguageCode
	Version             int32
	LastUpdateTimestamp int64
}

// ProducerTableInfo is the GET_ALL_PRODUCER_INFO (328) body (Java: ProducerTableInfo).
type ProducerTableInfo struct {
	Data map[string][]ProducerInfo // written with groups sorted, producers in slice order
}

// AppendJSON writes {"data":{group:[ProducerInfo..]}}.
func (p *ProducerTableInfo) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"data":`...)
	dst = appendSortedMap(dst, p.Data, func(dst []byte, list []ProducerInfo) []byte {
		dst = append(dst, '[')
		for i, c := range list {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"clientId":`...)
			dst = compat.AppendJSONString(dst, c.ClientID)
			dst = append(dst, `,"language":"`...)
			dst = append(dst, c.Language.String()...)
			dst = append(dst, `","lastUpdateTimestamp":`...)
			dst = strconv.AppendInt(dst, c.LastUpdateTimestamp, 10)
			dst = append(dst, `,"remoteIP":`...)
			dst = compat.AppendJSONString(dst, c.RemoteIP)
			dst = append(dst, `,"version":`...)
			dst = strconv.AppendInt(dst, int64(c.Version), 10)
			dst = append(dst, '}')
		}
		return append(dst, ']')
	})
	return append(dst, '}')
}

// AppendJSON writes {"consumerIdList":[..]}.
func (g *GetConsumerListByGroupResponseBody) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"consumerIdList":`...)
	return append(appendStrings(dst, g.ConsumerIDList), '}')
}

// GroupList is the QUERY_TOPIC_CONSUME_BY_WHO (300) body (Java: GroupList).
type GroupList struct {
	GroupList []string
}

// AppendJSON writes {"groupList":[..]}.
func (g *GroupList) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"groupList":`...)
	return append(appendStrings(dst, g.GroupList), '}')
}

// LockBatchResponseBody is the LOCK_BATCH_MQ (41) body (Java: LockBatchResponseBody).
type LockBatchResponseBody struct {
	LockOKMQSet []MessageQueue
}

// AppendJSON writes {"lockOKMQSet":[mq..]}.
func (l *LockBatchResponseBody) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"lockOKMQSet":[`...)
	for i, mq := range l.LockOKMQSet {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = mq.AppendJSON(dst)
	}
	return append(dst, "]}"...)
}

// DecodeLockBatchRequestBody reads a LOCK_BATCH_MQ / UNLOCK_BATCH_MQ body.
func DecodeLockBatchRequestBody(body []byte) (LockBatchRequestBody, error) {
	var b LockBatchRequestBody
	err := UnmarshalBody(body, &b)
	return b, err
}

// ResetOffsetBody is the RESET_CONSUMER_CLIENT_OFFSET (220) body and the
// INVOKE_BROKER_TO_RESET_OFFSET (222) answer (Java: ResetOffsetBody).
type ResetOffsetBody struct {
	OffsetTable []MessageQueueEntry[int64]
}

// AppendJSON writes {"offsetTable":{{mq}:offset..}}.
func (r *ResetOffsetBody) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"offsetTable":`...)
	dst = appendMessageQueueTable(dst, r.OffsetTable, appendInt64)
	return append(dst, '}')
}

// AppendJSONForC writes the table as ResetOffsetBodyForC, the list of MessageQueueForC
// the C++ client reads: {"offsetTable":[{"brokerName":..,"offset":..,"queueId":..,"topic":..}]}.
func (r *ResetOffsetBody) AppendJSONForC(dst []byte) []byte {
	dst = append(dst, `{"offsetTable":[`...)
	for i, e := range r.OffsetTable {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"brokerName":`...)
		dst = compat.AppendJSONString(dst, e.Queue.BrokerName)
		dst = append(dst, `,"offset":`...)
		dst = strconv.AppendInt(dst, e.Value, 10)
		dst = append(dst, `,"queueId":`...)
		dst = strconv.AppendInt(dst, int64(e.Queue.QueueID), 10)
		dst = append(dst, `,"topic":`...)
		dst = compat.AppendJSONString(dst, e.Queue.Topic)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

// ClientQueueOffsets is one client's entry of GetConsumerStatusBody.consumerTable.
type ClientQueueOffsets struct {
	ClientID string
	Table    []MessageQueueEntry[int64]
}

// GetConsumerStatusBody is the GET_CONSUMER_STATUS_FROM_CLIENT (221) answer of a client
// and, with consumerTable, the INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223) answer
// (Java: GetConsumerStatusBody).
type GetConsumerStatusBody struct {
	MessageQueueTable []MessageQueueEntry[int64]
	ConsumerTable     []ClientQueueOffsets
}

// AppendJSON writes {"consumerTable":{clientId:{{mq}:offset}},"messageQueueTable":{{mq}:offset}}.
func (g *GetConsumerStatusBody) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"consumerTable":{`...)
	for i := range g.ConsumerTable {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = compat.AppendJSONString(dst, g.ConsumerTable[i].ClientID)
		dst = append(dst, ':')
		dst = appendMessageQueueTable(dst, g.ConsumerTable[i].Table, appendInt64)
	}
	dst = append(dst, `},"messageQueueTable":`...)
	dst = appendMessageQueueTable(dst, g.MessageQueueTable, appendInt64)
	return append(dst, '}')
}

// DecodeGetConsumerStatusBody reads a client's {"messageQueueTable":{{mq}:offset}}
// (fastjson's object keys, as Java and the Go client write them); the table comes back
// sorted by topic, broker name and queue id.
func DecodeGetConsumerStatusBody(body []byte) (GetConsumerStatusBody, error) {
	var out GetConsumerStatusBody
	std, err := compat.NormalizeJSON(body)
	if err != nil {
		return out, err
	}
	var v struct {
		MessageQueueTable map[string]int64 `json:"messageQueueTable"`
	}
	if err := UnmarshalBody(std, &v); err != nil {
		return out, err
	}
	for k, off := range v.MessageQueueTable {
		topic, broker, q, err := compat.ParseMessageQueueKey(k)
		if err != nil {
			return out, fmt.Errorf("message queue key %q: %w", k, err)
		}
		out.MessageQueueTable = append(out.MessageQueueTable, MessageQueueEntry[int64]{MessageQueue{Topic: topic, BrokerName: broker, QueueID: q}, off})
	}
	list := out.MessageQueueTable
	sort.Slice(list, func(i, j int) bool {
		if list[i].Queue.Topic != list[j].Queue.Topic {
			return list[i].Queue.Topic < list[j].Queue.Topic
		}
		if list[i].Queue.BrokerName != list[j].Queue.BrokerName {
			return list[i].Queue.BrokerName < list[j].Queue.BrokerName
		}
		return list[i].Queue.QueueID < list[j].Queue.QueueID
	})
	return out, nil
}

// QueueTimeSpan is one queue of a QueryConsumeTimeSpanBody (Java: QueueTimeSpan).
type QueueTimeSpan struct {
	MessageQueue     MessageQueue
	MinTimeStamp     int64
	MaxTimeStamp     int64
	ConsumeTimeStamp int64
	DelayTime        int64
}

// QueryConsumeTimeSpanBody is the QUERY_CONSUME_TIME_SPAN (303) body (Java: QueryConsumeTimeSpanBody).
type QueryConsumeTimeSpanBody struct {
	ConsumeTimeSpanSet []QueueTimeSpan
}

// AppendJSON writes {"consumeTimeSpanSet":[{"consumeTimeStamp":..,"consumeTimeStampStr":..,"delayTime":..,
// "maxTimeStamp":..,"maxTimeStampStr":..,"messageQueue":..,"minTimeStamp":..,"minTimeStampStr":..}]}: fastjson
// also writes QueueTimeSpan's three *TimeStampStr getters (yyyy-MM-dd#HH:mm:ss:SSS, local time).
func (q *QueryConsumeTimeSpanBody) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"consumeTimeSpanSet":[`...)
	for i, s := range q.ConsumeTimeSpanSet {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"consumeTimeStamp":`...)
		dst = strconv.AppendInt(dst, s.ConsumeTimeStamp, 10)
		dst = append(dst, `,"consumeTimeStampStr":"`...)
		dst = append(dst, compat.FormatDateMillis(s.ConsumeTimeStamp)...)
		dst = append(dst, `","delayTime":`...)
		dst = strconv.AppendInt(dst, s.DelayTime, 10)
		dst = append(dst, `,"maxTimeStamp":`...)
		dst = strconv.AppendInt(dst, s.MaxTimeStamp, 10)
		dst = append(dst, `,"maxTimeStampStr":"`...)
		dst = append(dst, compat.FormatDateMillis(s.MaxTimeStamp)...)
		dst = append(dst, `","messageQueue":`...)
		dst = s.MessageQueue.AppendJSON(dst)
		dst = append(dst, `,"minTimeStamp":`...)
		dst = strconv.AppendInt(dst, s.MinTimeStamp, 10)
		dst = append(dst, `,"minTimeStampStr":"`...)
		dst = append(dst, compat.FormatDateMillis(s.MinTimeStamp)...)
		dst = append(dst, `"}`...)
	}
	return append(dst, "]}"...)
}

// AppendQueueOffsets writes a Map<Integer, Long> of queue offsets as fastjson does, queue
// ids unquoted and ascending: {0:12,1:34} (consumerOffset.json, correctionOffsets).
func AppendQueueOffsets(dst []byte, t map[int32]int64) []byte {
	ids := make([]int32, 0, len(t))
	for id := range t {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	dst = append(dst, '{')
	for i, id := range ids {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(id), 10)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, t[id], 10)
	}
	return append(dst, '}')
}

// QueryCorrectionOffsetBody is the QUERY_CORRECTION_OFFSET (308) body (Java: QueryCorrectionOffsetBody).
type QueryCorrectionOffsetBody struct {
	CorrectionOffsets map[int32]int64
}

// AppendJSON writes {"correctionOffsets":{0:12,1:34}}.
func (q *QueryCorrectionOffsetBody) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"correctionOffsets":`...)
	return append(AppendQueueOffsets(dst, q.CorrectionOffsets), '}')
}

// ConsumerOffsetSerializeWrapper is the GET_ALL_CONSUMER_OFFSET (43) body and, pretty
// printed, consumerOffset.json (Java: ConsumerOffsetSerializeWrapper).
type ConsumerOffsetSerializeWrapper struct {
	OffsetTable map[string]map[int32]int64 // "topic@group" → queue id → offset; keys written sorted
}

// AppendJSON writes {"offsetTable":{"topic@group":{0:12,1:34}}}.
func (w *ConsumerOffsetSerializeWrapper) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"offsetTable":`...)
	return append(appendSortedMap(dst, w.OffsetTable, AppendQueueOffsets), '}')
}

// ConsumeQueueData is one ConsumeQueue unit of a QueryConsumeQueueResponseBody (Java:
// ConsumeQueueData; the extension fields are never written: ConsumeQueue ext is not built).
type ConsumeQueueData struct {
	PhysicOffset int64
	PhysicSize   int32
	TagsCode     int64
}

// QueryConsumeQueueResponseBody is the QUERY_CONSUME_QUEUE (321) body (Java:
// QueryConsumeQueueResponseBody).
type QueryConsumeQueueResponseBody struct {
	SubscriptionData *SubscriptionData // omitted when nil
	FilterData       string            // omitted when empty
	QueueData        []ConsumeQueueData
	MaxQueueIndex    int64
	MinQueueIndex    int64
}

// AppendJSON writes {"filterData":..,"maxQueueIndex":..,"minQueueIndex":..,"queueData":[..],"subscriptionData":..}.
func (q *QueryConsumeQueueResponseBody) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	if q.FilterData != "" {
		dst = append(dst, `"filterData":`...)
		dst = compat.AppendJSONString(dst, q.FilterData)
		dst = append(dst, ',')
	}
	dst = append(dst, `"maxQueueIndex":`...)
	dst = strconv.AppendInt(dst, q.MaxQueueIndex, 10)
	dst = append(dst, `,"minQueueIndex":`...)
	dst = strconv.AppendInt(dst, q.MinQueueIndex, 10)
	dst = append(dst, `,"queueData":[`...)
	for i, u := range q.QueueData {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"eval":false,"physicOffset":`...)
		dst = strconv.AppendInt(dst, u.PhysicOffset, 10)
		dst = append(dst, `,"physicSize":`...)
		dst = strconv.AppendInt(dst, int64(u.PhysicSize), 10)
		dst = append(dst, `,"tagsCode":`...)
		dst = strconv.AppendInt(dst, u.TagsCode, 10)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if q.SubscriptionData != nil {
		dst = append(dst, `,"subscriptionData":`...)
		dst = q.SubscriptionData.AppendJSON(dst)
	}
	return append(dst, '}')
}

// OffsetMovedEvent is the body of the records stored in OFFSET_MOVED_EVENT when a
// master corrects a pull offset (Java: OffsetMovedEvent).
type OffsetMovedEvent struct {
	ConsumerGroup string
	MessageQueue  MessageQueue
	OffsetRequest int64
	OffsetNew     int64
}

// AppendJSON writes {"consumerGroup":..,"messageQueue":..,"offsetNew":..,"offsetRequest":..}.
func (e *OffsetMovedEvent) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"consumerGroup":`...)
	dst = compat.AppendJSONString(dst, e.ConsumerGroup)
	dst = append(dst, `,"messageQueue":`...)
	dst = e.MessageQueue.AppendJSON(dst)
	dst = append(dst, `,"offsetNew":`...)
	dst = strconv.AppendInt(dst, e.OffsetNew, 10)
	dst = append(dst, `,"offsetRequest":`...)
	dst = strconv.AppendInt(dst, e.OffsetRequest, 10)
	return append(dst, '}')
}

// SubscriptionGroupWrapper is the GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201) body and, pretty
// printed, subscriptionGroup.json (Java: SubscriptionGroupWrapper).
type SubscriptionGroupWrapper struct {
	SubscriptionGroupTable map[string]SubscriptionGroupConfig `json:"subscriptionGroupTable"` // written with groups sorted
	DataVersion            DataVersion                        `json:"dataVersion"`
}

// AppendJSON writes {"dataVersion":..,"subscriptionGroupTable":{group:config..}}.
func (w *SubscriptionGroupWrapper) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"dataVersion":`...)
	dst = w.DataVersion.AppendJSON(dst)
	dst = append(dst, `,"subscriptionGroupTable":`...)
	dst = appendSortedMap(dst, w.SubscriptionGroupTable, func(dst []byte, c SubscriptionGroupConfig) []byte { return c.AppendJSON(dst) })
	return append(dst, '}')
}

// DelayOffsetSerializeWrapper is the GET_ALL_DELAY_OFFSET (45) body and, pretty printed,
// delayOffset.json (Java: DelayOffsetSerializeWrapper).
type DelayOffsetSerializeWrapper struct {
	OffsetTable map[int]int64 // delay level → offset
}

// AppendJSON writes {"offsetTable":{1:0,2:15}}: fastjson's unquoted integer keys,
// ascending as Java's ConcurrentHashMap of small Integers iterates them.
func (w *DelayOffsetSerializeWrapper) AppendJSON(dst []byte) []byte {
	levels := make([]int, 0, len(w.OffsetTable))
	for l := range w.OffsetTable {
		levels = append(levels, l)
	}
	sort.Ints(levels)
	dst = append(dst, `{"offsetTable":{`...)
	for i, l := range levels {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(l), 10)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, w.OffsetTable[l], 10)
	}
	return append(dst, "}}"...)
}
