package broker

// Timer messages: the 5.x properties TIMER_DELIVER_MS (absolute epoch ms),
// TIMER_DELAY_SEC and TIMER_DELAY_MS (relative), served to unmodified 4.x clients; a
// Skyrocket extension (README "Timer messages"). Java 5.x: HookUtils#handleScheduleMessage,
// #checkIfTimerMessage, #transformTimerMessage; SendMessageProcessor's
// WHEEL_TIMER_MSG_ILLEGAL answer; AdminBrokerProcessor's timer runtime keys.
//
// - A send whose properties carry one of the three (and no DELAY > 0, no TIMER_OUT_MS,
//   not already in rmq_sys_wheel_timer; a plain or committed message) is parked in
//   rmq_sys_wheel_timer queue 0 with TIMER_OUT_MS (its deliver time), REAL_TOPIC and
//   REAL_QID, answered SEND_OK as soon as it is stored, and delivered by the timing wheel
//   (package store/timer) to its real topic and queue once due.
// - 5.x precedence: TIMER_DELAY_SEC, then TIMER_DELAY_MS, then TIMER_DELIVER_MS; a
//   DELAY level > 0 wins and the three are removed. A time not in the future is stored
//   as a plain message at once (5.x).
// - Refused with MESSAGE_ILLEGAL and 5.x's remark, nothing stored: a value that is not
//   a decimal long, a delay beyond timerMaxDelaySec, a TIMER_DEL_UNIQKEY with a past time
//   (5.x); and, stricter than 5.x (which takes them as "now"), negative values and a
//   relative delay whose deliver time overflows a long.
// - Cancel (5.x): a timer message with TIMER_DEL_UNIQKEY ("<real topic>+<UNIQ_KEY>") is
//   parked like any other and answered SEND_OK; the wheel takes it as a delete marker of
//   its slot (store/timer: never delivered; the message it names, due in the same slot, is
//   dropped). 5.3's RECALL_MESSAGE request, which writes such a marker, is not built.
// - Transactions: a half message is parked as a half (5.x); its commit goes through the
//   same rewrite (transaction.Config.ApplyDelay). Batches: the inner messages' timer
//   properties are ignored (5.x reads only the batch's own properties); timer properties
//   on the batch header are refused (not built). Retries (send-back) carry DELAY, which
//   wins.
// - Deliberately different from 5.x: TIMER_OUT_MS is the deliver time itself, and the
//   wheel delivers each message at that time (its slot only groups it); 5.x stores the
//   time rounded down to the precision and reads a slot once the clock has passed its
//   end, so it delivers up to one precision late (never early). timerWheelEnable=false
//   (or timerEnable=false) ignores the properties as a 4.x broker does, where 5.x
//   refuses the send.
// - A slave does not deliver (the wheel runs on a master only, as the schedule service).

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/store/timer"
)

// startTimer opens the timing wheel and, on a master, starts delivering.
func (b *Broker) startTimer() error {
	if !b.opts.Timer.Enable || b.opts.Role == RoleSlave {
		return nil
	}
	s := timer.New(timer.Config{
		Store:       b.store,
		Dir:         filepath.Join(b.opts.Store.RootDir, "timer"),
		PrecisionMs: b.opts.Timer.PrecisionMs,
		MaxDelaySec: b.opts.Timer.MaxDelaySec,
		SegmentSize: b.opts.Timer.SegmentSize,
		Log:         b.log.With().Str("service", "timer").Logger(),
		// A delivery counts as a put to its real topic, as a delay level's does.
		OnDeliver: b.stats.IncTopicPut,
	})
	if err := s.Start(); err != nil {
		return err
	}
	b.timer = s
	return nil
}

func (b *Broker) stopTimer() {
	if b.timer == nil {
		return
	}
	if err := b.timer.Shutdown(); err != nil {
		b.log.Error().Err(err).Msg("timer shutdown")
	}
}

// timerIllegal is 5.x's WHEEL_TIMER_MSG_ILLEGAL answer.
func (b *Broker) timerIllegal() *protocol.Error {
	return &protocol.Error{Code: protocol.ResMessageIllegal, Remark: fmt.Sprintf("timer message illegal, the delay time should not be bigger than the max delay %dms; or if set del msg, the delay time should be bigger than the current time",
		b.opts.Timer.MaxDelaySec*1000)}
}

// applyTimer is 5.x's timer rewrite (HookUtils#handleScheduleMessage's timer half): it
// parks a timer message in rmq_sys_wheel_timer, removes the timer properties when a
// DELAY level wins, and returns the refusal for a bad value. props are the properties
// to store; m.Topic and m.QueueID change when the message is parked.
func (b *Broker) applyTimer(m *message.Message, props *message.Properties) *protocol.Error {
	if !b.opts.Timer.Enable {
		return nil
	}
	tt := message.TransactionType(m.SysFlag)
	if tt != message.TransactionNotType && tt != message.TransactionCommit {
		return nil
	}
	if m.Topic == timer.Topic {
		return nil
	}
	if v, ok := props.Get(message.PropertyDelayTimeLevel); ok {
		if l, err := strconv.Atoi(v); err == nil && l > 0 {
			props.Delete(timer.PropertyDeliverMs)
			props.Delete(timer.PropertyDelaySec)
			props.Delete(timer.PropertyDelayMs)
			return nil
		}
	}
	if _, ok := props.Get(timer.PropertyOutMs); ok {
		return nil
	}
	now := time.Now().UnixMilli()
	var deliverMs int64
	if v, ok := props.Get(timer.PropertyDelaySec); ok {
		sec, err := strconv.ParseInt(v, 10, 64)
		if err != nil || sec < 0 || sec > (math.MaxInt64-now)/1000 {
			return b.timerIllegal()
		}
		deliverMs = now + sec*1000
	} else if v, ok := props.Get(timer.PropertyDelayMs); ok {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 || ms > math.MaxInt64-now {
			return b.timerIllegal()
		}
		deliverMs = now + ms
	} else if v, ok := props.Get(timer.PropertyDeliverMs); ok {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return b.timerIllegal()
		}
		deliverMs = ms
	} else {
		return nil
	}
	if deliverMs <= now {
		if _, ok := props.Get(timer.PropertyDelUniqKey); ok {
			return b.timerIllegal()
		}
		return nil // due already: stored as a plain message (5.x)
	}
	if deliverMs-now > b.opts.Timer.MaxDelaySec*1000 {
		return b.timerIllegal()
	}
	props.Set(timer.PropertyOutMs, strconv.FormatInt(deliverMs, 10))
	props.Set(message.PropertyRealTopic, m.Topic)
	props.Set(message.PropertyRealQueueID, strconv.Itoa(int(m.QueueID)))
	m.Topic = timer.Topic
	m.QueueID = 0
	return nil
}

// hasTimerProperty reports whether props carry one of the three timer properties.
func hasTimerProperty(props *message.Properties) bool {
	for _, k := range []string{timer.PropertyDeliverMs, timer.PropertyDelaySec, timer.PropertyDelayMs} {
		if _, ok := props.Get(k); ok {
			return true
		}
	}
	return false
}

// applySchedule is the commit path's rewrite (transaction.Config.ApplyDelay): the timer,
// then the delay level. A bad timer value at commit leaves the message plain, logged:
// the half was accepted and the commit cannot be refused half-way.
func (b *Broker) applySchedule(m *message.Message, props *message.Properties) {
	if err := b.applyTimer(m, props); err != nil {
		b.log.Warn().Str("topic", m.Topic).Str("remark", err.Remark).Msg("committed timer message with a bad timer value stored as plain")
	}
	b.applyDelay(m, props)
}

// timerRunningStats adds 5.x's timer runtime keys (AdminBrokerProcessor#
// prepareRuntimeInfo): timerReadBehind (s the delivery lags the clock), timerOffsetBehind
// (parked messages not yet in the wheel), timerCongestNum (pending), timerEnqueueTps,
// timerDequeueTps; and Skyrocket's timerReadBehindMs and timerDeliverLateMaxMs.
func (b *Broker) timerRunningStats(m map[string]string) {
	var st timer.Stats
	if b.timer != nil {
		st = b.timer.Stats()
	}
	m["timerReadBehind"] = strconv.FormatInt(st.DequeueBehindMs/1000, 10)
	m["timerReadBehindMs"] = strconv.FormatInt(st.DequeueBehindMs, 10)
	m["timerOffsetBehind"] = strconv.FormatInt(st.EnqueueBehind, 10)
	m["timerCongestNum"] = strconv.FormatInt(st.Pending, 10)
	m["timerEnqueueTps"] = strconv.FormatFloat(st.EnqueueTPS, 'f', 1, 32)
	m["timerDequeueTps"] = strconv.FormatFloat(st.DequeueTPS, 'f', 1, 32)
	m["timerDeliverLateMaxMs"] = strconv.FormatInt(st.LateMaxMs, 10)
}
