package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/server"
)

// startHABroker runs a Skyrocket broker of a master/slave pair in this process (no
// NameServer: the slave follows haMasterAddress).
func startHABroker(t testing.TB, role string, id int, haMaster string) string {
	t.Helper()
	port := freeBrokerPort(t)
	b := configs.NewBroker()
	kv := map[string]string{
		"brokerName": "broker-p", "brokerId": fmt.Sprint(id), "brokerRole": role, "brokerIP1": "127.0.0.1", "brokerIP2": "127.0.0.1",
		"listenPort": fmt.Sprint(port), "namesrvAddr": "", "storePathRootDir": filepath.Join(t.TempDir(), "store"),
		"mappedFileSizeCommitLog": "67108864", "mappedFileSizeConsumeQueue": "60000", "maxHashSlotNum": "1000", "maxIndexNum": "4000",
	}
	if haMaster != "" {
		kv["haMasterAddress"] = haMaster
	}
	if _, err := b.Load(kv); err != nil {
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

func TestProduce_Slave_LagSampledAndCaughtUp(t *testing.T) {
	master := startHABroker(t, "SYNC_MASTER", 0, "")
	var port int
	if _, err := fmt.Sscanf(master, "127.0.0.1:%d", &port); err != nil {
		t.Fatal(err)
	}
	slave := startHABroker(t, "SLAVE", 1, fmt.Sprintf("127.0.0.1:%d", port+1))
	r := mustRun(t, "produce", "-b", master, "-slave", slave, "-lag-interval", "5ms", "-t", "PairT", "-create-topic", "-q", "2",
		"-c", "2", "-w", "8", "-d", "500ms")
	noErrors(t, r)
	l := r.Replication
	if l == nil || l.Samples < 10 || l.Errors != 0 || l.CaughtUpMs <= 0 || l.DrainMs < 0 || l.WriteMiBPerSec <= 0 {
		t.Fatalf("replication report %+v", l)
	}
	var out strings.Builder
	r.writeText(&out)
	if !strings.Contains(out.String(), "lag KiB     master - slave commitLogMaxOffset") {
		t.Fatalf("text lacks the lag line:\n%s", out.String())
	}
	// A slave command without a master command is refused.
	_, _, err := modeResult(context.Background(), "produce", []string{"-b", master, "-slave", slave, "-slave-cmd", "true", "-m", "1"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-slave-cmd needs") {
		t.Fatalf("-slave-cmd without -server-cmd: err = %v", err)
	}
}
