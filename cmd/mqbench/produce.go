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

	"github.com/skyrocket-mq/skyrocket/codec/message"
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
	rate      float64 // requests/s over all connections, open loop; 0 = closed loop
	batch     int
	code      int
	tags      string
	keys      bool
	bname     string
	heartbeat bool
	ak, sk    string

	delay         int
	delayLevels   string
	timerDelay    time.Duration
	timerSpread   time.Duration
	createTopic   bool
	awaitDelivery time.Duration
}

func (o *produceOpts) flags(fs *flag.FlagSet) {
	o.register(fs, 4, 32)
	fs.StringVar(&o.broker, "b", "", "broker address host:port")
	fs.StringVar(&o.namesrv, "n", "", "NameServer address: look the topic's route up with GET_ROUTEINFO_BY_TOPIC instead of -b")
	fs.StringVar(&o.topic, "t", "BenchmarkTest", "topic")
	fs.StringVar(&o.group, "g", "benchmark_producer", "producer group")
	fs.IntVar(&o.size, "s", 1024, "message body size in bytes")
	fs.IntVar(&o.queues, "q", 4, "queues to send to, round-robin (with -n: at most this many per broker; 0 = all)")
	fs.StringVar(&o.kind, "kind", "async", "sync | async | oneway | batch | tx (half message, then END_TRANSACTION commit)")
	fs.IntVar(&o.batch, "batch", 16, "messages per SEND_BATCH_MESSAGE (-kind batch)")
	fs.IntVar(&o.code, "code", 310, "request code of single sends: 10 (SEND_MESSAGE, V1 header) or 310 (SEND_MESSAGE_V2)")
	fs.StringVar(&o.tags, "tags", "TagA", "TAGS property of every message (empty: none)")
	fs.BoolVar(&o.keys, "keys", false, "give every message a unique KEYS property (the broker indexes it)")
	fs.StringVar(&o.bname, "bname", "", "broker name sent as bname (with -n: taken from the route)")
	fs.BoolVar(&o.heartbeat, "heartbeat", true, "send a producer HEART_BEAT on each connection first, as clients do")
	fs.StringVar(&o.ak, "ak", "", "ACL access key: sign every request to the broker (heartbeat, sends, -create-topic) as a Java 4.9.4+ client does; needs -sk")
	fs.StringVar(&o.sk, "sk", "", "ACL secret key (-ak)")
	fs.IntVar(&o.delay, "delay", 0, "DELAY level of every message (1 = the first of -delay-levels); 0: none")
	fs.DurationVar(&o.timerDelay, "timer", 0, "timer messages (Skyrocket extension, 5.x property): TIMER_DELIVER_MS = send time + this (+ -timer-spread); 0: none")
	fs.DurationVar(&o.timerSpread, "timer-spread", 0, "spread -timer messages' due times over this much more, evenly")
	fs.StringVar(&o.delayLevels, "delay-levels", defaultDelayLevels, "the broker's messageDelayLevel, for the due time of -delay messages")
	fs.BoolVar(&o.createTopic, "create-topic", false, "create (or update) the topic with -q read/write queues first (UPDATE_AND_CREATE_TOPIC, as mqadmin updateTopic); needs -b")
	fs.Float64Var(&o.rate, "rate", 0, "open loop: send this many requests per second in all, on a fixed schedule, latency from each request's due time (pace.go); -w bounds the requests in flight per connection. 0: closed loop (refill the window as answers come)")
	fs.DurationVar(&o.awaitDelivery, "await-delivery", 0, "after the run, read the topic until every acknowledged message is in it, for at most this long (-delay, -kind tx); needs -warmup 0")
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
	case o.createTopic && o.broker == "":
		return fmt.Errorf("%w: -create-topic needs -b", errUsage)
	case o.awaitDelivery > 0 && o.warmup > 0:
		// Messages sent during the warm-up would be delivered too and cannot be told apart.
		return fmt.Errorf("%w: -await-delivery counts every message sent: give -warmup 0", errUsage)
	case o.awaitDelivery > 0 && (o.kind == "oneway" || o.kind == "batch"):
		return fmt.Errorf("%w: -await-delivery needs answered single sends (-kind sync, async or tx)", errUsage)
	case (o.ak == "") != (o.sk == ""):
		return fmt.Errorf("%w: give both -ak and -sk, or neither", errUsage)
	case o.ak != "" && o.kind == "tx":
		return fmt.Errorf("%w: -ak/-sk do not sign END_TRANSACTION: use -kind sync, async, oneway or batch", errUsage)
	case o.delay < 0:
		return fmt.Errorf("%w: -delay %d", errUsage, o.delay)
	case o.rate < 0 || (o.rate > 0 && (o.kind == "oneway" || o.kind == "tx")):
		return fmt.Errorf("%w: -rate %g (a positive rate of answered sends: -kind sync, async or batch)", errUsage, o.rate)
	case o.timerDelay < 0 || o.timerSpread < 0 || (o.timerSpread > 0 && o.timerDelay == 0):
		return fmt.Errorf("%w: -timer %v -timer-spread %v (a spread needs -timer > 0)", errUsage, o.timerDelay, o.timerSpread)
	case o.timerDelay > 0 && o.delay > 0:
		return fmt.Errorf("%w: -timer and -delay together (DELAY would win)", errUsage)
	}
	switch o.kind {
	case "sync", "async", "oneway", "batch", "tx":
	default:
		return fmt.Errorf("%w: -kind %q (want sync, async, oneway, batch or tx)", errUsage, o.kind)
	}
	if o.delay > 0 {
		if _, err := delayOf(o.delayLevels, o.delay); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	return nil
}

func (o *produceOpts) spec() *sendSpec {
	st, _ := o.serializeType()
	s := &sendSpec{creds: credentials{o.ak, o.sk}, code: protocol.RequestCode(o.code), serialize: st, group: o.group, topic: o.topic, bname: o.bname,
		tags: o.tags, keys: o.keys, batch: 1, body: makeBody(o.size), delayLevel: o.delay, tx: o.kind == "tx",
		timerDelay: o.timerDelay, timerSpread: o.timerSpread}
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

// probeInstance is the UNIQ_KEY instance of probe messages (connections count from 0).
const probeInstance = 0xFFFF

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
	// A plain message: a delayed or half probe would reach the topic later (or never)
	// and be counted by -await-delivery.
	one.delayLevel, one.tx, one.timerDelay = 0, false, 0
	b := newSendBuilder(&one, probeInstance)
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
	if o.createTopic {
		if err := createTopic(o.broker, o.topic, o.bname, o.queues, o.timeout, credentials{o.ak, o.sk}); err != nil {
			return nil, err
		}
	}
	ts, err := o.targets()
	if err != nil {
		return nil, err
	}
	var dts []deliveryTarget
	if o.awaitDelivery > 0 {
		for _, t := range ts {
			start, err := maxOffsets(t.addr, o.topic, t.bname, t.queues, o.timeout)
			if err != nil {
				return nil, err
			}
			dts = append(dts, deliveryTarget{addr: t.addr, bname: t.bname, queues: t.queues, start: start})
		}
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
			var hb *protocol.Command
			if o.heartbeat {
				hb = protocol.NewRequest(protocol.CodeHeartBeat)
				hb.Serialize = spec.serialize
				hb.Opaque = 1
				hb.Body = producerHeartbeat(clientID(i), o.group)
				spec.creds.sign(hb)
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
			var l workload = &produceLoad{b: newSendBuilder(&s, uint32(i)), run: run, queues: t.queues, next: i,
				oneway: o.kind == "oneway", n: s.messagesPerRequest(), size: int64(o.size)}
			if s.tx {
				l = newTxLoad(&s, uint32(i), run, t.queues, i, o.window, int64(o.size))
			}
			p := newPipe(i, nc, l, run, o.window, o.kind != "sync", o.kind == "oneway")
			if hb != nil {
				p.setHeartbeat(hb, o.hbEvery)
			}
			pipes = append(pipes, p)
		}
	}
	if o.rate > 0 {
		// Each connection sends 1/len(pipes) of the rate, the schedules staggered evenly.
		per := time.Duration(float64(len(pipes)) * float64(time.Second) / o.rate)
		for i, p := range pipes {
			p.pace, p.paceOffset = per, per*time.Duration(i)/time.Duration(len(pipes))
		}
		reservePacerPs(len(pipes))
	}
	res := &Result{Mode: "produce", Target: strings.Join(addrs, ","), Settings: o.settings(map[string]string{
		"kind": o.kind, "s": strconv.Itoa(o.size), "t": o.topic, "queues": strconv.Itoa(len(ts[0].queues)),
	})}
	if o.rate > 0 {
		res.Settings["rate"] = strconv.FormatFloat(o.rate, 'f', -1, 64)
	}
	if o.namesrv != "" {
		res.Settings["n"] = o.namesrv
	}
	if o.kind == "batch" {
		res.Settings["batch"] = strconv.Itoa(o.batch)
	} else {
		res.Settings["code"] = strconv.Itoa(int(spec.code))
	}
	if o.delay > 0 {
		res.Settings["delay"] = strconv.Itoa(o.delay)
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
	if o.kind == "tx" {
		res.Notes = append(res.Notes, "tx: a message is a committed transaction (half message answered, then END_TRANSACTION answered SUCCESS); latency from the half message's write to the commit's answer; requests count both")
	}
	if o.awaitDelivery > 0 {
		desc, due, err := o.dueFunc()
		if err != nil {
			return nil, err
		}
		d, err := awaitDelivery(ctx, o.topic, dts, res.Messages, o.awaitDelivery, desc, due, runMessages())
		if err != nil {
			return nil, err
		}
		res.Delivery = d
	}
	return res, nil
}

// dueFunc says when a message of this run is due in its topic (see delivery.go).
func (o *produceOpts) dueFunc() (string, func(r *message.Record) int64, error) {
	if o.timerDelay > 0 {
		return "TIMER_DELIVER_MS", func(r *message.Record) int64 {
			v, _ := r.Property(propertyTimerDeliverMs)
			ms, _ := strconv.ParseInt(string(v), 10, 64)
			return ms
		}, nil
	}
	if o.delay > 0 {
		d, err := delayOf(o.delayLevels, o.delay)
		if err != nil {
			return "", nil, err
		}
		ms := d.Milliseconds()
		return "bornTimestamp + " + d.String() + " (DELAY " + strconv.Itoa(o.delay) + ")",
			func(r *message.Record) int64 { return r.BornTimestamp + ms }, nil
	}
	return "bornTimestamp", func(r *message.Record) int64 { return r.BornTimestamp }, nil
}

// createTopic sends UPDATE_AND_CREATE_TOPIC (17) for topic with queues read and write
// queues, perm RW, as mqadmin updateTopic does (Java: MQClientAPIImpl#createTopic).
func createTopic(addr, topic, bname string, queues int, timeout time.Duration, creds credentials) error {
	nc, err := dial(addr, timeout)
	if err != nil {
		return fmt.Errorf("mqbench: connect %s: %w", addr, err)
	}
	defer nc.Close()
	req := protocol.NewRequest(protocol.CodeUpdateAndCreateTopic)
	req.Opaque = 1
	h := protocol.CreateTopicRequestHeader{Topic: topic, DefaultTopic: "TBW102", ReadQueueNums: int32(queues),
		WriteQueueNums: int32(queues), Perm: 6, TopicFilterType: "SINGLE_TAG"}
	h.Encode(&req.Ext)
	creds.sign(req)
	resp, err := call(nc, req, timeout)
	if err != nil {
		return fmt.Errorf("mqbench: create topic %s on %s: %w", topic, addr, err)
	}
	if resp.Code != int32(protocol.ResSuccess) {
		return fmt.Errorf("mqbench: create topic %s on %s: %w", topic, addr, errResponse(resp))
	}
	return nil
}

// jsonStr is s as a JSON string literal, escaped as fastjson does.
func jsonStr(s string) string { return string(compat.AppendJSONString(nil, s)) }
