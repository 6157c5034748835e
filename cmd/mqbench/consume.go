package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// consume: PULL_MESSAGE like a push consumer (Java DefaultMQPushConsumerImpl#pullMessage):
// one pull in flight per queue, the suspend (long-poll) flag set, the subscription taken
// from the HEART_BEAT sent first on each connection; every response body is walked
// record by record (codec/message) to count messages and body bytes.

// Pull sysFlag bits (Java: PullSysFlag).
const (
	pullFlagSuspend      = 0x2
	pullFlagSubscription = 0x4
)

type consumeOpts struct {
	loadOpts
	broker    string
	namesrv   string
	topic     string
	group     string
	queues    int
	maxMsgs   int
	offsets   string
	suspend   time.Duration
	subInPull bool
	heartbeat bool
}

func (o *consumeOpts) flags(fs *flag.FlagSet) {
	o.register(fs, 1, 1)
	fs.StringVar(&o.broker, "b", "", "broker address host:port")
	fs.StringVar(&o.namesrv, "n", "", "NameServer address: look the topic's route up instead of -b")
	fs.StringVar(&o.topic, "t", "BenchmarkTest", "topic")
	fs.StringVar(&o.group, "g", "benchmark_consumer", "consumer group")
	fs.IntVar(&o.queues, "q", 4, "queues to pull, ids 0..q-1 (with -n: at most this many per broker; 0 = all)")
	fs.IntVar(&o.maxMsgs, "batch", 32, "maxMsgNums of each pull")
	fs.StringVar(&o.offsets, "offset", "0", "start offset of every queue, or a comma-separated list, one per queue")
	fs.DurationVar(&o.suspend, "suspend", 15*time.Second, "suspendTimeoutMillis (long polling; 0 clears the suspend flag)")
	fs.BoolVar(&o.subInPull, "sub-in-pull", false, "send the subscription (\"*\") in each pull (FLAG_SUBSCRIPTION) instead of relying on the heartbeat")
	fs.BoolVar(&o.heartbeat, "heartbeat", true, "send a consumer HEART_BEAT with the subscription on each connection first")
}

func (o *consumeOpts) check() error {
	if err := o.loadOpts.check(); err != nil {
		return err
	}
	switch {
	case (o.broker == "") == (o.namesrv == ""):
		return fmt.Errorf("%w: give exactly one of -b and -n", errUsage)
	case o.queues < 0 || (o.broker != "" && o.queues < 1):
		return fmt.Errorf("%w: -q must be at least 1", errUsage)
	case o.maxMsgs < 1:
		return fmt.Errorf("%w: -batch must be at least 1", errUsage)
	}
	_, err := o.startOffsets(1)
	return err
}

// startOffsets returns the start offset of n queues from -offset.
func (o *consumeOpts) startOffsets(n int) ([]int64, error) {
	parts := strings.Split(o.offsets, ",")
	out := make([]int64, n)
	for i := range out {
		s := parts[0]
		if len(parts) > 1 {
			if i >= len(parts) {
				return nil, fmt.Errorf("%w: -offset lists %d offsets for %d queues", errUsage, len(parts), n)
			}
			s = parts[i]
		}
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%w: -offset %q", errUsage, o.offsets)
		}
		out[i] = v
	}
	return out, nil
}

func (o *consumeOpts) targets() ([]target, error) {
	if o.broker != "" {
		return []target{{addr: o.broker, queues: queueIDs(o.queues)}}, nil
	}
	route, err := lookupRoute(o.namesrv, o.topic, o.timeout)
	if err != nil {
		return nil, err
	}
	return readTargetsFromRoute(route, o.queues)
}

// readTargetsFromRoute picks every readable queue of every master in the route.
func readTargetsFromRoute(r *protocol.TopicRouteData, maxQueues int) ([]target, error) {
	var out []target
	for _, qd := range r.QueueDatas {
		if !protocol.IsReadable(qd.Perm) {
			continue
		}
		for _, bd := range r.BrokerDatas {
			if bd.BrokerName != qd.BrokerName || bd.MasterAddr() == "" {
				continue
			}
			n := int(qd.ReadQueueNums)
			if maxQueues > 0 && n > maxQueues {
				n = maxQueues
			}
			if n > 0 {
				out = append(out, target{addr: bd.MasterAddr(), bname: bd.BrokerName, queues: queueIDs(n)})
			}
		}
	}
	if len(out) == 0 {
		return nil, errNoReadableQueue
	}
	return out, nil
}

// errNoReadableQueue is returned when a topic's route has no readable queue on a master.
var errNoReadableQueue = errors.New("mqbench: route has no readable queue on a master")

// consumerHeartbeat is a Java-shaped HEART_BEAT body of a push consumer subscribed to
// topic with "*" (fastjson's alphabetical key order).
func consumerHeartbeat(clientID, group, topic string, subVersion int64) []byte {
	return []byte(`{"clientID":` + jsonStr(clientID) + `,"consumerDataSet":[{"consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET",` +
		`"consumeType":"CONSUME_PASSIVELY","groupName":` + jsonStr(group) + `,"messageModel":"CLUSTERING",` +
		`"subscriptionDataSet":[{"classFilterMode":false,"codeSet":[],"expressionType":"TAG","subString":"*","subVersion":` +
		strconv.FormatInt(subVersion, 10) + `,"tagsSet":[],"topic":` + jsonStr(topic) + `}],"unitMode":false}],` +
		`"producerDataSet":[{"groupName":"CLIENT_INNER_PRODUCER"}]}`)
}

// consumeLoad is the workload of one pulling connection: slot i pulls queues[i].
type consumeLoad struct {
	cmd     *protocol.Command
	h       protocol.PullMessageRequestHeader
	queues  []int32
	offsets []int64
}

func (l *consumeLoad) request(dst []byte, slot int, opaque int32) ([]byte, int, bool) {
	c := l.cmd
	c.Ext = c.Ext[:0]
	c.Opaque = opaque
	l.h.QueueID = l.queues[slot]
	l.h.QueueOffset = l.offsets[slot]
	l.h.Encode(&c.Ext)
	return codec.AppendFrame(dst, c), 0, true
}

func (l *consumeLoad) response(slot int, h respHeader, _ int, frame []byte) outcome {
	switch protocol.ResponseCode(h.code) {
	case protocol.ResSuccess, protocol.ResPullNotFound, protocol.ResPullRetryImmediately, protocol.ResPullOffsetMoved:
	default:
		return outcome{status: outcomeFail}
	}
	cmd, err := codec.DecodeOwned(frame)
	if err != nil {
		return outcome{status: outcomeFail, err: "undecodable response"}
	}
	var ph protocol.PullMessageResponseHeader
	if err := ph.Decode(cmd.Ext); err != nil {
		return outcome{status: outcomeFail, err: "pull response header incomplete"}
	}
	l.offsets[slot] = ph.NextBeginOffset
	if cmd.Code != int32(protocol.ResSuccess) {
		return outcome{status: outcomeEmpty}
	}
	var out outcome
	err = message.WalkRecords(cmd.Body, func(r *message.Record) bool {
		out.msgs++
		out.bytes += int64(len(r.Body))
		return true
	})
	if err != nil {
		return outcome{status: outcomeFail, err: "bad record in pull body"}
	}
	return out
}

// consumerHello sends the consumer HEART_BEAT on nc and waits for SUCCESS.
func consumerHello(nc net.Conn, st protocol.SerializeType, id, group, topic string, subVersion int64, timeout time.Duration) error {
	hb := protocol.NewRequest(protocol.CodeHeartBeat)
	hb.Serialize = st
	hb.Opaque = 1
	hb.Body = consumerHeartbeat(id, group, topic, subVersion)
	resp, err := call(nc, hb, timeout)
	if err != nil {
		return fmt.Errorf("mqbench: heartbeat: %w", err)
	}
	if resp.Code != int32(protocol.ResSuccess) {
		return fmt.Errorf("mqbench: heartbeat: %w", errResponse(resp))
	}
	return nil
}

func (o *consumeOpts) run(ctx context.Context) (*Result, error) {
	st, _ := o.serializeType()
	subVersion := time.Now().UnixMilli()
	probe := func() error {
		ts, err := o.targets()
		if err != nil {
			return err
		}
		nc, err := dial(ts[0].addr, 200*time.Millisecond)
		if err != nil {
			return err
		}
		defer nc.Close()
		return consumerHello(nc, st, clientID(0), o.group, o.topic, subVersion, time.Second)
	}
	return o.withServer(ctx, "consume", o.broker, probe, func(pid int) (*Result, error) {
		return o.load(ctx, st, subVersion, pid)
	})
}

func (o *consumeOpts) load(ctx context.Context, st protocol.SerializeType, subVersion int64, pid int) (*Result, error) {
	ts, err := o.targets()
	if err != nil {
		return nil, err
	}
	run := newRunState(o.total)
	var pipes []*pipe
	defer func() {
		for _, p := range pipes {
			p.nc.Close()
		}
	}()
	var addrs []string
	nq := 0
	for _, t := range ts {
		addrs = append(addrs, t.addr)
		offsets, err := o.startOffsets(len(t.queues))
		if err != nil {
			return nil, err
		}
		// Queues are dealt to connections round-robin; a connection has one pull in
		// flight per queue it holds.
		conns := min(o.conns, len(t.queues))
		for c := range conns {
			l := &consumeLoad{cmd: protocol.NewRequest(protocol.CodePullMessage)}
			l.cmd.Serialize = st
			for qi := c; qi < len(t.queues); qi += conns {
				l.queues = append(l.queues, t.queues[qi])
				l.offsets = append(l.offsets, offsets[qi])
			}
			nq += len(l.queues)
			l.h = protocol.PullMessageRequestHeader{ConsumerGroup: o.group, Topic: o.topic, MaxMsgNums: int32(o.maxMsgs),
				SuspendTimeoutMillis: o.suspend.Milliseconds(), SubVersion: subVersion, ExpressionType: "TAG", Bname: t.bname}
			if o.suspend > 0 {
				l.h.SysFlag |= pullFlagSuspend
			}
			if o.subInPull {
				l.h.SysFlag |= pullFlagSubscription
				l.h.Subscription = "*"
			}
			i := len(pipes)
			nc, err := dial(t.addr, o.timeout)
			if err != nil {
				return nil, fmt.Errorf("mqbench: connect %s: %w", t.addr, err)
			}
			if o.heartbeat {
				if err := consumerHello(nc, st, clientID(i), o.group, o.topic, subVersion, o.timeout); err != nil {
					nc.Close()
					return nil, fmt.Errorf("%w (broker %s)", err, t.addr)
				}
			}
			p := newPipe(i, nc, l, run, len(l.queues), true, false)
			if o.heartbeat {
				hb := protocol.NewRequest(protocol.CodeHeartBeat)
				hb.Serialize = st
				hb.Body = consumerHeartbeat(clientID(i), o.group, o.topic, subVersion)
				p.setHeartbeat(hb, o.hbEvery)
			}
			pipes = append(pipes, p)
		}
	}
	res := &Result{Mode: "consume", Target: strings.Join(addrs, ","), Settings: o.settings(map[string]string{
		"t": o.topic, "g": o.group, "queues": strconv.Itoa(nq), "batch": strconv.Itoa(o.maxMsgs),
		"offset": o.offsets, "suspend": o.suspend.String(),
	})}
	delete(res.Settings, "w") // one pull in flight per queue
	if o.namesrv != "" {
		res.Settings["n"] = o.namesrv
	}
	// Outstanding long polls at the end are abandoned, not waited for.
	runLoad(ctx, pipes, run, &o.loadOpts, 0, false, pid, res)
	return res, nil
}
