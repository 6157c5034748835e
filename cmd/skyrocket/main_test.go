package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/server"
)

func parse(t *testing.T, args ...string) *options {
	t.Helper()
	o, _, err := parseFlags(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestBrokerConfig_AllInOneDefaults(t *testing.T) {
	t.Setenv("NAMESRV_ADDR", "10.9.9.9:9876") // not read by skyrocket
	data := t.TempDir()
	b, err := brokerConfig(parse(t), data, "127.0.0.1:9876")
	if err != nil {
		t.Fatal(err)
	}
	c := b.cfg
	if c.Broker.NamesrvAddr != "127.0.0.1:9876" || c.Broker.BrokerIP1 != "127.0.0.1" || c.Broker.BrokerName != "broker-a" ||
		!c.Broker.EnablePropertyFilter || c.Server.ListenPort != 10911 || c.Store.HaListenPort != 10912 ||
		c.Store.StorePathRootDir != filepath.Join(data, "store") {
		t.Errorf("defaults: namesrv %q ip %q name %q filter %v port %d ha %d store %q", c.Broker.NamesrvAddr, c.Broker.BrokerIP1,
			c.Broker.BrokerName, c.Broker.EnablePropertyFilter, c.Server.ListenPort, c.Store.HaListenPort, c.Store.StorePathRootDir)
	}
}

func TestBrokerConfig_FileThenExplicitFlags(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "broker.conf")
	text := "brokerName=b7\nlistenPort=20911\nstorePathRootDir=/srv/rmq\nnamesrvAddr=10.0.0.1:9876\nenablePropertyFilter=false\nbrokerIP1=10.0.0.5\n"
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()

	// The file overrides the all-in-one defaults ...
	b, err := brokerConfig(parse(t, "-c", conf), data, "127.0.0.1:9876")
	if err != nil {
		t.Fatal(err)
	}
	c := b.cfg
	if c.Broker.BrokerName != "b7" || c.Server.ListenPort != 20911 || c.Store.StorePathRootDir != "/srv/rmq" ||
		c.Broker.EnablePropertyFilter || c.Broker.BrokerIP1 != "10.0.0.5" || c.Broker.NamesrvAddr != "127.0.0.1:9876;10.0.0.1:9876" {
		t.Errorf("file: %+v %+v", c.Broker, c.Store.StorePathRootDir)
	}
	// ... and flags given explicitly override the file.
	b, err = brokerConfig(parse(t, "-c", conf, "-port", "30911", "-data", data), data, "127.0.0.1:9876")
	if err != nil {
		t.Fatal(err)
	}
	if b.cfg.Server.ListenPort != 30911 || b.cfg.Store.HaListenPort != 30912 || b.cfg.Store.StorePathRootDir != filepath.Join(data, "store") {
		t.Errorf("flags: port %d ha %d store %q", b.cfg.Server.ListenPort, b.cfg.Store.HaListenPort, b.cfg.Store.StorePathRootDir)
	}
}

func TestBrokerConfig_BadFile(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "broker.conf")
	if err := os.WriteFile(conf, []byte("flushDiskType=SOMETIMES\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := brokerConfig(parse(t, "-c", conf), t.TempDir(), "127.0.0.1:9876"); err == nil {
		t.Error("bad flushDiskType accepted")
	}
}

func TestNamesrvOptions_UnderData(t *testing.T) {
	data := t.TempDir()
	opts, addr := namesrvOptions(parse(t, "-namesrv-port", "19876", "-bind", "127.0.0.2"), data)
	if opts.ListenAddr != "127.0.0.2:19876" || addr != "127.0.0.2:19876" || opts.KVConfigPath != filepath.Join(data, "namesrv", "kvConfig.json") {
		t.Errorf("listen %s addr %s kv %s", opts.ListenAddr, addr, opts.KVConfigPath)
	}
	opts, addr = namesrvOptions(parse(t), data)
	if opts.ListenAddr != "0.0.0.0:9876" || addr != "127.0.0.1:9876" {
		t.Errorf("default: listen %s addr %s", opts.ListenAddr, addr)
	}
	if got := opts.Config.Format(); got == "" {
		t.Error("no namesrv configuration")
	}
}

func TestParseFlags_Drain(t *testing.T) {
	t.Setenv("SKYROCKET_DRAIN", "")
	if o := parse(t); o.drain != server.DefaultDrainWindow {
		t.Errorf("default drain %v, want %v", o.drain, server.DefaultDrainWindow)
	}
	if o := parse(t, "-drain", "0"); o.drain != 0 {
		t.Errorf("-drain 0: %v", o.drain)
	}
	if o := parse(t, "-drain", "1m"); o.drain != time.Minute {
		t.Errorf("-drain 1m: %v", o.drain)
	}
	t.Setenv("SKYROCKET_DRAIN", "12")
	if o := parse(t); o.drain != 12*time.Second {
		t.Errorf("$SKYROCKET_DRAIN=12: %v", o.drain)
	}
	if _, _, err := parseFlags([]string{"-drain", "soon"}, io.Discard); err == nil {
		t.Error("-drain soon accepted")
	}
	t.Setenv("SKYROCKET_DRAIN", "-3s")
	if _, _, err := parseFlags(nil, io.Discard); err == nil {
		t.Error("$SKYROCKET_DRAIN=-3s accepted")
	}
}
