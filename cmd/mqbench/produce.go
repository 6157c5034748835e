package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// produce: send messages to a broker over pipelined connections and report messages/s,
// MiB/s (message bodies), latency percentiles and errors by response code.

type produceOpts struct {
	loadOpts
	broker    string
	namesrv   string
	topic     string
	group     string
	size      int
	queues    int
	kind      string
	batch     int
	code      int
	tags      string
	keys      bool
	bname     string
	heartbeat bool
}

func (o *produceOpts) flags(fs *flag.FlagSet) {
	o.register(fs, 4, 32)
	fs.StringVar(&o.broker, "b", "", "broker address host:port")
	fs.StringVar(&o.namesrv, "n", "", "NameServer address: look the topic's route up with GET_ROUTEINFO_BY_TOPIC instead of -b")
	fs.StringVar(&o.topic, "t", "BenchmarkTest", "topic")
	fs.StringVar(&o.group, "g", "benchmark_producer", "producer group")
	fs.IntVar(&o.size, "s", 1024, "message body size in bytes")
	fs.IntVar(&o.queues, "q", 4, "queues to send to, round-robin (with -n: at most this many per broker; 0 = all)")
	fs.StringVar(&o.kind, "kind", "async", "sync | async | oneway | batch")
	fs.IntVar(&o.batch, "batch", 16, "messages per SEND_BATCH_MESSAGE (-kind batch)")
	fs.IntVar(&o.code, "code", 310, "request code of single sends: 10 (SEND_MESSAGE, V1 header) or 310 (SEND_MESSAGE_V2)")
	fs.StringVar(&o.tags, "tags", "TagA", "TAGS property of every message (empty: none)")
	fs.BoolVar(&o.keys, "keys", false, "give every message a unique KEYS property (the broker indexes it)")
	fs.StringVar(&o.bname, "bname", "", "broker name sent as bname (with -n: taken from the route)")
	fs.BoolVar(&o.heartbeat, "heartbeat", true, "send a producer HEART_BEAT on each connection first, as clients do")
}

func (o *produceOpts) check() error {
	if err := o.loadOpts.check(); err != nil {
		return err
	}
	switch {
	case (o.broker == "") == (o.namesrv == ""):
		return fmt.Errorf("%w: give exactly one of -b and -n", errUsage)
	case o.size < 0 || o.size > 4<<20:
		return fmt.Errorf("%w: -s %d out of 0..4MiB", errUsage, o.size)
	case o.topic == "":
		return fmt.Errorf("%w: -t is empty", errUsage)
	case o.code != 10 && o.code != 310:
		return fmt.Errorf("%w: -code %d (want 10 or 310)", errUsage, o.code)
	case o.kind == "batch" && o.batch < 1:
		return fmt.Errorf("%w: -batch must be at least 1", errUsage)
	case o.queues < 0 || (o.broker != "" && o.queues < 1):
		return fmt.Errorf("%w: -q must be at least 1", errUsage)
	}
	switch o.kind {
	case "sync", "async", "oneway", "batch":
	default:
		return fmt.Errorf("%w: -kind %q (want sync, async, oneway or batch)", errUsage, o.kind)
	}
	return nil
}

func (o *produceOpts) spec() *sendSpec {
	st, _ := o.serializeType()
	s := &sendSpec{code: protocol.RequestCode(o.code), serialize: st, group: o.group, topic: o.topic, bname: o.bname,
		tags: o.tags, keys: o.keys, batch: 1, body: makeBody(o.size)}
	if o.kind == "batch" {
		s.code, s.batch = protocol.CodeSendBatchMessage, o.batch
	}
	return s
}

// target is one broker and the queue ids sent to on it.
type target struct {
	addr, bname string
	queues      []int32
}

func (o *produceOpts) targets() ([]target, error) {
	if o.broker != "" {
		return []target{{addr: o.broker, bname: o.bname, queues: queueIDs(o.queues)}}, nil
	}
	route, err := lookupRoute(o.namesrv, o.topic, o.timeout)
	if err != nil {
		return nil, err
	}
	return targetsFromRoute(route, o.queues)
}

func queueIDs(n int) []int32 {
	q := make([]int32, n)
	for i := range q {
		q[i] = int32(i)
	}
	return q
}

// errNoWritableQueue is returned when a topic's route has no writable queue on a master.
var errNoWritableQueue = errors.New("mqbench: route has no writable queue on a master")

// targetsFromRoute picks every writable queue of every master in the route (Java:
// MQClientInstance#topicRouteData2TopicPublishInfo), at most maxQueues per broker.
func targetsFromRoute(r *protocol.TopicRouteData, maxQueues int) ([]target, error) {
	var out []target
	for _, qd := range r.QueueDatas {
		if !protocol.IsWriteable(qd.Perm) {
			continue
		}
		for _, bd := range r.BrokerDatas {
			if bd.BrokerName != qd.BrokerName || bd.MasterAddr() == "" {
				continue
			}
			n := int(qd.WriteQueueNums)
			if maxQueues > 0 && n > maxQueues {
				n = maxQueues
			}
			if n > 0 {
				out = append(out, target{addr: bd.MasterAddr(), bname: bd.BrokerName, queues: queueIDs(n)})
			}
		}
	}
	if len(out) == 0 {
		return nil, errNoWritableQueue
	}
	return out, nil
}

// produceLoad is the workload of one producing connection.
type produceLoad struct {
	b      *sendBuilder
	run    *runState
	queues []int32
	next   int
	oneway bool
	n      int
	size   int64
}

func (l *produceLoad) request(dst []byte, _ int, opaque int32) ([]byte, int, bool) {
	if !l.run.reserve(l.n) {
		return dst, 0, false
	}
	q := l.queues[l.next%len(l.queues)]
	l.next++
	return l.b.append(dst, opaque, q, l.oneway), l.n, true
}

func (l *produceLoad) response(_ int, h respHeader, n int, _ []byte) outcome {
	if h.code == int32(protocol.ResSuccess) {
		return outcome{msgs: int64(n), bytes: int64(n) * l.size}
	}
	return outcome{status: outcomeFail}
}

// fence is one answered send: the server has processed every oneway send before it.
func (l *produceLoad) fence(dst []byte, opaque int32) []byte {
	return l.b.append(dst, opaque, l.queues[0], false)
}

// producerHeartbeat is a Java-shaped HEART_BEAT body of a producer (fastjson key order).
func producerHeartbeat(clientID, group string) []byte {
	return []byte(`{"clientID":` + jsonStr(clientID) + `,"consumerDataSet":[],"producerDataSet":[{"groupName":` +
		jsonStr(group) + `},{"groupName":"CLIENT_INNER_PRODUCER"}]}`)
}

func clientID(i int) string {
	return "127.0.0.1@mqbench-" + strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(i)
}

// probeSend dials addr and sends one message; nil when it is accepted (SUCCESS).
func probeSend(addr string, spec *sendSpec) error {
	nc, err := dial(addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer nc.Close()
	one := *spec
	if one.code == protocol.CodeSendBatchMessage {
		one.code = protocol.CodeSendMessageV2
	}
	b := newSendBuilder(&one, 0xFFFF)
	frame := b.append(nil, 1, 0, false)
	cmd, err := callFrame(nc, frame, 1, time.Second)
	if err != nil {
		return err
	}
	if cmd.Code != int32(protocol.ResSuccess) {
		return errResponse(cmd)
	}
	return nil
}

func (o *produceOpts) run(ctx context.Context) (*Result, error) {
	spec := o.spec()
	probe := func() error {
		ts, err := o.targets()
		if err != nil {
			return err
		}
		s := *spec
		s.bname = ts[0].bname
		return probeSend(ts[0].addr, &s)
	}
	return o.withServer(ctx, "produce", o.broker, probe, func(pid int) (*Result, error) {
		return o.load(ctx, spec, pid)
	})
}

func (o *produceOpts) load(ctx context.Context, spec *sendSpec, pid int) (*Result, error) {
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
	for _, t := range ts {
		addrs = append(addrs, t.addr)
		s := *spec
		if t.bname != "" {
			s.bname = t.bname
		}
		for range o.conns {
			i := len(pipes)
			nc, err := dial(t.addr, o.timeout)
			if err != nil {
				return nil, fmt.Errorf("mqbench: connect %s: %w", t.addr, err)
			}
			if o.heartbeat {
				hb := protocol.NewRequest(protocol.CodeHeartBeat)
				hb.Serialize = spec.serialize
				hb.Opaque = 1
				hb.Body = producerHeartbeat(clientID(i), o.group)
				resp, err := call(nc, hb, o.timeout)
				if err != nil {
					nc.Close()
					return nil, fmt.Errorf("mqbench: heartbeat to %s: %w", t.addr, err)
				}
				if resp.Code != int32(protocol.ResSuccess) {
					nc.Close()
					return nil, fmt.Errorf("mqbench: heartbeat to %s: %w", t.addr, errResponse(resp))
				}
			}
			l := &produceLoad{b: newSendBuilder(&s, uint32(i)), run: run, queues: t.queues, next: i,
				oneway: o.kind == "oneway", n: s.messagesPerRequest(), size: int64(o.size)}
			pipes = append(pipes, newPipe(i, nc, l, run, o.window, o.kind != "sync", o.kind == "oneway"))
		}
	}
	res := &Result{Mode: "produce", Target: strings.Join(addrs, ","), Settings: o.settings(map[string]string{
		"kind": o.kind, "s": strconv.Itoa(o.size), "t": o.topic, "queues": strconv.Itoa(len(ts[0].queues)),
	})}
	if o.namesrv != "" {
		res.Settings["n"] = o.namesrv
	}
	if o.kind == "batch" {
		res.Settings["batch"] = strconv.Itoa(o.batch)
	} else {
		res.Settings["code"] = strconv.Itoa(int(spec.code))
	}
	runLoad(ctx, pipes, run, &o.loadOpts, o.timeout, o.kind == "oneway", pid, res)
	// Oneway sends are counted when written; every kind's bytes are message bodies.
	res.Bytes = res.Messages * int64(o.size)
	if res.Seconds > 0 {
		res.MiBPerSec = float64(res.Bytes) / res.Seconds / (1 << 20)
	}
	if o.kind == "oneway" {
		res.Notes = append(res.Notes, "oneway: messages counted when written; the run ends when a final answered send (the fence) returns on every connection")
	}
	return res, nil
}

// jsonStr is s as a JSON string literal, escaped as fastjson does.
func jsonStr(s string) string { return string(compat.AppendJSONString(nil, s)) }
