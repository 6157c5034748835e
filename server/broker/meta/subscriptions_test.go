package meta

import (
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

func TestSubscriptionManager_Find_AutoCreatesValidNamesOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "subscriptionGroup.json")
	m, err := NewSubscriptionManager(path, true, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Find("G1"); !ok {
		t.Fatal("G1 not auto-created")
	}
	if _, ok := m.Find("../x"); ok {
		t.Fatal("auto-created an invalid group name")
	}
	if c, ok := m.Get(GroupOnsAPIPull); !ok || !c.ConsumeBroadcastEnable {
		t.Fatalf("built-in group %+v", c)
	}
	m.Close()

	off, err := NewSubscriptionManager(path, false, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	if _, ok := off.Get("G1"); !ok {
		t.Fatal("G1 missing after reload")
	}
	if _, ok := off.Find("G2"); ok {
		t.Fatal("auto-created with autoCreate off")
	}
	if _, ok := off.Find("CID_RMQ_SYS_X"); !ok {
		t.Fatal("system group not auto-created with autoCreate off")
	}
}

func TestSubscriptionManager_ReplaceIfNewer(t *testing.T) {
	m, err := NewSubscriptionManager(filepath.Join(t.TempDir(), "subscriptionGroup.json"), false, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	w := SubscriptionWrapper{DataVersion: protocol.DataVersion{Timestamp: 1, Counter: 7},
		SubscriptionGroupTable: map[string]protocol.SubscriptionGroupConfig{"M": {RetryQueueNums: 2}}}
	if !m.ReplaceIfNewer(w) || m.ReplaceIfNewer(w) {
		t.Fatal("replaced not exactly once")
	}
	if c, ok := m.Get("M"); !ok || c.GroupName != "M" || c.RetryQueueNums != 2 {
		t.Fatalf("M = %+v", c)
	}
	if _, ok := m.Get(GroupToolsConsumer); ok {
		t.Fatal("the master's table replaces the built-in groups (Java: clear, putAll)")
	}
}
