package configs

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// Every sample file loads without an unknown key or a bad value, and resolves.
func TestSamples_LoadWithoutUnknownKeys(t *testing.T) {
	var n int
	err := fs.WalkDir(Samples, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, err := fs.ReadFile(Samples, path)
		if err != nil {
			return err
		}
		kvs, err := compat.ParseProperties(data)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if len(kvs) == 0 {
			t.Errorf("%s: no properties", path)
		}
		props := compat.PropertiesMap(kvs)
		if path == "namesrv.conf" {
			ns := NewNamesrv()
			if unknown, err := ns.Load(props); err != nil || len(unknown) > 0 {
				t.Errorf("%s: unknown %v, err %v", path, unknown, err)
			}
			return nil
		}
		b := NewBroker()
		unknown, err := b.Load(props)
		if err != nil || len(unknown) > 0 {
			t.Errorf("%s: unknown %v, err %v", path, unknown, err)
		}
		if err := b.Resolve(); err != nil {
			t.Errorf("%s: Resolve: %v", path, err)
		}
		// The file name says the role: "-s" files are slaves.
		if slave := strings.HasSuffix(path, "-s.properties"); slave != (b.Store.BrokerRole == Slave) {
			t.Errorf("%s: role %v", path, b.Store.BrokerRole)
		}
		if strings.HasPrefix(path, "2m-2s-sync/") && !strings.HasSuffix(path, "-s.properties") && b.Store.BrokerRole != SyncMaster {
			t.Errorf("%s: role %v, want SYNC_MASTER", path, b.Store.BrokerRole)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 13 {
		t.Errorf("%d sample files, want 13 (broker.conf, namesrv.conf, 11 cluster layout files)", n)
	}
}

func TestSamples_BrokerConf(t *testing.T) {
	data, err := fs.ReadFile(Samples, "broker.conf")
	if err != nil {
		t.Fatal(err)
	}
	kvs, _ := compat.ParseProperties(data)
	b := NewBroker()
	if _, err := b.Load(compat.PropertiesMap(kvs)); err != nil {
		t.Fatal(err)
	}
	if !b.Broker.EnablePropertyFilter || b.Broker.BrokerName != "broker-a" || b.Store.FileReservedTime != 48 ||
		b.Store.DeleteWhen != "04" || b.Broker.BrokerClusterName != "DefaultCluster" {
		t.Errorf("broker.conf values: %+v %+v", b.Broker, b.Store)
	}
}
