package server

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/compat"
	"github.com/skyrocket-mq/skyrocket/configs"
)

func TestNamesrvOptions_Mapping(t *testing.T) {
	n := configs.NewNamesrv()
	if _, err := n.Load(map[string]string{
		"listenPort":                      "19876",
		"kvConfigPath":                    "/tmp/x/kv.json",
		"orderMessageEnable":              "true",
		"serverChannelMaxIdleTimeSeconds": "30",
		"configStorePath":                 "/tmp/x/ns.properties",
	}); err != nil {
		t.Fatal(err)
	}
	o := NamesrvOptions(n)
	if o.ListenAddr != "0.0.0.0:19876" || o.KVConfigPath != "/tmp/x/kv.json" || !o.OrderMessageEnable || o.IdleTimeout != 30*time.Second {
		t.Errorf("options %+v", o)
	}
	if o.Config == nil || !strings.Contains(o.Config.Format(), "configStorePath=/tmp/x/ns.properties\n") {
		t.Errorf("Config missing or without the file's path")
	}
}

func TestNamesrvOptions_Defaults(t *testing.T) {
	o := NamesrvOptions(configs.NewNamesrv())
	home, _ := os.UserHomeDir()
	if o.ListenAddr != "0.0.0.0:9876" || o.KVConfigPath != filepath.Join(home, "namesrv", "kvConfig.json") ||
		o.OrderMessageEnable || o.IdleTimeout != 120*time.Second {
		t.Errorf("options %+v", o)
	}
}

func TestNamesrvOptions_EveryPropertyMappedOrListed(t *testing.T) {
	mapped := map[string]bool{"listenPort": true, "kvConfigPath": true, "orderMessageEnable": true,
		"serverChannelMaxIdleTimeSeconds": true, "configStorePath": true, "configBlackList": true,
		"writeBufferHighWaterMark": true, "writeBufferLowWaterMark": true}
	for _, target := range configs.NewNamesrv().Targets() {
		for _, k := range propKeys(target) {
			_, listed := namesrvIneffective[k]
			if mapped[k] == listed {
				t.Errorf("%s: mapped %v, listed as ineffective %v (want exactly one)", k, mapped[k], listed)
			}
		}
	}
}

func TestNamesrvConfiguration_UpdatePersistsJavaText(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "namesrv.conf")
	if err := compat.String2File([]byte("listenPort=19876\nmyKey=a\n"), path); err != nil {
		t.Fatal(err)
	}
	n := configs.NewNamesrv()
	if _, err := n.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	c := NewNamesrvConfiguration(n)
	if err := c.Update(map[string]string{"orderMessageEnable": "true", "myKey": "b", "otherKey": "x", "listenPort": "oops"}); err != nil {
		t.Fatal(err)
	}
	got := c.Current()
	if !got.Namesrv.OrderMessageEnable || got.FileProps["myKey"] != "b" || got.Server.ListenPort != 19876 {
		t.Errorf("after update: order %v myKey %q port %d", got.Namesrv.OrderMessageEnable, got.FileProps["myKey"], got.Server.ListenPort)
	}
	if _, ok := got.FileProps["otherKey"]; ok {
		t.Error("a key neither a field nor in the file was added (Java's mergeIfExist drops it)")
	}
	if n.Namesrv.OrderMessageEnable {
		t.Error("Update changed the caller's configs.Namesrv")
	}
	// Persisted: the whole configuration, in Java's properties text, into configStorePath.
	kvs, err := configs.LoadProperties(path)
	if err != nil {
		t.Fatal(err)
	}
	if kvs["orderMessageEnable"] != "true" || kvs["myKey"] != "b" || kvs["listenPort"] != "19876" || kvs["kvConfigPath"] == "" {
		t.Errorf("persisted %v", kvs)
	}
	if c.Format() != string(got.PropertiesText()) {
		t.Error("Format differs from PropertiesText")
	}
	if _, err := os.Stat(path + ".bak"); err != nil {
		t.Errorf("no .bak of the previous file: %v", err)
	}
}

func TestNamesrvConfiguration_BlackList(t *testing.T) {
	c := NewNamesrvConfiguration(configs.NewNamesrv())
	for _, k := range []string{"configBlackList", "configStorePath", "kvConfigPath", "rocketmqHome"} {
		found := false
		for _, b := range c.BlackList() {
			found = found || b == k
		}
		if !found {
			t.Errorf("black list %v lacks %s", c.BlackList(), k)
		}
	}
	if err := c.Update(map[string]string{"kvConfigPath": "/etc/passwd"}); !errors.Is(err, configs.ErrBlackListed) {
		t.Errorf("black-listed update: %v", err)
	}
}

func TestNamesrvConfiguration_UpdateWithoutStorePath(t *testing.T) {
	n := configs.NewNamesrv()
	n.Namesrv.ConfigStorePath = ""
	c := NewNamesrvConfiguration(n)
	if err := c.Update(map[string]string{"orderMessageEnable": "true"}); err != nil {
		t.Fatal(err)
	}
	if !c.Current().Namesrv.OrderMessageEnable {
		t.Error("not applied")
	}
}
