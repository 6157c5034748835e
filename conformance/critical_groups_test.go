package conformance

// The critical issue's first defect, over the raw wire: a consumer group name with '/'
// or ".." sent with CONSUMER_SEND_MSG_BACK (or any request that creates a group or its
// %RETRY%/%DLQ% topics) used to write a record whose topic the dispatcher and recovery
// refused, losing every message after it. Each such request is now refused with
// SYSTEM_ERROR and the Java client's remark, and the messages around them survive
// restarts.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// commitLogOffset reads the CommitLog offset out of an offset message id (store host,
// then 16 hex digits).
func commitLogOffset(t *testing.T, res *primitive.SendResult) int64 {
	t.Helper()
	id := res.OffsetMsgID
	off, err := strconv.ParseInt(id[len(id)-16:], 16, 64)
	if err != nil {
		t.Fatalf("offset msgId %q: %v", id, err)
	}
	return off
}

var hostileGroups = []struct{ group, remark string }{
	{"adv/boot", "the specified group[adv/boot] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
	{"../../x", "the specified group[../../x] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
	{"a b", "the specified group[a b] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
	{"x@y", "the specified group[x@y] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
	{" ", "the specified group is blank"},
	{strings.Repeat("g", 256), "the specified group is longer than group max length 255."},
}

func wantRefused(t *testing.T, what string, r *protocol.Command, remark string) {
	t.Helper()
	if r.ResponseCode() != protocol.ResSystemError || r.Remark != remark {
		t.Fatalf("%s: %v %q, want SYSTEM_ERROR %q", what, r.ResponseCode(), r.Remark, remark)
	}
}

func TestCritical_HostileGroupNames_RefusedAndNothingLost(t *testing.T) {
	c := startCluster(t, nil)
	w := newWire(t, c.opts.ListenAddr)
	topic := unique("TPoison")
	first := sendN(t, c.nsAddr(), topic, 1)[0]
	offset := commitLogOffset(t, first)

	for _, g := range hostileGroups {
		for _, level := range []int32{-1, 0, 3} {
			r := w.call(protocol.CodeConsumerSendMsgBack, &protocol.ConsumerSendMsgBackRequestHeader{
				Offset: offset, Group: g.group, DelayLevel: level, OriginTopic: topic}, nil)
			wantRefused(t, "send-back "+g.group, r, g.remark)
		}
		hb := `{"clientID":"hostile","producerDataSet":[],"consumerDataSet":[{"groupName":` + strconv.Quote(g.group) +
			`,"consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","subscriptionDataSet":[],"unitMode":false}]}`
		wantRefused(t, "heartbeat "+g.group, w.call(protocol.CodeHeartBeat, nil, []byte(hb)), g.remark)
		wantRefused(t, "pull "+g.group, w.call(protocol.CodePullMessage, &protocol.PullMessageRequestHeader{
			ConsumerGroup: g.group, Topic: topic, MaxMsgNums: 32, SysFlag: 1, CommitOffset: 1}, nil), g.remark)
		wantRefused(t, "subscription group "+g.group, w.call(protocol.CodeUpdateAndCreateSubscriptiongroup, nil,
			[]byte(`{"groupName":`+strconv.Quote(g.group)+`}`)), g.remark)
		wantRefused(t, "commit offset "+g.group, w.call(protocol.CodeUpdateConsumerOffset, &protocol.UpdateConsumerOffsetRequestHeader{
			ConsumerGroup: g.group, Topic: topic, CommitOffset: 1}, nil), g.remark)
	}
	// A legal group of 121-255 characters has a %RETRY% topic longer than a record can name.
	long := strings.Repeat("g", 121)
	wantRefused(t, "send-back with a long group", w.call(protocol.CodeConsumerSendMsgBack,
		&protocol.ConsumerSendMsgBackRequestHeader{Offset: offset, Group: long, DelayLevel: -1, OriginTopic: topic}, nil),
		"The specified topic is longer than topic max length.")
	// A legal group still gets its message back.
	if r := w.call(protocol.CodeConsumerSendMsgBack, &protocol.ConsumerSendMsgBackRequestHeader{
		Offset: offset, Group: unique("CGLegal"), DelayLevel: -1, OriginTopic: topic}, nil); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("legal send-back: %v %q", r.ResponseCode(), r.Remark)
	}

	sendN(t, c.nsAddr(), topic, 20)
	queueSizes(t, w, topic, 21)
	for i := 0; i < 2; i++ {
		c.restartBroker()
		w = newWire(t, c.opts.ListenAddr)
		queueSizes(t, w, topic, 21)
	}
	sendN(t, c.nsAddr(), topic, 5)
	queueSizes(t, w, topic, 26)

	cq, err := os.ReadDir(filepath.Join(c.opts.Store.RootDir, "consumequeue"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cq {
		if strings.Contains(e.Name(), "adv") || strings.Contains(e.Name(), "..") || strings.Contains(e.Name(), " ") {
			t.Fatalf("consume queue directory %q", e.Name())
		}
	}
	if ents, _ := os.ReadDir(c.root); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("files next to the store: %q", names)
	}
	topics, err := os.ReadFile(filepath.Join(c.opts.Store.RootDir, "config", "topics.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(topics), "adv/boot") || strings.Contains(string(topics), "../") {
		t.Fatalf("topics.json names a hostile group's topic")
	}
}
