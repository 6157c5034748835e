package conformance

// Timer messages (a Skyrocket extension, server/broker/timer.go): the unmodified Go client
// sends with the 5.x properties TIMER_DELAY_MS, TIMER_DELAY_SEC and TIMER_DELIVER_MS.

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
	"github.com/skyrocket-mq/skyrocket/store/timer"
)

func brokerRuntime(t *testing.T, addr string) map[string]string {
	t.Helper()
	cl := remoting.NewClient(remoting.ClientOptions{DialTimeout: time.Second})
	defer cl.Close()
	resp, err := cl.Invoke(context.Background(), addr, protocol.NewRequest(protocol.CodeGetBrokerRuntimeInfo), 5*time.Second)
	if err != nil || resp.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("GET_BROKER_RUNTIME_INFO: %v %v", resp, err)
	}
	var kv struct {
		Table map[string]string `json:"table"`
	}
	stdJSON(t, resp.Body, &kv)
	return kv.Table
}

// Each message arrives once, not before its time, stored within precision + 100 ms
// after it, with body, tags, keys, user properties and msgId intact.
func TestConformance_Timer_GoClientThreeProperties(t *testing.T) {
	c := startCluster(t, nil) // timerPrecisionMs 1000, the default
	topic := unique("TTimer")
	p := newProducer(t, c.nsAddr())
	type sent struct {
		due   time.Time
		msgID string
	}
	want := map[string]sent{}
	// A plain send first: the topic's route and the connection are then behind us, so the
	// broker starts each relative delay within a ms or two of the client's clock.
	warm := primitive.NewMessage(topic, []byte("warm-up"))
	warm.WithTag("TagT")
	warm.WithKeys([]string{"k-warm-up"})
	warm.WithProperty("custom", "v-warm-up")
	res, err := p.SendSync(context.Background(), warm)
	if err != nil || res.Status != primitive.SendOK {
		t.Fatalf("warm-up send: %v %v", res, err)
	}
	want["warm-up"] = sent{due: time.Now().Add(-time.Hour), msgID: res.MsgID}
	send := func(body, key, value string, due func(time.Time) time.Time) {
		m := primitive.NewMessage(topic, []byte(body))
		m.WithTag("TagT")
		m.WithKeys([]string{"k-" + body})
		m.WithProperty("custom", "v-"+body)
		at := time.Now()
		if key == timer.PropertyDeliverMs {
			value = strconv.FormatInt(due(at).UnixMilli(), 10)
		}
		m.WithProperty(key, value)
		res, err := p.SendSync(context.Background(), m)
		if err != nil || res.Status != primitive.SendOK {
			t.Fatalf("send %s: %v %v", body, res, err)
		}
		want[body] = sent{due: due(at), msgID: res.MsgID}
	}
	send("ms1500", timer.PropertyDelayMs, "1500", func(at time.Time) time.Time { return at.Add(1500 * time.Millisecond) })
	send("sec7", timer.PropertyDelaySec, "7", func(at time.Time) time.Time { return at.Add(7 * time.Second) })
	send("sec61", timer.PropertyDelaySec, "61", func(at time.Time) time.Time { return at.Add(61 * time.Second) })
	send("abs3300", timer.PropertyDeliverMs, "", func(at time.Time) time.Time { return at.Add(3300 * time.Millisecond) })
	send("past", timer.PropertyDeliverMs, "", func(at time.Time) time.Time { return at.Add(-time.Hour) })

	eventually(t, 2*time.Second, "timerCongestNum 4 (the pending count)", func() bool {
		return brokerRuntime(t, c.broker.Addr())["timerCongestNum"] == "4"
	})
	got := &deliveries{}
	pushConsume(t, c.nsAddr(), unique("CG"), topic, func(m *primitive.MessageExt) consumer.ConsumeResult {
		got.add(m)
		return consumer.ConsumeSuccess
	})
	eventually(t, 75*time.Second, "all six messages", func() bool { return got.len() >= 6 })
	eventually(t, 5*time.Second, "the wheel empty", func() bool { return brokerRuntime(t, c.broker.Addr())["timerCongestNum"] == "0" })
	if n := storedCount(c, topic, 8); n != 6 {
		t.Fatalf("%d messages in %s, want 6", n, topic)
	}
	seen := map[string]bool{}
	for i := 0; i < got.len(); i++ {
		m, at := got.get(i)
		b := string(m.Body)
		w, ok := want[b]
		if !ok || seen[b] {
			t.Fatalf("unexpected or repeated delivery %q", b)
		}
		seen[b] = true
		// In ms, as the broker's clock and the store timestamps count.
		late := time.Duration(m.StoreTimestamp-w.due.UnixMilli()) * time.Millisecond
		t.Logf("%s: stored %v after its time, consumed %v after it", b, late, at.Sub(w.due))
		if b != "past" && b != "warm-up" {
			if late < 0 {
				t.Errorf("%s stored %v before its time", b, -late)
			}
			if late > 1100*time.Millisecond {
				t.Errorf("%s stored %v after its time, want ≤ precision + 100 ms", b, late)
			}
			if at.UnixMilli() < w.due.UnixMilli() {
				t.Errorf("%s consumed before its time", b)
			}
			if m.GetProperty(timer.PropertyOutMs) == "" || m.GetProperty("REAL_TOPIC") != "" {
				t.Errorf("%s properties %v: want TIMER_OUT_MS kept, REAL_TOPIC removed (5.x)", b, m.GetProperties())
			}
		}
		if m.GetTags() != "TagT" || m.GetKeys() != "k-"+b || m.GetProperty("custom") != "v-"+b || m.MsgId != w.msgID || m.Topic != topic {
			t.Errorf("%s changed: tags %q keys %q custom %q msgId %s (sent %s) topic %s", b, m.GetTags(), m.GetKeys(), m.GetProperty("custom"), m.MsgId, w.msgID, m.Topic)
		}
	}
}

// Bad values are refused with MESSAGE_ILLEGAL and 5.x's remark; nothing is stored.
func TestConformance_Timer_HostileValuesRefused(t *testing.T) {
	c := startCluster(t, func(o *broker.Options) { o.Timer.MaxDelaySec = 60 })
	topic := unique("TTimerBad")
	p := newProducer(t, c.nsAddr())
	ok := primitive.NewMessage(topic, []byte("ok")) // creates the topic
	if res, err := p.SendSync(context.Background(), ok); err != nil || res.Status != primitive.SendOK {
		t.Fatalf("send: %v %v", res, err)
	}
	far := strconv.FormatInt(time.Now().Add(2*time.Minute).UnixMilli(), 10)
	for _, kv := range [][2]string{
		{timer.PropertyDelaySec, "abc"}, {timer.PropertyDelaySec, "-5"}, {timer.PropertyDelaySec, "61"},
		{timer.PropertyDelaySec, "9223372036854775807"}, {timer.PropertyDelayMs, "1e3"}, {timer.PropertyDelayMs, "-1"},
		{timer.PropertyDelayMs, "99999999999999999999"}, {timer.PropertyDeliverMs, far}, {timer.PropertyDeliverMs, "-1"},
		{timer.PropertyDelayMs, " 100"},
	} {
		m := primitive.NewMessage(topic, []byte("bad"))
		m.WithProperty(kv[0], kv[1])
		_, err := p.SendSync(context.Background(), m)
		if err == nil || !strings.Contains(err.Error(), "13") || !strings.Contains(err.Error(), "timer message illegal, the delay time should not be bigger than the max delay 60000ms") {
			t.Errorf("%s=%q: err %v, want MESSAGE_ILLEGAL with 5.x's remark", kv[0], kv[1], err)
		}
	}
	// The valid one is dispatched (the send is answered before dispatch), and nothing else.
	eventually(t, 5*time.Second, "the valid message dispatched", func() bool {
		return storedCount(c, topic, 8) >= 1 && c.broker.Store().DispatchBehindBytes() == 0
	})
	if n := storedCount(c, topic, 8); n != 1 {
		t.Fatalf("%d messages stored, want only the valid one", n)
	}
	if n := c.broker.Store().MaxOffsetInQueue(timer.Topic, 0); n != 0 {
		t.Fatalf("%d messages parked, want 0", n)
	}
}

// timerEnable=false: the properties are ignored, as a 4.x broker ignores them.
func TestConformance_Timer_DisabledIgnoresProperties(t *testing.T) {
	c := startCluster(t, func(o *broker.Options) { o.Timer.Enable = false })
	topic := unique("TTimerOff")
	p := newProducer(t, c.nsAddr())
	m := primitive.NewMessage(topic, []byte("now"))
	m.WithProperty(timer.PropertyDelaySec, "30")
	if res, err := p.SendSync(context.Background(), m); err != nil || res.Status != primitive.SendOK {
		t.Fatalf("send: %v %v", res, err)
	}
	eventually(t, 5*time.Second, "the message in its topic at once", func() bool { return storedCount(c, topic, 8) == 1 })
}

// A transactional message with a timer property is timed from its commit (5.x: the commit's
// putMessage runs the timer hook; the half message is not parked).
func TestConformance_Timer_TransactionTimedFromCommit(t *testing.T) {
	c := txCluster(t, nil)
	topic := unique("TTimerTx")
	l := newTxListener()
	p, _ := newTxProducer(t, c.nsAddr(), l)
	m := primitive.NewMessage(topic, []byte("tx-timer"))
	m.WithProperty(timer.PropertyDelayMs, "2000")
	sentAt := time.Now()
	res, err := p.SendMessageInTransaction(context.Background(), m)
	if err != nil || res.Status != primitive.SendOK || res.State != primitive.CommitMessageState {
		t.Fatalf("send: %v %v", res, err)
	}
	eventually(t, 5*time.Second, "the committed message parked in the wheel", func() bool {
		return c.broker.Store().MaxOffsetInQueue(timer.Topic, 0) == 1
	})
	if n := txStored(c, topic); n != 0 {
		t.Fatalf("%d messages in %s before the time, want 0", n, topic)
	}
	eventually(t, 10*time.Second, "the committed timer message delivered", func() bool { return txStored(c, topic) == 1 })
	if d := time.Since(sentAt); d < 2*time.Second {
		t.Fatalf("delivered %v after the send, want ≥ 2 s", d)
	}
}

// Cancel as 5.x: a send with TIMER_DEL_UNIQKEY = "<topic>+<msgId>" and the same
// TIMER_DELIVER_MS as a pending timer message is answered SEND_OK, is never delivered, and
// the message it names is not delivered either; the other message due at that time is.
// With a time not in the future the marker is refused (MESSAGE_ILLEGAL, 5.x's remark).
func TestConformance_Timer_GoClientCancel(t *testing.T) {
	c := startCluster(t, nil)
	topic := unique("TTimerDel")
	p := newProducer(t, c.nsAddr())
	at := strconv.FormatInt(time.Now().Add(3*time.Second).UnixMilli(), 10)
	send := func(body string, props ...string) string {
		m := primitive.NewMessage(topic, []byte(body))
		for i := 0; i < len(props); i += 2 {
			m.WithProperty(props[i], props[i+1])
		}
		res, err := p.SendSync(context.Background(), m)
		if err != nil || res.Status != primitive.SendOK {
			t.Fatalf("send %s: %v %v", body, res, err)
		}
		return res.MsgID
	}
	cancelled := send("cancelled", timer.PropertyDeliverMs, at)
	kept := send("kept", timer.PropertyDeliverMs, at)
	send("marker", timer.PropertyDeliverMs, at, timer.PropertyDelUniqKey, timer.DeleteKey(topic, cancelled))
	bad := primitive.NewMessage(topic, []byte("late marker"))
	bad.WithProperty(timer.PropertyDeliverMs, "1")
	bad.WithProperty(timer.PropertyDelUniqKey, timer.DeleteKey(topic, kept))
	if _, err := p.SendSync(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "timer message illegal") {
		t.Fatalf("marker with a past time: err %v, want MESSAGE_ILLEGAL", err)
	}
	got := &deliveries{}
	pushConsume(t, c.nsAddr(), unique("CG"), topic, func(m *primitive.MessageExt) consumer.ConsumeResult {
		got.add(m)
		return consumer.ConsumeSuccess
	})
	eventually(t, 10*time.Second, "the kept message", func() bool { return got.len() >= 1 })
	// The slot is over once the cursor passed it: the wheel holds nothing (the marker is
	// done with its slot), and the topic holds only the kept message.
	eventually(t, 5*time.Second, "the wheel empty", func() bool { return brokerRuntime(t, c.broker.Addr())["timerCongestNum"] == "0" })
	eventually(t, 5*time.Second, "dispatched", func() bool { return c.broker.Store().DispatchBehindBytes() == 0 })
	if n := storedCount(c, topic, 8); n != 1 {
		t.Fatalf("%d messages in %s, want only the kept one", n, topic)
	}
	if m, _ := got.get(0); string(m.Body) != "kept" || m.MsgId != kept {
		t.Fatalf("delivered %q (%s), want kept (%s)", m.Body, m.MsgId, kept)
	}
}
