package broker

import (
	"strconv"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/store/timer"
)

// applyTimer follows 5.x's precedence and validation (HookUtils#transformTimerMessage).
func TestBroker_ApplyTimer_PrecedenceAndValidation(t *testing.T) {
	b := &Broker{opts: Options{Timer: configs.DefaultTimer()}}
	now := time.Now().UnixMilli()
	type want int
	const (
		parked want = iota
		plain
		illegal
	)
	for _, c := range []struct {
		name    string
		props   []string
		sysFlag int32
		topic   string
		want    want
		// deliverAround is the expected TIMER_OUT_MS − now, ±500 ms, for parked ones.
		deliverAround int64
	}{
		{"delay ms", []string{timer.PropertyDelayMs, "1500"}, 0, "T", parked, 1500},
		{"delay sec", []string{timer.PropertyDelaySec, "7"}, 0, "T", parked, 7000},
		{"deliver ms", []string{timer.PropertyDeliverMs, strconv.FormatInt(now+3000, 10)}, 0, "T", parked, 3000},
		{"sec wins over ms", []string{timer.PropertyDelaySec, "60", timer.PropertyDelayMs, "10"}, 0, "T", parked, 60000},
		{"ms wins over deliver", []string{timer.PropertyDelayMs, "2000", timer.PropertyDeliverMs, "1"}, 0, "T", parked, 2000},
		{"past delivers at once", []string{timer.PropertyDeliverMs, strconv.FormatInt(now-1000, 10)}, 0, "T", plain, 0},
		{"zero delay at once", []string{timer.PropertyDelaySec, "0"}, 0, "T", plain, 0},
		{"delay level wins", []string{message.PropertyDelayTimeLevel, "2", timer.PropertyDelaySec, "60"}, 0, "T", plain, 0},
		{"already parked", []string{timer.PropertyOutMs, "1", timer.PropertyDelaySec, "60"}, 0, "T", plain, 0},
		{"in the timer topic", []string{timer.PropertyDelaySec, "60"}, 0, timer.Topic, plain, 0},
		{"half message", []string{timer.PropertyDelaySec, "60"}, message.TransactionPrepared, "T", plain, 0},
		{"committed", []string{timer.PropertyDelaySec, "60"}, message.TransactionCommit, "T", parked, 60000},
		{"max delay", []string{timer.PropertyDelaySec, strconv.Itoa(3 * 24 * 3600)}, 0, "T", parked, 3 * 24 * 3600 * 1000},
		{"beyond max", []string{timer.PropertyDelaySec, strconv.Itoa(3*24*3600 + 2)}, 0, "T", illegal, 0},
		{"not a number", []string{timer.PropertyDelaySec, "1s"}, 0, "T", illegal, 0},
		{"hex", []string{timer.PropertyDelayMs, "0x10"}, 0, "T", illegal, 0},
		{"negative sec", []string{timer.PropertyDelaySec, "-1"}, 0, "T", illegal, 0},
		{"negative deliver", []string{timer.PropertyDeliverMs, "-5"}, 0, "T", illegal, 0},
		{"overflow long", []string{timer.PropertyDelayMs, "9223372036854775808"}, 0, "T", illegal, 0},
		{"overflow sec*1000", []string{timer.PropertyDelaySec, "9223372036854775"}, 0, "T", illegal, 0},
		{"del uniq key past", []string{timer.PropertyDeliverMs, "1", "TIMER_DEL_UNIQKEY", "x"}, 0, "T", illegal, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var p message.Properties
			for i := 0; i+1 < len(c.props); i += 2 {
				p.Set(c.props[i], c.props[i+1])
			}
			m := &message.Message{Topic: c.topic, QueueID: 3, SysFlag: c.sysFlag}
			perr := b.applyTimer(m, &p)
			switch c.want {
			case illegal:
				if perr == nil || perr.Code != protocol.ResMessageIllegal || perr.Remark != "timer message illegal, the delay time should not be bigger than the max delay 259200000ms; or if set del msg, the delay time should be bigger than the current time" {
					t.Fatalf("got %v, want MESSAGE_ILLEGAL with 5.x's remark", perr)
				}
			case plain:
				if perr != nil || m.Topic != c.topic || m.QueueID != 3 {
					t.Fatalf("err %v, topic %s/%d: want the message left as sent", perr, m.Topic, m.QueueID)
				}
				if c.name == "delay level wins" {
					if _, ok := p.Get(timer.PropertyDelaySec); ok {
						t.Fatal("a DELAY level wins and the timer properties are removed (5.x)")
					}
				}
			case parked:
				if perr != nil || m.Topic != timer.Topic || m.QueueID != 0 {
					t.Fatalf("err %v, topic %s/%d: want parked in %s/0", perr, m.Topic, m.QueueID, timer.Topic)
				}
				rt, _ := p.Get(message.PropertyRealTopic)
				rq, _ := p.Get(message.PropertyRealQueueID)
				out, _ := p.Get(timer.PropertyOutMs)
				at, err := strconv.ParseInt(out, 10, 64)
				if rt != c.topic || rq != "3" || err != nil {
					t.Fatalf("REAL_TOPIC %q REAL_QID %q TIMER_OUT_MS %q", rt, rq, out)
				}
				if d := at - now - c.deliverAround; d < -500 || d > 500 {
					t.Fatalf("TIMER_OUT_MS %d is now+%d, want now+%d", at, at-now, c.deliverAround)
				}
			}
		})
	}
	off := &Broker{opts: Options{Timer: configs.Timer{Enable: false}}}
	var p message.Properties
	p.Set(timer.PropertyDelaySec, "abc")
	m := &message.Message{Topic: "T"}
	if err := off.applyTimer(m, &p); err != nil || m.Topic != "T" {
		t.Fatalf("timer off: err %v topic %s, want the properties ignored as a 4.x broker does", err, m.Topic)
	}
}

// FuzzBroker_ApplyTimer: any property value is parked within the maximum delay, left
// alone, or refused with MESSAGE_ILLEGAL and the message untouched; nothing panics.
func FuzzBroker_ApplyTimer(f *testing.F) {
	for _, s := range []struct{ k, v string }{
		{timer.PropertyDelaySec, "7"}, {timer.PropertyDelayMs, "1500"}, {timer.PropertyDeliverMs, "99999999999999"},
		{timer.PropertyDelaySec, "-1"}, {timer.PropertyDelayMs, "9223372036854775807"}, {timer.PropertyDeliverMs, "+5"},
		{timer.PropertyDelaySec, ""}, {timer.PropertyDelayMs, "1e9"}, {message.PropertyDelayTimeLevel, "3"},
	} {
		f.Add(s.k, s.v)
	}
	b := &Broker{opts: Options{Timer: configs.DefaultTimer()}}
	f.Fuzz(func(t *testing.T, k, v string) {
		var p message.Properties
		p.Set(k, v)
		m := &message.Message{Topic: "T", QueueID: 1}
		before := time.Now().UnixMilli()
		perr := b.applyTimer(m, &p)
		after := time.Now().UnixMilli()
		switch {
		case perr != nil:
			if perr.Code != protocol.ResMessageIllegal || m.Topic != "T" {
				t.Fatalf("%s=%q: refusal %v, topic %s", k, v, perr, m.Topic)
			}
		case m.Topic == timer.Topic:
			out, _ := p.Get(timer.PropertyOutMs)
			at, err := strconv.ParseInt(out, 10, 64)
			if err != nil || at <= before || at > after+b.opts.Timer.MaxDelaySec*1000 {
				t.Fatalf("%s=%q: parked with TIMER_OUT_MS %q (now %d)", k, v, out, before)
			}
		case m.Topic != "T":
			t.Fatalf("%s=%q: topic %s", k, v, m.Topic)
		}
	})
}
