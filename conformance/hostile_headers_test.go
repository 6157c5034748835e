package conformance

// Header and property values Java refuses (issue "Security … hostile input", items 3 and 4):
// numbers that Java's FastCodesHeader decode (SEND_MESSAGE_V2, PULL_MESSAGE) or its store
// (DELAY) cannot parse are answered SYSTEM_ERROR with the NumberFormatException text and
// nothing is stored (they used to be taken as 0: the message landed in a queue the client
// did not ask for); END_TRANSACTION with a commitOrRollback outside 0/8/12 is answered
// (it used to get no answer at all). The differential run compares these with Java 4.9.7.

import (
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

func TestHostile_NumbersJavaRefuses_AnsweredAndNothingStored(t *testing.T) {
	c := startCluster(t, nil)
	w := newWire(t, c.opts.ListenAddr)
	const topic = "HostileNumT"
	if r := w.call(protocol.CodeUpdateAndCreateTopic, &protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102",
		ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: "SINGLE_TAG"}, nil); r.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("create topic: %v %q", r.ResponseCode(), r.Remark)
	}
	nf := func(v string) string { return `java.lang.NumberFormatException: For input string: "` + v + `"` }
	cases := []struct {
		name   string
		req    *protocol.Command
		remark string
	}{
		{"send queueId abc", func() *protocol.Command {
			r := sendV2(topic, 0, 0, 0, "", []byte("x"))
			r.Ext.Set("e", "abc")
			return r
		}(), nf("abc")},
		{"send queueId empty", func() *protocol.Command { r := sendV2(topic, 0, 0, 0, "", []byte("x")); r.Ext.Set("e", ""); return r }(), nf("")},
		{"send queueId overflow", func() *protocol.Command {
			r := sendV2(topic, 0, 0, 0, "", []byte("x"))
			r.Ext.Set("e", "99999999999")
			return r
		}(), nf("99999999999")},
		{"send V1 queueId abc", req(protocol.CodeSendMessage, "producerGroup", "PG", "topic", topic, "defaultTopic", "TBW102",
			"defaultTopicQueueNums", "4", "queueId", "abc", "sysFlag", "0", "bornTimestamp", fixedBorn, "flag", "0"), nf("abc")},
		{"send DELAY abc", sendV2(topic, 1, 0, 0, props("DELAY", "abc"), []byte("x")), nf("abc")},
		{"send DELAY overflow", sendV2(topic, 1, 0, 0, props("DELAY", "2147483648"), []byte("x")), nf("2147483648")},
		{"pull queueId abc", func() *protocol.Command { r := pull("HG", topic, 0, 0); r.Ext.Set("queueId", "abc"); return r }(), nf("abc")},
		{"pull queueOffset abc", func() *protocol.Command { r := pull("HG", topic, 0, 0); r.Ext.Set("queueOffset", "abc"); return r }(), nf("abc")},
		{"end transaction commitOrRollback 99", req(protocol.CodeEndTransaction, "producerGroup", "PG", "tranStateTableOffset", "0",
			"commitLogOffset", "-1", "commitOrRollback", "99", "msgId", "x"),
			"org.apache.rocketmq.remoting.exception.RemotingCommandException: commitOrRollback field wrong"},
	}
	for _, tc := range cases {
		if tc.req.Body == nil && tc.req.Code == int32(protocol.CodeSendMessage) {
			tc.req.Body = []byte("x")
		}
		resp, err := w.cl.Invoke(t.Context(), w.addr, tc.req, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: no answer: %v", tc.name, err)
		}
		if resp.ResponseCode() != protocol.ResSystemError || resp.Remark != tc.remark {
			t.Errorf("%s: %v %q, want SYSTEM_ERROR %q", tc.name, resp.ResponseCode(), resp.Remark, tc.remark)
		}
	}
	// Nothing of the refused sends was stored, in any queue.
	for q := 0; q < 4; q++ {
		r := w.call(protocol.CodeGetMaxOffset, &protocol.GetMaxOffsetRequestHeader{Topic: topic, QueueID: int32(q)}, nil)
		if off := r.Ext.Value("offset"); off != "0" {
			t.Errorf("queue %d holds %s messages after refused sends", q, off)
		}
	}
	if m := c.broker.Store().MaxPhyOffset(); m != 0 {
		t.Errorf("the CommitLog holds %d bytes after refused sends", m)
	}
}
