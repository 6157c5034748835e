package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
	"github.com/skyrocket-mq/skyrocket/server/metrics"
	"github.com/skyrocket-mq/skyrocket/store"
)

func getStatus(t *testing.T, url string) (int, metrics.Status, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, metrics.Status{}, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var st metrics.Status
	_ = json.Unmarshal(body, &st)
	return resp.StatusCode, st, string(body)
}

func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStartNode_HealthDuringRecoveryThenReady: the broker's endpoint answers /healthz
// (200, phase recovering, the progress) and /readyz (503) while the store recovers — the
// recovery is held at its first progress report — then /readyz turns 200 once the store
// is recovered and a NameServer took the registration; /metrics serves the exporter's
// families and the NameServer's figures on the same port (all-in-one); pprof only when
// asked for.
func TestStartNode_HealthDuringRecoveryThenReady(t *testing.T) {
	dir := t.TempDir()
	nsPort, brPort, httpPort := freePort(t), freePort(t), testkit.FreePort(t)
	n := configs.NewNamesrv()
	n.Namesrv.KvConfigPath = ""
	nsOpts := NamesrvOptions(n)
	nsOpts.ListenAddr = fmt.Sprintf("127.0.0.1:%d", nsPort)
	b := configs.NewBroker()
	if _, err := b.Load(map[string]string{
		"brokerName": "broker-a", "brokerIP1": "127.0.0.1", "listenPort": fmt.Sprint(brPort),
		"namesrvAddr": fmt.Sprintf("127.0.0.1:%d", nsPort), "storePathRootDir": filepath.Join(dir, "store"),
		"mappedFileSizeCommitLog": "1048576", "mappedFileSizeConsumeQueue": "6000", "maxHashSlotNum": "100", "maxIndexNum": "400",
		"metricsPort": fmt.Sprint(httpPort), "metricsPprofEnable": "true",
	}); err != nil {
		t.Fatal(err)
	}
	if err := b.Resolve(); err != nil {
		t.Fatal(err)
	}
	brOpts, err := BrokerOptions(b)
	if err != nil {
		t.Fatal(err)
	}
	brOpts.ListenAddr = fmt.Sprintf("127.0.0.1:%d", brPort)
	httpOpts, err := BrokerMetrics(b)
	if err != nil || httpOpts.Port != httpPort || !httpOpts.Pprof {
		t.Fatalf("BrokerMetrics: %+v %v", httpOpts, err)
	}
	release := make(chan struct{})
	var once sync.Once
	brOpts.Store.OnRecoveryProgress = func(store.RecoveryProgress) { once.Do(func() { <-release }) }

	type started struct {
		n   *Node
		err error
	}
	done := make(chan started, 1)
	go func() {
		n, err := StartNode(NodeOptions{Namesrv: &nsOpts, Broker: &brOpts, NamesrvHTTP: httpOpts, BrokerHTTP: httpOpts, HTTPHost: "127.0.0.1"})
		done <- started{n, err}
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	waitUntil(t, 10*time.Second, "/healthz during recovery", func() bool {
		code, st, _ := getStatus(t, base+"/healthz")
		return code == 200 && st.Phase == metrics.PhaseRecovering && st.Recovery != nil
	})
	if code, st, body := getStatus(t, base+"/readyz"); code != http.StatusServiceUnavailable || st.Failing["phase"] != "recovering" {
		t.Errorf("/readyz while recovering: %d %s", code, body)
	}
	close(release)
	var s started
	select {
	case s = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("StartNode did not return")
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
		defer cancel()
		_ = s.n.Shutdown(ctx)
	})
	waitUntil(t, 15*time.Second, "/readyz 200", func() bool { code, _, _ := getStatus(t, base+"/readyz"); return code == 200 })
	code, st, body := getStatus(t, base+"/healthz")
	if code != 200 || st.Phase != metrics.PhaseRunning || st.Recovery == nil || st.Recovery.Stage != "recovered" ||
		st.Recovery.FilesDone != st.Recovery.FilesTotal {
		t.Errorf("/healthz when running: %d %s", code, body)
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"# TYPE rocketmq_broker_tps gauge", `rocketmq_brokeruntime_msg_put_total_today_now{boottime=`,
		"skyrocket_namesrv_live_brokers 1", "skyrocket_broker_send_store_seconds_bucket", "go_goroutines", "skyrocket_broker_connections", "skyrocket_broker_index_behind_bytes 0"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if resp, err := http.Get(base + "/debug/pprof/cmdline"); err != nil || resp.StatusCode != 200 {
		t.Errorf("pprof with metricsPprofEnable: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	// Stopping: the endpoint reports it until it closes.
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := s.n.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("/healthz still answers after Shutdown")
	}
}

func TestMetricsFrom_DefaultsAndBadValues(t *testing.T) {
	b := configs.NewBroker()
	if m, err := BrokerMetrics(b); err != nil || m.Port != 5557 || m.Pprof {
		t.Errorf("broker default: %+v %v", m, err)
	}
	n := configs.NewNamesrv()
	if m, err := NamesrvMetrics(n); err != nil || m.Port != 5558 {
		t.Errorf("namesrv default: %+v %v", m, err)
	}
	unknown, err := n.Load(map[string]string{"metricsPort": "0"})
	if err != nil || len(unknown) != 0 {
		t.Errorf("metricsPort reported unknown: %v %v", unknown, err)
	}
	if m, _ := NamesrvMetrics(n); m.Port != 0 {
		t.Errorf("metricsPort=0: %+v", m)
	}
	for _, bad := range []map[string]string{{"metricsPort": "x"}, {"metricsPort": "70000"}, {"metricsPort": "-1"}, {"metricsPprofEnable": "maybe"}, {"metricsClientStatsEnable": "yes please"}} {
		if _, err := configs.MetricsFrom(bad, 5557); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
