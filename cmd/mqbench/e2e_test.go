package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
)

// TestMain lets the test binary stand in for the mqbench binary: with
// MQBENCH_TEST_CHILD set it runs the mode in its arguments (the -server-cmd and
// -startup-cmd tests start it as the server).
func TestMain(m *testing.M) {
	if os.Getenv("MQBENCH_TEST_CHILD") != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func startNull(t testing.TB) *nullBroker {
	t.Helper()
	nb := newNullBroker(nullOptions{Listen: "127.0.0.1:0", PullSize: 512, TraceOn: true, Logger: zerolog.Nop()})
	if err := nb.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = nb.Shutdown(ctx)
	})
	return nb
}

func startNamesrv(t testing.TB) *namesrv.Server {
	t.Helper()
	s, err := namesrv.New(namesrv.Options{ListenAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s
}

func mustRun(t *testing.T, mode string, args ...string) *Result {
	t.Helper()
	res, _, err := modeResult(context.Background(), mode, args, os.Stderr)
	if err != nil {
		t.Fatalf("%s %v: %v", mode, args, err)
	}
	return res
}

func noErrors(t *testing.T, r *Result) {
	t.Helper()
	if r.ErrorCount != 0 || len(r.ConnErrors) != 0 {
		var buf bytes.Buffer
		r.writeText(&buf)
		t.Fatalf("errors in run:\n%s", buf.String())
	}
}

func TestProduce_NullBroker_EveryKind(t *testing.T) {
	nb := startNull(t)
	cases := []struct {
		name string
		args []string
	}{
		{"sync V1", []string{"-kind", "sync", "-code", "10"}},
		{"async V2", []string{"-kind", "async", "-code", "310"}},
		{"async V2 rocketmq header", []string{"-kind", "async", "-serialize", "rocketmq"}},
		{"oneway", []string{"-kind", "oneway"}},
		{"batch", []string{"-kind", "batch", "-batch", "10", "-keys"}},
		{"create topic first", []string{"-create-topic", "-q", "8"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := nb.sends.Load()
			args := append([]string{"-b", nb.Addr(), "-m", "300", "-c", "2", "-w", "8", "-s", "256", "-timeout", "5s"}, tc.args...)
			r := mustRun(t, "produce", args...)
			noErrors(t, r)
			if r.Messages != 300 || r.Bytes != 300*256 || r.Seconds <= 0 || r.MsgsPerSec <= 0 {
				t.Fatalf("messages %d bytes %d seconds %v rate %v", r.Messages, r.Bytes, r.Seconds, r.MsgsPerSec)
			}
			acked := nb.sends.Load() - before
			if tc.name == "oneway" {
				// every oneway send, plus one answered fence per connection
				if acked != 302 || r.Latency != nil {
					t.Fatalf("broker acknowledged %d (want 302); latency %+v", acked, r.Latency)
				}
				return
			}
			if acked != 300 || r.Latency == nil || int64(r.Latency.Count) != r.Requests || r.Latency.P50 <= 0 || r.Latency.P99 < r.Latency.P50 {
				t.Fatalf("broker acknowledged %d (want 300); requests %d latency %+v", acked, r.Requests, r.Latency)
			}
			if r.Client == nil || r.Server != nil {
				t.Fatalf("client %+v server %+v", r.Client, r.Server)
			}
		})
	}
}

func TestProduce_Duration_CountsErrorsByCode(t *testing.T) {
	nb := startNull(t)
	// An oversize topic header is still acknowledged by the null broker; a header missing
	// its required fields is not: SEND_MESSAGE to a route that is not a broker at all
	// (the NameServer) answers REQUEST_CODE_NOT_SUPPORTED for every send.
	ns := startNamesrv(t)
	r := mustRun(t, "produce", "-b", ns.Addr(), "-heartbeat=false", "-d", "200ms", "-c", "1", "-w", "4")
	if r.Messages != 0 || r.ErrorCount != r.Requests || r.Errors[codeKey(int32(protocol.ResRequestCodeNotSupported))] != r.Requests || r.Requests == 0 {
		t.Fatalf("messages %d requests %d errors %v", r.Messages, r.Requests, r.Errors)
	}
	if rm := r.Remarks[codeKey(int32(protocol.ResRequestCodeNotSupported))]; !strings.Contains(rm, "not supported") {
		t.Fatalf("remarks %q", r.Remarks)
	}
	r = mustRun(t, "produce", "-b", nb.Addr(), "-d", "200ms", "-warmup", "100ms", "-c", "1", "-w", "4")
	noErrors(t, r)
	if r.Messages == 0 || r.Seconds < 0.2 || r.Settings["warmup"] != "100ms" {
		t.Fatalf("messages %d seconds %v settings %v", r.Messages, r.Seconds, r.Settings)
	}
}

func TestRoute_Namesrv_QueriesCounted(t *testing.T) {
	ns := startNamesrv(t)
	r := mustRun(t, "route", "-n", ns.Addr(), "-register", "-t", "T1,T2", "-c", "8", "-m", "400")
	noErrors(t, r)
	if r.Messages != 400 || r.Requests != 400 || r.Bytes == 0 || r.Latency == nil {
		t.Fatalf("queries %d requests %d bytes %d latency %+v", r.Messages, r.Requests, r.Bytes, r.Latency)
	}
	// -server-cmd readiness: a route is needed unless -register adds it.
	if err := probeRoute(ns.Addr(), "NoSuchTopic", true); !errors.Is(err, errRefused) {
		t.Fatalf("probe needing a route, none registered: err = %v", err)
	}
	if err := probeRoute(ns.Addr(), "NoSuchTopic", false); err != nil {
		t.Fatalf("probe needing an answer only: %v", err)
	}
	reg := startRegistrar(ns.Addr(), brokerRegistration{cluster: "c", name: "b", addr: "127.0.0.1:1", topics: []string{"ProbeT"}, queues: 1}, zerolog.Nop())
	if err := <-reg.initial; err != nil {
		t.Fatal(err)
	}
	if err := probeRoute(ns.Addr(), "ProbeT", true); err != nil {
		t.Fatalf("probe with a registered route: %v", err)
	}
	reg.close()
	// The stand-in broker leaves with its connection (asynchronously on the server).
	deadline := time.Now().Add(5 * time.Second)
	for probeRoute(ns.Addr(), "T1", true) == nil {
		if time.Now().After(deadline) {
			t.Fatal("stand-in broker still registered 5 s after the run")
		}
		time.Sleep(10 * time.Millisecond)
	}
	r = mustRun(t, "route", "-n", ns.Addr(), "-t", "T1", "-c", "2", "-m", "50", "-version", "317")
	if r.Messages != 0 || r.Errors[codeKey(int32(protocol.ResTopicNotExist))] != r.Requests || r.Requests < 50 {
		t.Fatalf("after unregister: queries %d requests %d errors %v", r.Messages, r.Requests, r.Errors)
	}
}

func TestProduce_RouteLookup_NullBrokerRegistered(t *testing.T) {
	ns := startNamesrv(t)
	nb := startNull(t)
	reg := startRegistrar(ns.Addr(), brokerRegistration{cluster: "DefaultCluster", name: "null-a", addr: nb.Addr(),
		topics: []string{"RouteT"}, queues: 3}, zerolog.Nop())
	defer reg.close()
	if err := <-reg.initial; err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, "produce", "-n", ns.Addr(), "-t", "RouteT", "-q", "0", "-m", "200", "-c", "1", "-w", "4")
	noErrors(t, r)
	if r.Messages != 200 || r.Target != nb.Addr() || r.Settings["queues"] != "3" {
		t.Fatalf("messages %d target %s (want %s) settings %v", r.Messages, r.Target, nb.Addr(), r.Settings)
	}
	c := mustRun(t, "consume", "-n", ns.Addr(), "-t", "RouteT", "-q", "0", "-m", "100")
	noErrors(t, c)
	if c.Settings["queues"] != "3" || c.Messages < 100 {
		t.Fatalf("consume via route: %d messages, settings %v", c.Messages, c.Settings)
	}
}

func TestConsume_NullBroker_WalksRecords(t *testing.T) {
	nb := startNull(t)
	for _, extra := range [][]string{nil, {"-sub-in-pull", "-heartbeat=false", "-suspend", "0", "-serialize", "rocketmq"}} {
		args := append([]string{"-b", nb.Addr(), "-q", "4", "-c", "2", "-batch", "16", "-m", "500", "-offset", "0,10,20,30"}, extra...)
		r := mustRun(t, "consume", args...)
		noErrors(t, r)
		if r.Messages < 500 || r.Messages%16 != 0 || r.Bytes != r.Messages*512 || r.Requests != r.Messages/16 {
			t.Fatalf("%v: messages %d bytes %d requests %d", extra, r.Messages, r.Bytes, r.Requests)
		}
	}
}

func TestServerCmd_StartsMeasuresAndStops(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := fmt.Sprintf("MQBENCH_TEST_CHILD=1 '%s' nullbroker -l %s", os.Args[0], addr)
	r := mustRun(t, "produce", "-b", addr, "-startup-cmd", cmd)
	if r.StartupMs <= 0 || r.Messages != 0 {
		t.Fatalf("startup %v ms, messages %d", r.StartupMs, r.Messages)
	}
	r = mustRun(t, "produce", "-b", addr, "-server-cmd", cmd, "-m", "500", "-w", "16")
	noErrors(t, r)
	if r.StartupMs <= 0 || r.Server == nil || r.Server.SampleError != "" || r.Server.PID <= 0 || r.Server.PeakRSSMiB <= 0 {
		t.Fatalf("startup %v ms, server %+v", r.StartupMs, r.Server)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(r.Server.PID)); err == nil {
		t.Fatalf("server pid %d still running after the run", r.Server.PID)
	}
	// A server already on the address would be measured instead of the started one.
	busy := startNull(t)
	_, _, err = modeResult(context.Background(), "produce", []string{"-b", busy.Addr(), "-server-cmd", cmd, "-m", "10"}, io.Discard)
	if !errors.Is(err, errBusyAddr) {
		t.Fatalf("server-cmd on a served address: err = %v", err)
	}
}

func TestCompare_TwoNullBrokers_PrintsRatios(t *testing.T) {
	a, b := startNull(t), startNull(t)
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"compare", "-base", "nullA=" + a.Addr(), "-target", "nullB=" + b.Addr(), "-rounds", "2",
		"produce", "-m", "200", "-c", "1", "-w", "4"}, &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	for _, want := range []string{"nullB/nullA throughput ", "nullB/nullA p99 latency ", "mqbench produce nullA -> "} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRun_Usage(t *testing.T) {
	var out, errOut bytes.Buffer
	for _, args := range [][]string{nil, {"nope"}, {"produce"}, {"produce", "-b", "x:1", "-kind", "fast"}, {"route", "-c", "0"}} {
		if err := run(context.Background(), args, &out, &errOut); err == nil || !strings.Contains(err.Error(), "usage") {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

func TestProduce_ServerStopsReading_RunEnds(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // accepted, never read
		}
	}()
	start := time.Now()
	r := mustRun(t, "produce", "-b", ln.Addr().String(), "-heartbeat=false", "-s", "1000000", "-w", "64", "-c", "1",
		"-d", "200ms", "-timeout", "500ms")
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("run took %v", el)
	}
	if len(r.ConnErrors) != 1 || !strings.Contains(r.ConnErrors[0], "write blocked") || r.Messages != 0 || r.Errors["connection lost"] == 0 {
		t.Fatalf("connection errors %q, messages %d, errors %v", r.ConnErrors, r.Messages, r.Errors)
	}
}

func TestProduce_Heartbeats_Repeated(t *testing.T) {
	nb := startNull(t)
	r := mustRun(t, "produce", "-b", nb.Addr(), "-d", "300ms", "-c", "2", "-w", "4", "-heartbeat-interval", "20ms")
	noErrors(t, r)
	// The setup heartbeat of each connection, then one every 20 ms for 300 ms; their
	// answers are neither counted nor stray.
	if n := nb.heartbeats.Load(); n < 2+2*5 {
		t.Fatalf("%d heartbeats, want at least 12", n)
	}
	if r.Requests == 0 || r.Messages != r.Requests {
		t.Fatalf("messages %d requests %d", r.Messages, r.Requests)
	}
}
