package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// produce -await-delivery: after the load, the topic's queues are read with PULL_MESSAGE
// from the offsets they had before it, until every message answered SUCCESS is found in
// the topic or the wait ends. For DELAY sends that is the schedule service delivering
// them once due; for transactions, the committed messages. Lateness is taken from the
// delivered records' own timestamps (one clock: the broker's host is this host):
//
//	lateness = storeTimestamp of the record in the topic − due
//	due      = bornTimestamp + the level's delay   (DELAY sends)
//	         = bornTimestamp                       (transactions and plain sends)
//
// so it does not depend on how fast this reader polls. Only the run's own messages count:
// their UNIQ_KEY carries this process's IP and pid and a connection index (the readiness
// probe's index, probeInstance, is left out: its message was sent before the offsets
// were taken, but may reach the ConsumeQueue after). Anything else is reported as foreign.

// defaultDelayLevels is the broker default messageDelayLevel (Java: MessageStoreConfig).
const defaultDelayLevels = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"

// errDelayLevel is returned when -delay names no level of -delay-levels.
var errDelayLevel = errors.New("mqbench: no such delay level")

// delayOf returns the delay of level (1-based) in the messageDelayLevel syntax ("1s 5s
// 10s 30s 1m ... 2h"; units s, m, h, d).
func delayOf(levels string, level int) (time.Duration, error) {
	f := strings.Fields(levels)
	if level < 1 || level > len(f) {
		return 0, fmt.Errorf("%w: level %d of %d", errDelayLevel, level, len(f))
	}
	v := f[level-1]
	if len(v) < 2 {
		return 0, fmt.Errorf("%w: %q", errDelayLevel, v)
	}
	n, err := strconv.ParseInt(v[:len(v)-1], 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: %q", errDelayLevel, v)
	}
	unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}[v[len(v)-1]]
	if unit == 0 {
		return 0, fmt.Errorf("%w: unit of %q", errDelayLevel, v)
	}
	return time.Duration(n) * unit, nil
}

// DeliveryReport is what -await-delivery found in the topic after the run.
type DeliveryReport struct {
	Expected    int64    `json:"expected"`          // messages answered SUCCESS in the run
	Delivered   int64    `json:"delivered"`         // found in the topic
	Foreign     int64    `json:"foreign,omitempty"` // other messages found in the same queues
	Complete    bool     `json:"complete"`
	WaitSeconds float64  `json:"wait_seconds"`          // from the end of the load until the last was found
	Due         string   `json:"due"`                   // what lateness is measured from
	Lateness    *Latency `json:"lateness_ms,omitempty"` // an early record counts as 0 here
	// Early counts the records stored before their due time (Java 5.x's timer wheel rounds
	// the due time down to its precision); EarliestMs is the most any was early by.
	Early      int64   `json:"early,omitempty"`
	EarliestMs float64 `json:"earliest_ms,omitempty"`
	// The store timestamps of the delivered records span SpanSeconds; RatePerSec is
	// Delivered over that span: how fast the messages reached the topic.
	SpanSeconds float64 `json:"store_span_seconds"`
	RatePerSec  float64 `json:"store_rate_per_sec"`
}

// deliveryTarget is one broker's queues and their offsets before the run.
type deliveryTarget struct {
	addr, bname string
	queues      []int32
	start       []int64
}

// maxOffsets asks addr for the max offset of each queue (GET_MAX_OFFSET, 30). A queue
// the broker does not know yet answers 0 or an error; both count as offset 0.
func maxOffsets(addr, topic, bname string, queues []int32, timeout time.Duration) ([]int64, error) {
	nc, err := dial(addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("mqbench: connect %s: %w", addr, err)
	}
	defer nc.Close()
	out := make([]int64, len(queues))
	for i, q := range queues {
		req := protocol.NewRequest(protocol.CodeGetMaxOffset)
		req.Opaque = int32(i + 1)
		h := protocol.GetMaxOffsetRequestHeader{Topic: topic, QueueID: q, Bname: bname}
		h.Encode(&req.Ext)
		resp, err := call(nc, req, timeout)
		if err != nil {
			return nil, fmt.Errorf("mqbench: max offset of %s queue %d: %w", topic, q, err)
		}
		var rh protocol.GetMaxOffsetResponseHeader
		if resp.Code == int32(protocol.ResSuccess) && rh.Decode(resp.Ext) == nil {
			out[i] = rh.Offset
		}
	}
	return out, nil
}

// awaitDelivery pulls the targets' queues from their start offsets until expected
// messages were found or wait passed. due gives a record's due time in ms.
func awaitDelivery(ctx context.Context, topic string, ts []deliveryTarget, expected int64, wait time.Duration,
	dueDesc string, due func(r *message.Record) int64, ours func(r *message.Record) bool) (*DeliveryReport, error) {
	t0 := time.Now()
	deadline := t0.Add(wait)
	rep := &DeliveryReport{Expected: expected, Due: dueDesc}
	hist := newHistogram()
	var firstStore, lastStore int64
	type queueCursor struct {
		nc     net.Conn
		bname  string
		queue  int32
		offset int64
	}
	var cursors []*queueCursor
	for _, t := range ts {
		nc, err := dial(t.addr, 5*time.Second)
		if err != nil {
			return nil, fmt.Errorf("mqbench: connect %s: %w", t.addr, err)
		}
		defer nc.Close()
		for i, q := range t.queues {
			cursors = append(cursors, &queueCursor{nc: nc, bname: t.bname, queue: q, offset: t.start[i]})
		}
	}
	subVersion := time.Now().UnixMilli()
	opaque := int32(0)
	for rep.Delivered < expected && time.Now().Before(deadline) {
		found := false
		for _, c := range cursors {
			opaque++
			req := protocol.NewRequest(protocol.CodePullMessage)
			req.Opaque = opaque
			h := protocol.PullMessageRequestHeader{ConsumerGroup: "mqbench_delivery", Topic: topic, QueueID: c.queue,
				QueueOffset: c.offset, MaxMsgNums: 32, SysFlag: pullFlagSubscription, Subscription: "*",
				SubVersion: subVersion, ExpressionType: "TAG", Bname: c.bname}
			h.Encode(&req.Ext)
			resp, err := call(c.nc, req, 5*time.Second)
			if err != nil {
				return nil, fmt.Errorf("mqbench: pull %s queue %d: %w", topic, c.queue, err)
			}
			switch protocol.ResponseCode(resp.Code) {
			case protocol.ResSuccess, protocol.ResPullNotFound, protocol.ResPullRetryImmediately, protocol.ResPullOffsetMoved:
			default:
				return nil, fmt.Errorf("mqbench: pull %s queue %d: %w", topic, c.queue, errResponse(resp))
			}
			var ph protocol.PullMessageResponseHeader
			if err := ph.Decode(resp.Ext); err != nil {
				return nil, fmt.Errorf("mqbench: pull %s queue %d: %w", topic, c.queue, err)
			}
			if ph.NextBeginOffset > c.offset {
				c.offset = ph.NextBeginOffset
			}
			if resp.Code != int32(protocol.ResSuccess) {
				continue
			}
			err = message.WalkRecords(resp.Body, func(r *message.Record) bool {
				found = true
				if !ours(r) {
					rep.Foreign++
					return true
				}
				rep.Delivered++
				late := r.StoreTimestamp - due(r)
				if late < 0 {
					rep.Early++
					rep.EarliestMs = max(rep.EarliestMs, float64(-late))
				}
				hist.record(late * int64(time.Millisecond))
				if firstStore == 0 || r.StoreTimestamp < firstStore {
					firstStore = r.StoreTimestamp
				}
				lastStore = max(lastStore, r.StoreTimestamp)
				return true
			})
			if err != nil {
				return nil, fmt.Errorf("mqbench: pull %s queue %d: bad record: %w", topic, c.queue, err)
			}
		}
		if found {
			rep.WaitSeconds = time.Since(t0).Seconds()
			continue
		}
		select {
		case <-ctx.Done():
			return rep, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	rep.Complete = rep.Delivered >= expected
	rep.Lateness = latencyOf(hist)
	if lastStore > firstStore {
		rep.SpanSeconds = float64(lastStore-firstStore) / 1e3
		rep.RatePerSec = float64(rep.Delivered) / rep.SpanSeconds
	}
	return rep, nil
}

// runMessages returns whether a record was sent by this process's load connections
// (UNIQ_KEY = IP ‖ pid ‖ instance ‖ time ‖ counter, message.go), not by its probe.
func runMessages() func(r *message.Record) bool {
	ipPid := string(newUniqIDGen([4]byte{127, 0, 0, 1}, 0).buf[:12])
	probe := string(newUniqIDGen([4]byte{127, 0, 0, 1}, probeInstance).buf[12:20])
	return func(r *message.Record) bool {
		uk, ok := r.Property(message.PropertyUniqClientMessageIDKeyIdx)
		return ok && len(uk) == 32 && string(uk[:12]) == ipPid && string(uk[12:20]) != probe
	}
}
