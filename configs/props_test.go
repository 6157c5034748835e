package configs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/skyrocket-mq/skyrocket/compat"
)

func TestApply_ParsesLikeJava(t *testing.T) {
	b := NewBroker()
	unknown, err := Apply(map[string]string{
		"brokerName":                  " broker-x ", // trimmed
		"brokerId":                    "+3",         // Integer.parseInt accepts a sign
		"autoCreateTopicEnable":       "FALSE",
		"traceTopicEnable":            "TrUe",
		"aclEnable":                   "yes", // Boolean.parseBoolean: not "true" means false
		"consumerFallbehindThreshold": "9223372036854775807",
		"brokerRole":                  "SLAVE",
		"flushDiskType":               "SYNC_FLUSH",
		"messageDelayLevel":           "1s 2s",
		"enableBatchPush":             "true", // setter name of field isEnableBatchPush
		"writeBufferHighWaterMark":    "65536",
		"noSuchKey":                   "1",
		"another":                     "2",
	}, b.Targets()...)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"another", "noSuchKey"}; !slices.Equal(unknown, want) {
		t.Errorf("unknown = %v, want %v", unknown, want)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"brokerName", b.Broker.BrokerName, "broker-x"},
		{"brokerId", b.Broker.BrokerID, int64(3)},
		{"autoCreateTopicEnable", b.Broker.AutoCreateTopicEnable, false},
		{"traceTopicEnable", b.Broker.TraceTopicEnable, true},
		{"aclEnable", b.Broker.ACLEnable, false},
		{"consumerFallbehindThreshold", b.Broker.ConsumerFallbehindThreshold, int64(9223372036854775807)},
		{"brokerRole", b.Store.BrokerRole, Slave},
		{"flushDiskType", b.Store.FlushDiskType, SyncFlush},
		{"messageDelayLevel", b.Store.MessageDelayLevel, "1s 2s"},
		{"enableBatchPush", b.Store.EnableBatchPush, true},
		{"writeBufferHighWaterMark (server)", b.Server.WriteBufferHighWaterMark, int32(65536)},
		{"writeBufferHighWaterMark (client)", b.Client.WriteBufferHighWaterMark, int32(65536)},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestApply_InvalidValuesReportedOthersApplied(t *testing.T) {
	b := NewBroker()
	before := b.Broker.DefaultTopicQueueNums
	_, err := Apply(map[string]string{
		"defaultTopicQueueNums": "8x",
		"listenPort":            "3000000000", // beyond int32
		"brokerRole":            "master",     // Java enum names only
		"brokerClusterName":     "C1",
	}, b.Targets()...)
	if !errors.Is(err, ErrInvalidValue) {
		t.Fatalf("err = %v, want ErrInvalidValue", err)
	}
	for _, key := range []string{"defaultTopicQueueNums", "listenPort", "brokerRole"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error does not name %s: %v", key, err)
		}
	}
	if !errors.Is(err, ErrUnknownEnum) {
		t.Errorf("err does not wrap ErrUnknownEnum: %v", err)
	}
	if b.Broker.DefaultTopicQueueNums != before || b.Server.ListenPort != 10911 || b.Store.BrokerRole != AsyncMaster {
		t.Errorf("invalid values changed fields: %d %d %v", b.Broker.DefaultTopicQueueNums, b.Server.ListenPort, b.Store.BrokerRole)
	}
	if b.Broker.BrokerClusterName != "C1" {
		t.Errorf("valid value not applied: %q", b.Broker.BrokerClusterName)
	}
}

func TestApply_BadTarget(t *testing.T) {
	var nilCfg *BrokerConfig
	for _, target := range []any{BrokerConfig{}, nilCfg, new(int)} {
		if _, err := Apply(map[string]string{"brokerName": "x"}, target); !errors.Is(err, ErrBadTarget) {
			t.Errorf("Apply(%T) err = %v, want ErrBadTarget", target, err)
		}
	}
}

func TestProperties_NullHandling(t *testing.T) {
	c := DefaultMessageStoreConfig()
	printed := compat.PropertiesMap(Properties(&c))
	if v, ok := printed["haMasterAddress"]; !ok || v != "" {
		t.Errorf("Properties: haMasterAddress = %q, %v; want printed empty", v, ok)
	}
	if _, ok := printed["isEnableBatchPush"]; !ok {
		t.Error("Properties: field isEnableBatchPush is printed under its Java field name")
	}
	object := compat.PropertiesMap(ObjectProperties(c))
	if _, ok := object["haMasterAddress"]; ok {
		t.Error("ObjectProperties includes a null String")
	}
	if object["brokerRole"] != "ASYNC_MASTER" || object["flushDiskType"] != "ASYNC_FLUSH" {
		t.Errorf("enums: %q %q", object["brokerRole"], object["flushDiskType"])
	}
	if Properties(42) != nil {
		t.Error("Properties of a non-struct is not nil")
	}
}

func TestLoadProperties_File(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.conf")
	if err := os.WriteFile(path, []byte("a = 1\nb: x\\\n  y\na=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadProperties(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a": "2", "b": "xy"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := LoadProperties(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file err = %v", err)
	}
	if err := os.WriteFile(path, []byte(`k=\u12`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadProperties(path); !errors.Is(err, compat.ErrMalformedEscape) {
		t.Errorf("malformed file err = %v", err)
	}
}

func TestEnums_Text(t *testing.T) {
	for _, r := range []BrokerRole{AsyncMaster, SyncMaster, Slave} {
		var back BrokerRole
		if err := back.UnmarshalText([]byte(r.String())); err != nil || back != r {
			t.Errorf("BrokerRole %v round trip: %v %v", r, back, err)
		}
	}
	for _, f := range []FlushDiskType{SyncFlush, AsyncFlush} {
		var back FlushDiskType
		if err := back.UnmarshalText([]byte(f.String())); err != nil || back != f {
			t.Errorf("FlushDiskType %v round trip: %v %v", f, back, err)
		}
	}
	if s := BrokerRole(9).String(); s != "BrokerRole(9)" {
		t.Errorf("out of range: %s", s)
	}
	var f FlushDiskType
	if err := f.UnmarshalText([]byte("sync_flush")); !errors.Is(err, ErrUnknownEnum) {
		t.Errorf("lower case accepted: %v", err)
	}
}
