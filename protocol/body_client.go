package protocol

import (
	"strconv"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// SubscriptionData is one topic subscription of a consumer group (Java: SubscriptionData).
// CodeSet arrives as JSON numbers from Java and as strings from the Go client; both decode.
type SubscriptionData struct {
	ClassFilterMode bool        `json:"classFilterMode"`
	Topic           string      `json:"topic"`
	SubString       string      `json:"subString"`
	TagsSet         []string    `json:"tagsSet"`
	CodeSet         []FlexInt32 `json:"codeSet"`
	SubVersion      int64       `json:"subVersion"`
	ExpressionType  string      `json:"expressionType"`
}

// FlexInt32 decodes from a JSON number or a numeric string.
type FlexInt32 int32

// UnmarshalJSON accepts 97 and "97".
func (f *FlexInt32) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return err
	}
	*f = FlexInt32(v)
	return nil
}

// AppendJSON writes the subscription as fastjson does (alphabetical, codeSet as numbers).
func (s *SubscriptionData) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"classFilterMode":`...)
	dst = strconv.AppendBool(dst, s.ClassFilterMode)
	dst = append(dst, `,"codeSet":[`...)
	for i, c := range s.CodeSet {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(c), 10)
	}
	dst = append(dst, `],"expressionType":`...)
	et := s.ExpressionType
	if et == "" {
		et = "TAG"
	}
	dst = compat.AppendJSONString(dst, et)
	dst = append(dst, `,"subString":`...)
	dst = compat.AppendJSONString(dst, s.SubString)
	dst = append(dst, `,"subVersion":`...)
	dst = strconv.AppendInt(dst, s.SubVersion, 10)
	dst = append(dst, `,"tagsSet":`...)
	dst = appendStrings(dst, s.TagsSet)
	dst = append(dst, `,"topic":`...)
	dst = compat.AppendJSONString(dst, s.Topic)
	return append(dst, '}')
}

// ConsumerData is one consumer group of a heartbeat (Java: ConsumerData).
type ConsumerData struct {
	GroupName           string             `json:"groupName"`
	ConsumeType         string             `json:"consumeType"`      // CONSUME_ACTIVELY | CONSUME_PASSIVELY
	MessageModel        string             `json:"messageModel"`     // CLUSTERING | BROADCASTING
	ConsumeFromWhere    string             `json:"consumeFromWhere"` // any string: Go may send UNKNOWN
	SubscriptionDataSet []SubscriptionData `json:"subscriptionDataSet"`
	UnitMode            bool               `json:"unitMode"`
}

// ProducerData names a producer group.
type ProducerData struct {
	GroupName string `json:"groupName"`
}

// HeartbeatData is the HEART_BEAT body.
type HeartbeatData struct {
	ClientID        string         `json:"clientID"`
	ProducerDataSet []ProducerData `json:"producerDataSet"`
	ConsumerDataSet []ConsumerData `json:"consumerDataSet"`
}

// SubscriptionGroupConfig is a consumer group's broker-side settings (Java: SubscriptionGroupConfig).
type SubscriptionGroupConfig struct {
	GroupName                      string `json:"groupName"`
	ConsumeEnable                  bool   `json:"consumeEnable"`
	ConsumeFromMinEnable           bool   `json:"consumeFromMinEnable"`
	ConsumeBroadcastEnable         bool   `json:"consumeBroadcastEnable"`
	RetryQueueNums                 int32  `json:"retryQueueNums"`
	RetryMaxTimes                  int32  `json:"retryMaxTimes"`
	BrokerID                       int64  `json:"brokerId"`
	WhichBrokerWhenConsumeSlowly   int64  `json:"whichBrokerWhenConsumeSlowly"`
	NotifyConsumerIdsChangedEnable bool   `json:"notifyConsumerIdsChangedEnable"`
}

// NewSubscriptionGroupConfig returns Java's defaults for group.
func NewSubscriptionGroupConfig(group string) SubscriptionGroupConfig {
	return SubscriptionGroupConfig{GroupName: group, ConsumeEnable: true, ConsumeFromMinEnable: true, ConsumeBroadcastEnable: true,
		RetryQueueNums: 1, RetryMaxTimes: 16, WhichBrokerWhenConsumeSlowly: 1, NotifyConsumerIdsChangedEnable: true}
}

// AppendJSON writes the config with fastjson's alphabetical keys.
func (g *SubscriptionGroupConfig) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"brokerId":`...)
	dst = strconv.AppendInt(dst, g.BrokerID, 10)
	dst = append(dst, `,"consumeBroadcastEnable":`...)
	dst = strconv.AppendBool(dst, g.ConsumeBroadcastEnable)
	dst = append(dst, `,"consumeEnable":`...)
	dst = strconv.AppendBool(dst, g.ConsumeEnable)
	dst = append(dst, `,"consumeFromMinEnable":`...)
	dst = strconv.AppendBool(dst, g.ConsumeFromMinEnable)
	dst = append(dst, `,"groupName":`...)
	dst = compat.AppendJSONString(dst, g.GroupName)
	dst = append(dst, `,"notifyConsumerIdsChangedEnable":`...)
	dst = strconv.AppendBool(dst, g.NotifyConsumerIdsChangedEnable)
	dst = append(dst, `,"retryMaxTimes":`...)
	dst = strconv.AppendInt(dst, int64(g.RetryMaxTimes), 10)
	dst = append(dst, `,"retryQueueNums":`...)
	dst = strconv.AppendInt(dst, int64(g.RetryQueueNums), 10)
	dst = append(dst, `,"whichBrokerWhenConsumeSlowly":`...)
	dst = strconv.AppendInt(dst, g.WhichBrokerWhenConsumeSlowly, 10)
	return append(dst, '}')
}

// GetConsumerListByGroupResponseBody is {"consumerIdList":[...]}.
type GetConsumerListByGroupResponseBody struct {
	ConsumerIDList []string `json:"consumerIdList"`
}

// MessageQueue identifies a queue (Java: MessageQueue).
type MessageQueue struct {
	Topic      string `json:"topic"`
	BrokerName string `json:"brokerName"`
	QueueID    int32  `json:"queueId"`
}

// AppendJSON writes {"brokerName":..,"queueId":..,"topic":..} (fastjson order).
func (q MessageQueue) AppendJSON(dst []byte) []byte {
	return compat.AppendMessageQueueKey(dst, q.BrokerName, q.QueueID, q.Topic)
}

// LockBatchRequestBody is the LOCK_BATCH_MQ / UNLOCK_BATCH_MQ body.
type LockBatchRequestBody struct {
	ConsumerGroup  string         `json:"consumerGroup"`
	ClientID       string         `json:"clientId"`
	OnlyThisBroker bool           `json:"onlyThisBroker"`
	MqSet          []MessageQueue `json:"mqSet"`
}
