package server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// freePort: conformance/testkit.BrokerPort (p-2 and p+1 free too: broker VIP and HA ports).
func freePort(t testing.TB) int { return testkit.BrokerPort(t) }

func TestNode_StartShutdown_AllInOne(t *testing.T) {
	dir := t.TempDir()
	nsPort, brPort := freePort(t), freePort(t)

	n := configs.NewNamesrv()
	n.Namesrv.KvConfigPath = filepath.Join(dir, "namesrv", "kvConfig.json")
	n.Namesrv.ConfigStorePath = filepath.Join(dir, "namesrv", "namesrv.properties")
	n.Server.ListenPort = int32(nsPort)
	nsOpts := NamesrvOptions(n)
	nsOpts.ListenAddr = fmt.Sprintf("127.0.0.1:%d", nsPort)

	b := configs.NewBroker()
	if _, err := b.Load(map[string]string{
		"brokerName": "broker-a", "brokerIP1": "127.0.0.1", "listenPort": fmt.Sprint(brPort),
		"namesrvAddr": fmt.Sprintf("127.0.0.1:%d", nsPort), "storePathRootDir": filepath.Join(dir, "store"),
		"mappedFileSizeCommitLog": "1048576", "mappedFileSizeConsumeQueue": "6000", "maxHashSlotNum": "100", "maxIndexNum": "400",
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

	node, err := Start(&nsOpts, &brOpts)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("127.0.0.1:%d", brPort)
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(node.Namesrv.Routes().LiveBrokers(), want) {
		if time.Now().After(deadline) {
			node.Shutdown(context.Background())
			t.Fatalf("broker %s never registered: live %v", want, node.Namesrv.Routes().LiveBrokers())
		}
		time.Sleep(20 * time.Millisecond)
	}
	abort := filepath.Join(dir, "store", "abort")
	if _, err := os.Stat(abort); err != nil {
		t.Fatalf("abort file missing while running: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := node.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abort); !os.IsNotExist(err) {
		t.Errorf("abort file left after a clean shutdown: %v", err)
	}
}

func TestNode_Start_NothingOrBrokerFailure(t *testing.T) {
	if _, err := Start(nil, nil); err == nil {
		t.Error("Start(nil, nil) succeeded")
	}
	nsPort := freePort(t)
	n := configs.NewNamesrv()
	n.Namesrv.KvConfigPath = ""
	nsOpts := NamesrvOptions(n)
	nsOpts.ListenAddr = fmt.Sprintf("127.0.0.1:%d", nsPort)
	b := configs.NewBroker()
	b.Store.StorePathRootDir = t.TempDir()
	brOpts, err := BrokerOptions(b)
	if err != nil {
		t.Fatal(err)
	}
	brOpts.ListenAddr = "127.0.0.1:0" // refused by broker.New: the VIP and HA ports derive from it
	if _, err := Start(&nsOpts, &brOpts); err == nil || !strings.Contains(err.Error(), "broker") {
		t.Fatalf("Start with a bad broker: %v", err)
	}
	// The NameServer started first was shut down again: its port is free.
	l, err := net.Listen("tcp", nsOpts.ListenAddr)
	if err != nil {
		t.Fatalf("name server port still taken after a failed Start: %v", err)
	}
	l.Close()
}

func TestNewConsoleLogger_LevelAndFormat(t *testing.T) {
	var buf bytes.Buffer
	log, err := NewConsoleLogger(&buf, "WARN")
	if err != nil {
		t.Fatal(err)
	}
	log.Info().Msg("hidden")
	log.Warn().Str("remote", "1.2.3.4:5").Msg("shown")
	out := buf.String()
	if strings.Contains(out, "hidden") || !strings.Contains(out, "WRN shown remote=1.2.3.4:5") {
		t.Errorf("output %q", out)
	}
	if _, err := NewConsoleLogger(&buf, "loud"); err == nil {
		t.Error("bad level accepted")
	}
}

func TestDefaultLogLevel_Environment(t *testing.T) {
	t.Setenv(LogLevelEnv, "debug")
	if DefaultLogLevel() != "debug" {
		t.Errorf("DefaultLogLevel() = %q", DefaultLogLevel())
	}
	t.Setenv(LogLevelEnv, "")
	if DefaultLogLevel() != "info" {
		t.Errorf("DefaultLogLevel() = %q", DefaultLogLevel())
	}
}

// UPDATE_NAMESRV_CONFIG over the wire reaches NamesrvConfiguration and is persisted to
// configStorePath; GET_NAMESRV_CONFIG answers the updated text.
func TestNode_NamesrvConfig_UpdateOverTheWire(t *testing.T) {
	dir := t.TempDir()
	n := configs.NewNamesrv()
	n.Namesrv.KvConfigPath = ""
	n.Namesrv.ConfigStorePath = filepath.Join(dir, "namesrv.properties")
	opts := NamesrvOptions(n)
	opts.ListenAddr = "127.0.0.1:0"
	node, err := Start(&opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer node.Shutdown(context.Background())
	c := remoting.NewClient(remoting.ClientOptions{})
	defer c.Close()
	call := func(code protocol.RequestCode, body string) *protocol.Command {
		req := protocol.NewRequest(code)
		req.Body = []byte(body)
		resp, err := c.Invoke(context.Background(), node.Namesrv.Addr(), req, 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if resp := call(protocol.CodeUpdateNamesrvConfig, "orderMessageEnable=true\n"); resp.Code != 0 {
		t.Fatalf("update: code %d %q", resp.Code, resp.Remark)
	}
	if resp := call(protocol.CodeGetNamesrvConfig, ""); !strings.Contains(string(resp.Body), "orderMessageEnable=true\n") {
		t.Errorf("GET_NAMESRV_CONFIG after update:\n%s", resp.Body)
	}
	b, err := os.ReadFile(n.Namesrv.ConfigStorePath)
	if err != nil || !strings.Contains(string(b), "orderMessageEnable=true\n") {
		t.Errorf("persisted file: %v\n%s", err, b)
	}
	if resp := call(protocol.CodeUpdateNamesrvConfig, "kvConfigPath=/tmp/x\n"); resp.Code != int32(protocol.ResNoPermission) {
		t.Errorf("black-listed update: code %d %q", resp.Code, resp.Remark)
	}
}
