package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/protocol"
)

// route: GET_ROUTEINFO_BY_TOPIC queries against a NameServer; reports queries/s and
// latency percentiles. -register first registers a stand-in broker that owns the topics
// (REGISTER_BROKER, as a broker does at start) and keeps its connection open for the run,
// so the queries find a route on an empty NameServer.

type routeOpts struct {
	loadOpts
	namesrv string
	topics  string
	version int
	standin bool
	queues  int
}

func (o *routeOpts) flags(fs *flag.FlagSet) {
	o.loadOpts.register(fs, 64, 1)
	fs.StringVar(&o.namesrv, "n", "127.0.0.1:9876", "NameServer address")
	fs.StringVar(&o.topics, "t", "BenchmarkTest", "topics to query, comma-separated, round-robin")
	fs.IntVar(&o.version, "version", int(protocol.CurrentVersion), "client version sent (317 = the Go client, 409 = Java 4.9.8: standard JSON from 401 up)")
	fs.BoolVar(&o.standin, "register", false, "register a stand-in broker owning the topics before the run")
	fs.IntVar(&o.queues, "q", 4, "queues per topic of the stand-in broker (-register)")
}

func (o *routeOpts) topicList() []string {
	var out []string
	for _, t := range strings.Split(o.topics, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func (o *routeOpts) check() error {
	if err := o.loadOpts.check(); err != nil {
		return err
	}
	if len(o.topicList()) == 0 {
		return fmt.Errorf("%w: -t is empty", errUsage)
	}
	return nil
}

// routeLoad is the workload of one querying connection.
type routeLoad struct {
	cmd    *protocol.Command
	topics []string
	next   int
	run    *runState
}

func (l *routeLoad) request(dst []byte, _ int, opaque int32) ([]byte, int, bool) {
	if !l.run.reserve(1) {
		return dst, 0, false
	}
	c := l.cmd
	c.Ext = c.Ext[:0]
	c.Opaque = opaque
	h := protocol.GetRouteInfoRequestHeader{Topic: l.topics[l.next%len(l.topics)]}
	l.next++
	h.Encode(&c.Ext)
	return codec.AppendFrame(dst, c), 1, true
}

func (l *routeLoad) response(_ int, h respHeader, _ int, frame []byte) outcome {
	if h.code != int32(protocol.ResSuccess) {
		return outcome{status: outcomeFail}
	}
	hlen := int(be32(frame) & 0xFFFFFF)
	return outcome{msgs: 1, bytes: int64(len(frame) - 4 - hlen)}
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func newRouteCmd(st protocol.SerializeType, version int) *protocol.Command {
	c := protocol.NewRequest(protocol.CodeGetRouteinfoByTopic)
	c.Serialize = st
	c.Version = int32(version)
	return c
}

// lookupRoute asks a NameServer for a topic's route.
func lookupRoute(ns, topic string, timeout time.Duration) (*protocol.TopicRouteData, error) {
	nc, err := dial(ns, timeout)
	if err != nil {
		return nil, fmt.Errorf("mqbench: connect to NameServer %s: %w", ns, err)
	}
	defer nc.Close()
	req := newRouteCmd(protocol.SerializeJSON, int(protocol.CurrentVersion))
	req.Opaque = 1
	h := protocol.GetRouteInfoRequestHeader{Topic: topic}
	h.Encode(&req.Ext)
	resp, err := call(nc, req, timeout)
	if err != nil {
		return nil, fmt.Errorf("mqbench: route of %s from %s: %w", topic, ns, err)
	}
	if resp.Code != int32(protocol.ResSuccess) {
		return nil, fmt.Errorf("mqbench: route of %s from %s: %w", topic, ns, errResponse(resp))
	}
	var route protocol.TopicRouteData
	if err := protocol.UnmarshalBody(resp.Body, &route); err != nil {
		return nil, err
	}
	return &route, nil
}

// brokerRegistration is what REGISTER_BROKER tells a NameServer about a broker.
type brokerRegistration struct {
	cluster, name, addr string
	topics              []string
	queues              int
	version             protocol.DataVersion
}

// registerBroker sends REGISTER_BROKER on nc (Java: BrokerOuterAPI#registerBrokerAll, the
// uncompressed RegisterBrokerBody with its crc32). The NameServer forgets the broker
// when nc closes.
func registerBroker(nc net.Conn, r *brokerRegistration, timeout time.Duration) error {
	body := &protocol.RegisterBrokerBody{FilterServerList: []string{}}
	body.TopicConfigSerializeWrapper.DataVersion = r.version
	body.TopicConfigSerializeWrapper.TopicConfigTable = map[string]protocol.TopicConfig{}
	for _, t := range r.topics {
		tc := protocol.NewTopicConfig(t)
		tc.ReadQueueNums, tc.WriteQueueNums = int32(r.queues), int32(r.queues)
		body.TopicConfigSerializeWrapper.TopicConfigTable[t] = tc
	}
	req := protocol.NewRequest(protocol.CodeRegisterBroker)
	req.Opaque = int32(time.Now().UnixNano() & 0x3FFFFFFF)
	req.Body = body.AppendJSON(nil)
	host, port, _ := net.SplitHostPort(r.addr)
	haPort, _ := strconv.Atoi(port)
	h := protocol.RegisterBrokerRequestHeader{BrokerName: r.name, BrokerAddr: r.addr, ClusterName: r.cluster,
		HaServerAddr: net.JoinHostPort(host, strconv.Itoa(haPort+1)), BodyCrc32: compat.CRC32(req.Body)}
	h.Encode(&req.Ext)
	resp, err := call(nc, req, timeout)
	if err != nil {
		return fmt.Errorf("mqbench: register broker: %w", err)
	}
	if resp.Code != int32(protocol.ResSuccess) {
		return fmt.Errorf("mqbench: register broker: %w", errResponse(resp))
	}
	return nil
}

// probeRoute is ready when the NameServer answers a route query: with needRoute, only
// SUCCESS counts (a broker must have registered the topic); otherwise TOPIC_NOT_EXIST
// does too (-register adds the route after the probe).
func probeRoute(ns, topic string, needRoute bool) error {
	nc, err := dial(ns, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer nc.Close()
	req := newRouteCmd(protocol.SerializeJSON, int(protocol.CurrentVersion))
	req.Opaque = 1
	h := protocol.GetRouteInfoRequestHeader{Topic: topic}
	h.Encode(&req.Ext)
	resp, err := call(nc, req, time.Second)
	if err != nil {
		return err
	}
	if needRoute && resp.Code != int32(protocol.ResSuccess) {
		return errResponse(resp)
	}
	return nil
}

func (o *routeOpts) run(ctx context.Context) (*Result, error) {
	topics := o.topicList()
	return o.withServer(ctx, "route", o.namesrv, func() error { return probeRoute(o.namesrv, topics[0], !o.standin) }, func(pid int) (*Result, error) {
		return o.load(ctx, topics, pid)
	})
}

func (o *routeOpts) load(ctx context.Context, topics []string, pid int) (*Result, error) {
	st, _ := o.serializeType()
	if o.standin {
		nc, err := dial(o.namesrv, o.timeout)
		if err != nil {
			return nil, fmt.Errorf("mqbench: connect to NameServer %s: %w", o.namesrv, err)
		}
		defer nc.Close() // unregisters the stand-in broker
		reg := &brokerRegistration{cluster: "DefaultCluster", name: "mqbench-standin", addr: "127.0.0.1:10911",
			topics: topics, queues: o.queues, version: protocol.DataVersion{Timestamp: time.Now().UnixMilli(), Counter: 1}}
		if err := registerBroker(nc, reg, o.timeout); err != nil {
			return nil, err
		}
	}
	run := newRunState(o.total)
	var pipes []*pipe
	defer func() {
		for _, p := range pipes {
			p.nc.Close()
		}
	}()
	for i := range o.conns {
		nc, err := dial(o.namesrv, o.timeout)
		if err != nil {
			return nil, fmt.Errorf("mqbench: connect to NameServer %s: %w", o.namesrv, err)
		}
		l := &routeLoad{cmd: newRouteCmd(st, o.version), topics: topics, next: i, run: run}
		pipes = append(pipes, newPipe(i, nc, l, run, o.window, true, false))
	}
	res := &Result{Mode: "route", Target: o.namesrv, Settings: o.settings(map[string]string{
		"t": strings.Join(topics, ","), "version": strconv.Itoa(o.version),
	})}
	runLoad(ctx, pipes, run, &o.loadOpts, o.timeout, false, pid, res)
	return res, nil
}
