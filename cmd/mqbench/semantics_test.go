package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/codec"
	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server"
)

// freeBrokerPort: conformance/testkit.BrokerPort (p-2 VIP and p+1 HA free too).
func freeBrokerPort(t testing.TB) int { return testkit.BrokerPort(t) }

// startBroker runs a Skyrocket broker (no NameServer) in this process on a temp store
// with small files.
func startBroker(t testing.TB) string {
	t.Helper()
	port := freeBrokerPort(t)
	b := configs.NewBroker()
	if _, err := b.Load(map[string]string{
		"brokerName": "broker-t", "brokerIP1": "127.0.0.1", "listenPort": fmt.Sprint(port), "namesrvAddr": "",
		"storePathRootDir": filepath.Join(t.TempDir(), "store"), "mappedFileSizeCommitLog": "67108864",
		"mappedFileSizeConsumeQueue": "60000", "maxHashSlotNum": "1000", "maxIndexNum": "4000",
	}); err != nil {
		t.Fatal(err)
	}
	if err := b.Resolve(); err != nil {
		t.Fatal(err)
	}
	o, err := server.BrokerOptions(b)
	if err != nil {
		t.Fatal(err)
	}
	o.ListenAddr = fmt.Sprintf("127.0.0.1:%d", port)
	node, err := server.Start(nil, &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = node.Shutdown(ctx)
	})
	return o.ListenAddr
}

func TestProduce_Tx_CommitsReachTheTopic(t *testing.T) {
	addr := startBroker(t)
	r := mustRun(t, "produce", "-b", addr, "-t", "TxTopic", "-kind", "tx", "-create-topic", "-q", "8", "-c", "2", "-w", "8",
		"-s", "128", "-m", "300", "-await-delivery", "10s")
	noErrors(t, r)
	// Every transaction is two answered requests; -m counts committed transactions.
	if r.Messages != 300 || r.Requests != 600 || r.Latency == nil || r.Latency.Count != 300 {
		t.Fatalf("messages %d requests %d latency %+v", r.Messages, r.Requests, r.Latency)
	}
	d := r.Delivery
	if d == nil || !d.Complete || d.Delivered != 300 || d.Expected != 300 || d.Due != "bornTimestamp" || d.Lateness == nil {
		t.Fatalf("delivery %+v", d)
	}
	// The committed messages are in all 8 queues (-create-topic made them).
	ts := []deliveryTarget{{addr: addr, queues: queueIDs(8), start: make([]int64, 8)}}
	offs, err := maxOffsets(addr, "TxTopic", "", queueIDs(8), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for q, o := range offs {
		if o == 0 {
			t.Fatalf("queue %d empty: max offsets %v", q, offs)
		}
	}
	again, err := awaitDelivery(context.Background(), "TxTopic", ts, 300, 5*time.Second, "x",
		func(*message.Record) int64 { return 0 }, runMessages())
	if err != nil || again.Delivered != 300 || again.Foreign != 0 || again.Early != 0 {
		t.Fatalf("re-read: %+v, %v", again, err)
	}
	// Records stored before their due time are counted apart (a timer wheel that delivers
	// early), with the most any was early by; they count as 0 in the lateness.
	early, err := awaitDelivery(context.Background(), "TxTopic", ts, 300, 5*time.Second, "x",
		func(r *message.Record) int64 { return r.StoreTimestamp + 7 }, runMessages())
	if err != nil || early.Early != 300 || early.EarliestMs != 7 || early.Lateness.Max != 0 {
		t.Fatalf("re-read with due = store time + 7 ms: %+v, %v", early, err)
	}
	// A message of another producer in the same queues is foreign.
	spec := &sendSpec{code: protocol.CodeSendMessageV2, group: "g", topic: "TxTopic", body: []byte("x")}
	if err := probeSend(addr, spec); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		again, err = awaitDelivery(context.Background(), "TxTopic", ts, 301, 50*time.Millisecond, "x",
			func(*message.Record) int64 { return 0 }, runMessages())
		if err != nil || again.Foreign == 1 || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || again.Delivered != 300 || again.Foreign != 1 || again.Complete {
		t.Fatalf("with a probe message: %+v, %v", again, err)
	}
}

func TestProduce_Delay_DeliveredWhenDue(t *testing.T) {
	addr := startBroker(t)
	start := time.Now()
	r := mustRun(t, "produce", "-b", addr, "-t", "DelayTopic", "-delay", "1", "-create-topic", "-q", "2", "-c", "1", "-w", "4",
		"-s", "64", "-m", "50", "-await-delivery", "10s")
	noErrors(t, r)
	d := r.Delivery
	if r.Messages != 50 || d == nil || !d.Complete || d.Delivered != 50 || !strings.Contains(d.Due, "DELAY 1") {
		t.Fatalf("messages %d delivery %+v", r.Messages, d)
	}
	// Level 1 is 1 s: nothing can reach the topic sooner.
	if el := time.Since(start); el < time.Second {
		t.Fatalf("delivered after %v, before the 1 s delay", el)
	}
	if d.Lateness.Max > 5000 {
		t.Fatalf("lateness %+v", d.Lateness)
	}
}

func TestProduce_Check_RefusesBadSemanticsFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-b", "x:1", "-await-delivery", "1s", "-warmup", "1s"},
		{"-b", "x:1", "-await-delivery", "1s", "-kind", "batch"},
		{"-n", "x:1", "-create-topic"},
		{"-b", "x:1", "-delay", "19"},
		{"-b", "x:1", "-delay", "1", "-delay-levels", "1x"},
	} {
		if _, _, err := modeResult(context.Background(), "produce", args, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

func TestDelayOf_Levels(t *testing.T) {
	for _, tc := range []struct {
		level int
		want  time.Duration
	}{{1, time.Second}, {5, time.Minute}, {17, time.Hour}, {18, 2 * time.Hour}} {
		if got, err := delayOf(defaultDelayLevels, tc.level); err != nil || got != tc.want {
			t.Errorf("level %d: %v, %v; want %v", tc.level, got, err, tc.want)
		}
	}
	if got, err := delayOf("2d", 1); err != nil || got != 48*time.Hour {
		t.Errorf("2d: %v, %v", got, err)
	}
	for _, bad := range []int{0, 19} {
		if _, err := delayOf(defaultDelayLevels, bad); !errors.Is(err, errDelayLevel) {
			t.Errorf("level %d: err = %v", bad, err)
		}
	}
}

func TestHalfAnswer_OffsetsFromMsgID(t *testing.T) {
	req := protocol.NewRequest(protocol.CodeSendMessageV2)
	req.Opaque = 7
	resp := protocol.NewResponse(req, protocol.ResSuccess, "")
	h := protocol.SendMessageResponseHeader{MsgID: message.CreateOffsetMsgID(netipLoopback(10911), 123456789), QueueID: 3, QueueOffset: 42}
	h.Encode(&resp.Ext)
	frame := codec.AppendFrame(nil, resp)[4:]
	cl, qo, err := halfAnswer(frame)
	if err != nil || cl != 123456789 || qo != 42 {
		t.Fatalf("commitLog %d queueOffset %d err %v", cl, qo, err)
	}
	bad := protocol.NewResponse(req, protocol.ResSuccess, "")
	(&protocol.SendMessageResponseHeader{MsgID: "nothex", QueueOffset: 1}).Encode(&bad.Ext)
	if _, _, err := halfAnswer(codec.AppendFrame(nil, bad)[4:]); !errors.Is(err, errTxAnswer) {
		t.Fatalf("bad msgId: err = %v", err)
	}
}

func TestCompare_ThreeSides_ArgsAndSpread(t *testing.T) {
	a, b, c := startNull(t), startNull(t), startNull(t)
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "cmp.json")
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"compare", "-rounds", "2", "-json-out", jsonPath,
		"-base", "A=" + a.Addr(), "-target", "B=" + b.Addr(), "-target-args", "-kind sync", "-ceiling", "C=" + c.Addr(),
		"produce", "-m", "200", "-c", "1", "-w", "4"}, &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	for _, want := range []string{"B/A throughput ", "B/C throughput ", "B/A p99 latency ", "summary: median [min-max] of 2 rounds",
		"kind=sync", "kind=async", "(rounds "} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep CompareReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Sides) != 3 || rep.Rounds != 2 {
		t.Fatalf("sides %d rounds %d", len(rep.Sides), rep.Rounds)
	}
	for _, s := range rep.Sides {
		sp := s.Figures["throughput"]
		if len(s.Results) != 2 || sp.N != 2 || sp.Min > sp.Median || sp.Median > sp.Max || sp.Min <= 0 {
			t.Fatalf("side %s: %d results, throughput %+v", s.Name, len(s.Results), sp)
		}
		kind := s.Results[0].Settings["kind"]
		if (s.Name == "B") != (kind == "sync") {
			t.Fatalf("side %s ran kind %s", s.Name, kind)
		}
	}
	var labels []string
	for _, r := range rep.Ratios {
		if r.Figure == "throughput" {
			labels = append(labels, r.Label)
			if r.Min > r.Max || r.Median <= 0 {
				t.Fatalf("ratio %+v", r)
			}
		}
	}
	if strings.Join(labels, ",") != "B/A,B/C" {
		t.Fatalf("throughput ratios %v", labels)
	}
}

func TestServerPrep_RunsBeforeTheServer(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	marker := filepath.Join(t.TempDir(), "prepared")
	cmd := fmt.Sprintf("MQBENCH_TEST_CHILD=1 '%s' nullbroker -l %s", os.Args[0], addr)
	r := mustRun(t, "produce", "-b", addr, "-server-cmd", cmd, "-server-prep", "touch "+marker, "-m", "50")
	noErrors(t, r)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("prep did not run: %v", err)
	}
	if r.Server == nil || r.Server.AnonAfterMiB <= 0 || r.Server.PeakAnonMiB < r.Server.AnonAfterMiB || r.Server.FileAfterMiB <= 0 {
		t.Fatalf("server memory %+v", r.Server)
	}
	_, _, err = modeResult(context.Background(), "produce", []string{"-b", addr, "-server-cmd", cmd, "-server-prep", "false", "-m", "1"}, io.Discard)
	if !errors.Is(err, errPrep) {
		t.Fatalf("failing prep: err = %v", err)
	}
}

func netipLoopback(port uint16) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), port)
}

func TestServerCmd_TempLogRemovedUnlessNamed(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	p, err := startServer(fmt.Sprintf("MQBENCH_TEST_CHILD=1 '%s' nullbroker -l %s", os.Args[0], addr), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.waitReady(context.Background(), func() error {
		return probeSend(addr, &sendSpec{code: protocol.CodeSendMessageV2, topic: "T", body: []byte("x")})
	},
		5*time.Millisecond, 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	p.stop(5 * time.Second)
	if _, err := os.Stat(p.logPath); !os.IsNotExist(err) {
		t.Fatalf("temp log %s left after a clean stop: %v", p.logPath, err)
	}
	// A server that exits before it is ready keeps its log: the error names it.
	p, err = startServer("false", "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.waitReady(context.Background(), func() error { return errRefused }, 5*time.Millisecond, 10*time.Second, nil)
	p.stop(time.Second)
	if err == nil || !strings.Contains(err.Error(), p.logPath) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(p.logPath); err != nil {
		t.Fatalf("log of a failed start removed: %v", err)
	}
	os.Remove(p.logPath)
}
