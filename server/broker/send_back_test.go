package broker

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker/meta"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// sendBack calls CONSUMER_SEND_MSG_BACK's handler with a request of the given version.
func sendBack(t *testing.T, b *Broker, h protocol.ConsumerSendMsgBackRequestHeader, version int32) *protocol.Command {
	t.Helper()
	req := protocol.NewRequest(protocol.CodeConsumerSendMsgBack)
	req.Version = version
	h.Encode(&req.Ext)
	resp, err := b.consumerSendMsgBack(nil, req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// only returns the single record of a queue.
func only(t *testing.T, b *Broker, topic string, queue int32) message.Record {
	t.Helper()
	var recs []message.Record
	waitFor(t, 3*time.Second, "a record in "+topic, func() bool {
		recs = records(t, b.store, topic, queue)
		return len(recs) > 0
	})
	if len(recs) != 1 {
		t.Fatalf("%d records in %s/%d, want 1", len(recs), topic, queue)
	}
	return recs[0]
}

func wantProps(t *testing.T, r message.Record, want map[string]string) {
	t.Helper()
	p := message.ParseProperties(string(r.Properties))
	for k, v := range want {
		if got, ok := p.Get(k); v == "<absent>" && ok || v != "<absent>" && got != v {
			t.Errorf("%s=%q, want %q (properties %q)", k, got, v, r.Properties)
		}
	}
}

func TestConsumerSendMsgBack_GroupNotExist(t *testing.T) {
	b := newTestBroker(t, func(o *Options) { o.AutoCreateSubscriptionGroup = false })
	resp := sendBack(t, b, protocol.ConsumerSendMsgBackRequestHeader{Group: "NoSuchGroup", Offset: 0}, protocol.CurrentVersion)
	want := "subscription group not exist, NoSuchGroup \nSee http://rocketmq.apache.org/docs/faq/ for further details."
	if resp.Code != int32(protocol.ResSubscriptionGroupNotExist) || resp.Remark != want {
		t.Fatalf("code %d remark %q, want 26 %q", resp.Code, resp.Remark, want)
	}
}

func TestConsumerSendMsgBack_OffsetNotFound(t *testing.T) {
	b := newTestBroker(t, nil)
	resp := sendBack(t, b, protocol.ConsumerSendMsgBackRequestHeader{Group: "G", Offset: 123456}, protocol.CurrentVersion)
	if resp.Code != int32(protocol.ResSystemError) || resp.Remark != "look message by offset failed, 123456" {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
	// The retry topic is created before the lookup, as in Java.
	if tc, ok := b.topics.Get("%RETRY%G"); !ok || tc.Perm != 6 || tc.ReadQueueNums != 1 {
		t.Fatalf("%%RETRY%%G: %+v %v", tc, ok)
	}
}

func TestConsumerSendMsgBack_Retry_ParkedAtLevel3PlusReconsumeTimes(t *testing.T) {
	b := newTestBroker(t, nil)
	orig, uniq := putPlain(t, b.store, "TopicA", 3, "body", 1)
	resp := sendBack(t, b, protocol.ConsumerSendMsgBackRequestHeader{Group: "G", Offset: orig.WroteOffset,
		OriginMsgID: uniq, MaxReconsumeTimes: 16, HasMaxReconsumeTimes: true}, protocol.CurrentVersion)
	if resp.Code != 0 || resp.HasRemark {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
	r := only(t, b, meta.TopicSchedule, 3) // level 3 + 1 = 4 → queue 3
	wantProps(t, r, map[string]string{
		"REAL_TOPIC": "%RETRY%G", "REAL_QID": "0", "DELAY": "4", "RETRY_TOPIC": "TopicA", "WAIT": "false",
		"ORIGIN_MESSAGE_ID": message.CreateOffsetMsgID(testHost, orig.WroteOffset), "UNIQ_KEY": uniq,
		"TAGS": "TagA", "KEYS": "k-body", "CLUSTER": "DefaultCluster",
	})
	if r.ReconsumeTimes != 2 || string(r.Body) != "body" || r.Flag != 7 || r.BornHost != testBornHost || r.StoreHost != testHost {
		t.Fatalf("retry record: reconsume %d body %q flag %d born %v store %v", r.ReconsumeTimes, r.Body, r.Flag, r.BornHost, r.StoreHost)
	}
	if b.stats.SendBacks() != 1 {
		t.Fatalf("send-backs counted %d", b.stats.SendBacks())
	}
}

func TestConsumerSendMsgBack_Retry_ExplicitLevelAndOriginKept(t *testing.T) {
	b := newTestBroker(t, nil)
	orig, _ := putPlain(t, b.store, "%RETRY%G", 0, "again", 2, "RETRY_TOPIC", "TopicA", "ORIGIN_MESSAGE_ID", "FIRSTID")
	resp := sendBack(t, b, protocol.ConsumerSendMsgBackRequestHeader{Group: "G", Offset: orig.WroteOffset, DelayLevel: 2}, protocol.CurrentVersion)
	if resp.Code != 0 {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
	r := only(t, b, meta.TopicSchedule, 1)
	wantProps(t, r, map[string]string{"DELAY": "2", "RETRY_TOPIC": "TopicA", "ORIGIN_MESSAGE_ID": "FIRSTID", "REAL_TOPIC": "%RETRY%G"})
}

func TestConsumerSendMsgBack_Retry_LevelClampedToTable(t *testing.T) {
	b := newTestBroker(t, nil) // 4 levels
	orig, _ := putPlain(t, b.store, "TopicA", 0, "late", 9)
	if resp := sendBack(t, b, protocol.ConsumerSendMsgBackRequestHeader{Group: "G", Offset: orig.WroteOffset}, protocol.CurrentVersion); resp.Code != 0 {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
	wantProps(t, only(t, b, meta.TopicSchedule, 3), map[string]string{"DELAY": "4"})
}

func TestConsumerSendMsgBack_DLQ_WhenMaxReconsumeTimesReached(t *testing.T) {
	b := newTestBroker(t, nil)
	orig, uniq := putPlain(t, b.store, "TopicA", 0, "dead", 2)
	resp := sendBack(t, b, protocol.ConsumerSendMsgBackRequestHeader{Group: "G", Offset: orig.WroteOffset,
		MaxReconsumeTimes: 2, HasMaxReconsumeTimes: true}, protocol.CurrentVersion)
	if resp.Code != 0 {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
	r := only(t, b, "%DLQ%G", 0)
	wantProps(t, r, map[string]string{"DELAY": "0", "RETRY_TOPIC": "TopicA", "UNIQ_KEY": uniq, "REAL_TOPIC": "<absent>",
		"ORIGIN_MESSAGE_ID": message.CreateOffsetMsgID(testHost, orig.WroteOffset)})
	if r.ReconsumeTimes != 3 {
		t.Fatalf("reconsumeTimes %d, want 3", r.ReconsumeTimes)
	}
	if tc, ok := b.topics.Get("%DLQ%G"); !ok || tc.Perm != 6 || tc.ReadQueueNums != 1 || tc.WriteQueueNums != 1 {
		t.Fatalf("%%DLQ%%G config %+v", tc)
	}
	if n := b.store.MaxOffsetInQueue(meta.TopicSchedule, 2); n != 0 {
		t.Fatalf("%d messages parked: a dead letter is never delayed", n)
	}
}

func TestConsumerSendMsgBack_DLQ_WhenDelayLevelNegative(t *testing.T) {
	b := newTestBroker(t, nil)
	orig, _ := putPlain(t, b.store, "TopicA", 0, "poison", 0)
	if resp := sendBack(t, b, protocol.ConsumerSendMsgBackRequestHeader{Group: "G", Offset: orig.WroteOffset, DelayLevel: -1}, protocol.CurrentVersion); resp.Code != 0 {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
	if r := only(t, b, "%DLQ%G", 0); r.ReconsumeTimes != 1 {
		t.Fatalf("reconsumeTimes %d", r.ReconsumeTimes)
	}
}

// Before V3_4_9 the header's maxReconsumeTimes is ignored: the group's retryMaxTimes (16)
// applies.
func TestConsumerSendMsgBack_OldClientUsesGroupRetryMaxTimes(t *testing.T) {
	b := newTestBroker(t, nil)
	orig, _ := putPlain(t, b.store, "TopicA", 0, "old", 2)
	resp := sendBack(t, b, protocol.ConsumerSendMsgBackRequestHeader{Group: "G", Offset: orig.WroteOffset,
		MaxReconsumeTimes: 2, HasMaxReconsumeTimes: true}, protocol.VersionV3_4_9-1)
	if resp.Code != 0 {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
	if n := b.store.MaxOffsetInQueue("%DLQ%G", 0); n != 0 {
		t.Fatal("an old client's maxReconsumeTimes was honoured")
	}
	wantProps(t, only(t, b, meta.TopicSchedule, 3), map[string]string{"REAL_TOPIC": "%RETRY%G"})
}

func TestConsumerSendMsgBack_NoRetryQueues_SuccessAndNothingStored(t *testing.T) {
	b := newTestBroker(t, nil)
	g := protocol.NewSubscriptionGroupConfig("G0")
	g.RetryQueueNums = 0
	b.subs.Update(g)
	orig, _ := putPlain(t, b.store, "TopicA", 0, "x", 0)
	end := b.store.MaxPhyOffset()
	resp := sendBack(t, b, protocol.ConsumerSendMsgBackRequestHeader{Group: "G0", Offset: orig.WroteOffset}, protocol.CurrentVersion)
	if resp.Code != 0 || b.store.MaxPhyOffset() != end {
		t.Fatalf("code %d, CommitLog %d → %d", resp.Code, end, b.store.MaxPhyOffset())
	}
	if _, ok := b.topics.Get("%RETRY%G0"); ok {
		t.Fatal("retry topic created for a group without retry queues")
	}
}

func TestConsumerSendMsgBack_BrokerNotWriteable(t *testing.T) {
	b := newTestBroker(t, func(o *Options) { o.BrokerPermission = protocol.PermRead })
	resp := sendBack(t, b, protocol.ConsumerSendMsgBackRequestHeader{Group: "G", Offset: 0}, protocol.CurrentVersion)
	if resp.Code != int32(protocol.ResNoPermission) || resp.Remark != "the broker[127.0.0.1] sending message is forbidden" {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
}

// sendToRetry sends what a client's fallback sends when CONSUMER_SEND_MSG_BACK fails:
// SEND_MESSAGE (V1 header) to %RETRY%<group> with reconsumeTimes+1 and DELAY=3+n.
func sendToRetry(t *testing.T, b *Broker, group string, reconsume, max int32) *protocol.Command {
	t.Helper()
	var p message.Properties
	p.Set("RETRY_TOPIC", "TopicA")
	p.Set("ORIGIN_MESSAGE_ID", "UNIQ0001")
	p.Set("UNIQ_KEY", "UNIQ0001")
	p.Set("DELAY", strconv.Itoa(int(3+reconsume-1)))
	h := protocol.SendMessageRequestHeader{ProducerGroup: "CLIENT_INNER_PRODUCER", Topic: meta.RetryTopic(group), DefaultTopic: meta.TopicAutoCreate,
		DefaultTopicQueueNums: 4, QueueID: 0, BornTimestamp: time.Now().UnixMilli(), Properties: p.String(),
		ReconsumeTimes: reconsume, HasReconsumeTimes: true, MaxReconsumeTimes: max, HasMaxReconsumeTimes: true}
	req := protocol.NewRequest(protocol.CodeSendMessage)
	h.Encode(&req.Ext)
	req.Body = []byte("fallback")
	cl := remoting.NewClient(remoting.ClientOptions{DialTimeout: time.Second})
	defer cl.Close()
	resp, err := cl.Invoke(context.Background(), b.ListenAddrs()[0], req, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestSendMessage_RetryTopicFallback_DelayedRetry(t *testing.T) {
	b := newTestBroker(t, nil)
	if resp := sendToRetry(t, b, "G", 1, 2); resp.Code != 0 {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
	r := only(t, b, meta.TopicSchedule, 2) // DELAY 3
	wantProps(t, r, map[string]string{"REAL_TOPIC": "%RETRY%G", "RETRY_TOPIC": "TopicA"})
	if r.ReconsumeTimes != 1 {
		t.Fatalf("reconsumeTimes %d", r.ReconsumeTimes)
	}
}

// Past maxReconsumeTimes the fallback send goes to %DLQ%<group> (Java:
// handleRetryAndDLQ). Java 4.9.8 then still parks it for its DELAY (the client's
// properties overwrite the DLQ's delay level 0; apache/rocketmq#2724); send_message.go
// stores it in the DLQ at once without DELAY, which this test pins.
func TestSendMessage_RetryTopicFallback_DLQ(t *testing.T) {
	b := newTestBroker(t, nil)
	resp := sendToRetry(t, b, "G", 2, 2)
	if resp.Code != 0 {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
	r := only(t, b, "%DLQ%G", 0)
	wantProps(t, r, map[string]string{"RETRY_TOPIC": "TopicA", "UNIQ_KEY": "UNIQ0001", "DELAY": "<absent>"})
	if r.ReconsumeTimes != 2 || string(r.Body) != "fallback" {
		t.Fatalf("reconsumeTimes %d body %q", r.ReconsumeTimes, r.Body)
	}
	if tc, _ := b.topics.Get("%DLQ%G"); tc.Perm != 6 || tc.WriteQueueNums != 1 {
		t.Fatalf("%%DLQ%%G config %+v", tc)
	}
}

func TestSendMessage_RetryTopicFallback_GroupNotExist(t *testing.T) {
	b := newTestBroker(t, func(o *Options) { o.AutoCreateSubscriptionGroup = false })
	resp := sendToRetry(t, b, "Nope", 1, 2)
	if resp.Code != int32(protocol.ResSubscriptionGroupNotExist) ||
		resp.Remark != "subscription group not exist, Nope \nSee http://rocketmq.apache.org/docs/faq/ for further details." {
		t.Fatalf("code %d remark %q", resp.Code, resp.Remark)
	}
}
