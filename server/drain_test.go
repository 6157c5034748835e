package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/metrics"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// Drain of the all-in-one process (skyrocket) and of a slave (issue 10): Node.RunDrain
// with a short window, in process; cmd/mqbroker's drain of a master is the binary-level
// conformance/drain_test.go.

func drainNamesrv(t *testing.T, dir string) namesrv.Options {
	t.Helper()
	n := configs.NewNamesrv()
	n.Namesrv.KvConfigPath = filepath.Join(dir, "namesrv", "kvConfig.json")
	n.Namesrv.ConfigStorePath = filepath.Join(dir, "namesrv", "namesrv.properties")
	opts := NamesrvOptions(n)
	opts.ListenAddr = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	return opts
}

// drainBroker returns the options of a broker registered with nsAddr; props override.
func drainBroker(t *testing.T, dir, name string, nsAddr string, props map[string]string) broker.Options {
	t.Helper()
	port := freePort(t)
	p := map[string]string{
		"brokerName": name, "brokerIP1": "127.0.0.1", "brokerIP2": "127.0.0.1", "listenPort": fmt.Sprint(port),
		"namesrvAddr": nsAddr, "storePathRootDir": filepath.Join(dir, name+props["brokerId"], "store"),
		"mappedFileSizeCommitLog": "1048576", "mappedFileSizeConsumeQueue": "6000", "maxHashSlotNum": "100", "maxIndexNum": "400",
	}
	for k, v := range props {
		p[k] = v
	}
	b := configs.NewBroker()
	if _, err := b.Load(p); err != nil {
		t.Fatal(err)
	}
	if err := b.Resolve(); err != nil {
		t.Fatal(err)
	}
	opts, err := BrokerOptions(b)
	if err != nil {
		t.Fatal(err)
	}
	opts.ListenAddr = fmt.Sprintf("127.0.0.1:%d", port)
	return opts
}

func startNode(t *testing.T, ns *namesrv.Options, br *broker.Options) *Node {
	t.Helper()
	n, err := Start(ns, br)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Shutdown(context.Background()) })
	return n
}

func eventuallyNode(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func invoke(t *testing.T, c *remoting.Client, addr string, code protocol.RequestCode, hdr interface{ Encode(*protocol.Ext) }, body []byte) (*protocol.Command, error) {
	t.Helper()
	req := protocol.NewRequest(code)
	if hdr != nil {
		hdr.Encode(&req.Ext)
	}
	req.Body = body
	return c.Invoke(context.Background(), addr, req, 3*time.Second)
}

// route asks the NameServer at nsAddr for topic's route over the wire.
func route(t *testing.T, c *remoting.Client, nsAddr, topic string) (*protocol.TopicRouteData, error) {
	t.Helper()
	resp, err := invoke(t, c, nsAddr, protocol.CodeGetRouteinfoByTopic, &protocol.GetRouteInfoRequestHeader{Topic: topic}, nil)
	if err != nil {
		return nil, err
	}
	if resp.ResponseCode() != protocol.ResSuccess {
		return nil, fmt.Errorf("route %s: code %v %q", topic, resp.ResponseCode(), resp.Remark)
	}
	var rd protocol.TopicRouteData
	if err := json.Unmarshal(resp.Body, &rd); err != nil {
		return nil, err
	}
	return &rd, nil
}

func queuePerm(rd *protocol.TopicRouteData, brokerName string) int32 {
	for _, q := range rd.QueueDatas {
		if q.BrokerName == brokerName {
			return q.Perm
		}
	}
	return -1
}

func runDrainAsync(n *Node, window time.Duration) (cancel func(), done <-chan error) {
	ctx, stop := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	go func() { ch <- n.RunDrain(ctx, window, nil) }()
	return stop, ch
}

// TestNode_RunDrain_AllInOne_BrokerDrainsNamesrvServesToTheEnd: an all-in-one process
// that another broker registered with drains: its broker is announced read-only by its
// own NameServer, which goes on answering routes during the window, and both stop after
// it (the broker's store cleanly, the NameServer last).
func TestNode_RunDrain_AllInOne_BrokerDrainsNamesrvServesToTheEnd(t *testing.T) {
	dir := t.TempDir()
	nsOpts := drainNamesrv(t, dir)
	ns := nsOpts.ListenAddr
	a := startNode(t, &nsOpts, ptr(drainBroker(t, dir, "broker-a", ns, nil)))
	bo := drainBroker(t, dir, "broker-b", ns, nil)
	b := startNode(t, nil, &bo)
	eventuallyNode(t, 10*time.Second, "both brokers registered", func() bool {
		live := a.Namesrv.Routes().LiveBrokers()
		return slices.Contains(live, a.Broker.Addr()) && slices.Contains(live, b.Broker.Addr())
	})
	c := remoting.NewClient(remoting.ClientOptions{})
	defer c.Close()
	if rd, err := route(t, c, ns, "TBW102"); err != nil || !protocol.IsWriteable(queuePerm(rd, "broker-a")) {
		t.Fatalf("before the drain: broker-a perm %v, %v", rd, err)
	}

	const window = 2 * time.Second
	start := time.Now()
	cancel, done := runDrainAsync(a, window)
	cancel()
	eventuallyNode(t, window, "broker-a announced read-only by its own NameServer", func() bool {
		rd, err := route(t, c, ns, "TBW102")
		return err == nil && queuePerm(rd, "broker-a") >= 0 && !protocol.IsWriteable(queuePerm(rd, "broker-a")) &&
			protocol.IsWriteable(queuePerm(rd, "broker-b"))
	})
	// Still serving during the window: the broker answers, the NameServer routes.
	if resp, err := invoke(t, c, a.Broker.Addr(), protocol.CodeGetBrokerRuntimeInfo, nil, nil); err != nil || resp.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("broker-a during the drain: %v %v", resp, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < window {
		t.Errorf("stopped after %v, before the %v window", took, window)
	}
	if _, err := net.DialTimeout("tcp", ns, time.Second); err == nil {
		t.Error("the NameServer still accepts connections after RunDrain returned")
	}
	if _, err := os.Stat(filepath.Join(dir, "broker-a", "store", "abort")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("abort file after the drained stop: %v", err)
	}
}

// TestNode_RunDrain_AllInOneAlone_StopsAtOnce: alone in its own NameServer, the process
// has nowhere to send its clients and does not wait (make run, the test harnesses).
func TestNode_RunDrain_AllInOneAlone_StopsAtOnce(t *testing.T) {
	dir := t.TempDir()
	nsOpts := drainNamesrv(t, dir)
	a := startNode(t, &nsOpts, ptr(drainBroker(t, dir, "broker-a", nsOpts.ListenAddr, nil)))
	eventuallyNode(t, 10*time.Second, "broker registered", func() bool {
		return slices.Contains(a.Namesrv.Routes().LiveBrokers(), a.Broker.Addr())
	})
	if !a.aloneInOwnNamesrv() {
		t.Fatal("an all-in-one process with no other broker is not seen as alone")
	}
	start := time.Now()
	cancel, done := runDrainAsync(a, 30*time.Second)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v to stop: it drained with nobody to move to", took)
	}
}

// TestNode_RunDrain_Slave_LeavesRoutesSendsReadersToMaster: a slave's drain takes it out
// of the routes at once (the master's entry stays), and it keeps serving pulls during the
// window, suggesting the master (brokerId 0) even to a group whose brokerId is 1.
func TestNode_RunDrain_Slave_LeavesRoutesSendsReadersToMaster(t *testing.T) {
	dir := t.TempDir()
	nsOpts := drainNamesrv(t, dir)
	ns := startNode(t, &nsOpts, nil)
	nsAddr := ns.Namesrv.Addr()
	master := startNode(t, nil, ptr(drainBroker(t, dir, "broker-a", nsAddr, map[string]string{"brokerId": "0", "brokerRole": "ASYNC_MASTER"})))
	so := drainBroker(t, dir, "broker-a", nsAddr, map[string]string{"brokerId": "1", "brokerRole": "SLAVE", "slaveReadEnable": "true"})
	so.SlaveSyncPeriod = 300 * time.Millisecond // the group below reaches it soon
	slave := startNode(t, nil, &so)
	c := remoting.NewClient(remoting.ClientOptions{})
	defer c.Close()
	ids := func() map[int64]string {
		rd, err := route(t, c, nsAddr, "TBW102")
		if err != nil || len(rd.BrokerDatas) == 0 {
			return nil
		}
		return rd.BrokerDatas[0].BrokerAddrs
	}
	eventuallyNode(t, 10*time.Second, "master and slave in the route", func() bool {
		m := ids()
		return m[0] == master.Broker.Addr() && m[1] == slave.Broker.Addr()
	})
	// A group that reads from brokerId 1 (made on the master, synced to the slave): the
	// slave suggests 1 while it serves normally.
	group := "GDrainSlave"
	sg := protocol.NewSubscriptionGroupConfig(group)
	sg.BrokerID = 1
	body, _ := json.Marshal(sg)
	if resp, err := invoke(t, c, master.Broker.Addr(), protocol.CodeUpdateAndCreateSubscriptiongroup, nil, body); err != nil || resp.ResponseCode() != protocol.ResSuccess {
		t.Fatalf("create group on the master: %v %v", resp, err)
	}
	pull := func() (protocol.ResponseCode, int64, error) {
		h := &protocol.PullMessageRequestHeader{ConsumerGroup: group, Topic: "TBW102", QueueID: 0, MaxMsgNums: 32,
			SysFlag: 4 /* the subscription is in the request: no heartbeat needed */, Subscription: "*", ExpressionType: "TAG"}
		resp, err := invoke(t, c, slave.Broker.Addr(), protocol.CodePullMessage, h, nil)
		if err != nil {
			return 0, 0, err
		}
		var rh protocol.PullMessageResponseHeader
		if err := rh.Decode(resp.Ext); err != nil {
			return resp.ResponseCode(), 0, fmt.Errorf("%w (remark %q, ext %v)", err, resp.Remark, resp.Ext)
		}
		return resp.ResponseCode(), rh.SuggestWhichBrokerID, nil
	}
	eventuallyNode(t, 20*time.Second, "the slave suggesting brokerId 1 to the group", func() bool {
		_, suggest, err := pull()
		return err == nil && suggest == 1
	})

	const window = 2 * time.Second
	start := time.Now()
	cancel, done := runDrainAsync(slave, window)
	cancel()
	eventuallyNode(t, window, "the slave out of the route, the master in it", func() bool {
		m := ids()
		_, slaveIn := m[1]
		return m[0] == master.Broker.Addr() && !slaveIn
	})
	code, suggest, err := pull()
	if err != nil || suggest != 0 {
		t.Fatalf("pull from the draining slave: code %v suggest %d %v, want an answer suggesting the master (0)", code, suggest, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < window {
		t.Errorf("the slave stopped after %v, before the %v window", took, window)
	}
	if m := ids(); m[0] != master.Broker.Addr() || len(m) != 1 {
		t.Errorf("route after the slave stopped: %v, want the master alone", m)
	}
}

func ptr[T any](v T) *T { return &v }

// TestNode_RunDrain_HealthSaysDraining: during the window the broker's /healthz stays
// 200 with the phase "draining" and /readyz answers 503 for that phase, so probes see the
// drain; RunDrain then returns without error.
func TestNode_RunDrain_HealthSaysDraining(t *testing.T) {
	dir := t.TempDir()
	nsOpts := drainNamesrv(t, dir)
	startNode(t, &nsOpts, nil)
	bo := drainBroker(t, dir, "broker-a", nsOpts.ListenAddr, nil)
	httpPort := freePort(t)
	n, err := StartNode(NodeOptions{Broker: &bo, BrokerHTTP: configs.Metrics{Port: httpPort}, HTTPHost: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Shutdown(context.Background()) })
	base := fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	waitUntil(t, 15*time.Second, "/readyz 200 before the drain", func() bool { code, _, _ := getStatus(t, base+"/readyz"); return code == 200 })

	const window = 2 * time.Second
	cancel, done := runDrainAsync(n, window)
	cancel()
	waitUntil(t, window, "/healthz phase draining", func() bool {
		code, st, _ := getStatus(t, base+"/healthz")
		return code == 200 && st.Phase == metrics.PhaseDraining
	})
	if code, st, body := getStatus(t, base+"/readyz"); code != 503 || st.Failing["phase"] != string(metrics.PhaseDraining) {
		t.Errorf("/readyz while draining: %d %s", code, body)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
