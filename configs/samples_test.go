package configs

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
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

// The master/slave layouts Java ships (distribution/conf/2m-2s-sync and 2m-2s-async of
// 4.9.8): all four files, every key of Java's sample with Java's value, loaded through
// LoadFile and Resolve as mqbroker -c loads them.
func TestSamples_MasterSlaveLayouts_JavaFilesComplete(t *testing.T) {
	for _, layout := range []struct {
		dir    string
		master BrokerRole
	}{{"2m-2s-sync", SyncMaster}, {"2m-2s-async", AsyncMaster}} {
		for _, f := range []struct {
			name, brokerName string
			id               int64
			slave            bool
		}{{"broker-a", "broker-a", 0, false}, {"broker-a-s", "broker-a", 1, true}, {"broker-b", "broker-b", 0, false}, {"broker-b-s", "broker-b", 1, true}} {
			path := layout.dir + "/" + f.name + ".properties"
			b := NewBroker()
			unknown, err := b.LoadFile(path)
			if err != nil || len(unknown) > 0 {
				t.Errorf("%s: unknown %v, err %v", path, unknown, err)
				continue
			}
			want := map[string]string{"brokerClusterName": "DefaultCluster", "brokerName": f.brokerName,
				"brokerId": strconv.FormatInt(f.id, 10), "deleteWhen": "04", "fileReservedTime": "48",
				"brokerRole": layout.master.String(), "flushDiskType": "ASYNC_FLUSH"}
			if f.slave {
				want["brokerRole"] = "SLAVE"
			}
			if !maps.Equal(b.FileProps, want) {
				t.Errorf("%s: properties %v, want Java's %v", path, b.FileProps, want)
			}
			if err := b.Resolve(); err != nil {
				t.Errorf("%s: Resolve: %v", path, err)
				continue
			}
			if b.Broker.BrokerName != f.brokerName || b.Broker.BrokerID != f.id || b.Broker.BrokerClusterName != "DefaultCluster" ||
				b.Store.FlushDiskType != AsyncFlush || b.Store.DeleteWhen != "04" || b.Store.FileReservedTime != 48 {
				t.Errorf("%s: loaded %s/%s id %d, %v, deleteWhen %s, fileReservedTime %d", path, b.Broker.BrokerClusterName,
					b.Broker.BrokerName, b.Broker.BrokerID, b.Store.FlushDiskType, b.Store.DeleteWhen, b.Store.FileReservedTime)
			}
			if wantRole := map[bool]BrokerRole{false: layout.master, true: Slave}[f.slave]; b.Store.BrokerRole != wantRole {
				t.Errorf("%s: role %v, want %v", path, b.Store.BrokerRole, wantRole)
			}
		}
	}
}

// make run-ha's pair (configs/run-ha): the files load as mqnamesrv/mqbroker -c load
// them, the master and slave form one broker group registered with the pair's
// NameServer, no port clashes with another (VIP listenPort-2, HA listenPort+1 — also a
// Java slave's) or with `make run`'s defaults, and run.sh checks exactly those ports.
func TestSamples_RunHA_PairLoadsWithoutClashes(t *testing.T) {
	ns := NewNamesrv()
	if unknown, err := ns.LoadFile("run-ha/namesrv.conf"); err != nil || len(unknown) > 0 {
		t.Fatalf("namesrv.conf: unknown %v, err %v", unknown, err)
	}
	load := func(path string) *Broker {
		b := NewBroker()
		if unknown, err := b.LoadFile(path); err != nil || len(unknown) > 0 {
			t.Fatalf("%s: unknown %v, err %v", path, unknown, err)
		}
		if err := b.Resolve(); err != nil {
			t.Fatalf("%s: Resolve: %v", path, err)
		}
		return b
	}
	m, s := load("run-ha/broker-a.properties"), load("run-ha/broker-a-s.properties")
	if m.Store.BrokerRole != SyncMaster || m.Broker.BrokerID != 0 || s.Store.BrokerRole != Slave || s.Broker.BrokerID != 1 {
		t.Errorf("roles: master %v id %d, slave %v id %d", m.Store.BrokerRole, m.Broker.BrokerID, s.Store.BrokerRole, s.Broker.BrokerID)
	}
	nsAddr := fmt.Sprintf("127.0.0.1:%d", ns.Server.ListenPort)
	for _, b := range []*Broker{m, s} {
		if b.Broker.BrokerName != "broker-a" || b.Broker.BrokerClusterName != "DefaultCluster" || b.Broker.NamesrvAddr != nsAddr ||
			b.Broker.BrokerIP1 != "127.0.0.1" || b.Broker.BrokerIP2 != "127.0.0.1" || !strings.HasPrefix(b.Store.StorePathRootDir, "./data-ha/") {
			t.Errorf("%s: %s/%s namesrv %s IPs %s %s store %s", b.ConfigPath, b.Broker.BrokerClusterName, b.Broker.BrokerName,
				b.Broker.NamesrvAddr, b.Broker.BrokerIP1, b.Broker.BrokerIP2, b.Store.StorePathRootDir)
		}
	}
	if m.Store.MappedFileSizeCommitLog != s.Store.MappedFileSizeCommitLog {
		t.Errorf("CommitLog file sizes differ: master %d, slave %d", m.Store.MappedFileSizeCommitLog, s.Store.MappedFileSizeCommitLog)
	}
	if m.Store.StorePathRootDir == s.Store.StorePathRootDir || !strings.HasPrefix(ns.Namesrv.KvConfigPath, "./data-ha/") {
		t.Errorf("stores %s and %s, kvConfigPath %s", m.Store.StorePathRootDir, s.Store.StorePathRootDir, ns.Namesrv.KvConfigPath)
	}

	ports := map[int32]string{9876: "make run's NameServer", 10909: "make run's VIP", 10911: "make run's broker", 10912: "make run's HA"}
	var mine []int
	take := func(p int32, what string) {
		if other, ok := ports[p]; ok {
			t.Errorf("port %d: %s clashes with %s", p, what, other)
		}
		ports[p] = what
		mine = append(mine, int(p))
	}
	take(ns.Server.ListenPort, "NameServer")
	take(m.Server.ListenPort-2, "master VIP")
	take(m.Server.ListenPort, "master")
	take(m.Store.HaListenPort, "master HA")
	take(s.Server.ListenPort-2, "slave VIP")
	take(s.Server.ListenPort, "slave")
	if ports[s.Store.HaListenPort] != "" { // a Java slave listens there too
		t.Errorf("slave HA port %d clashes with %s", s.Store.HaListenPort, ports[s.Store.HaListenPort])
	}
	script, err := os.ReadFile("run-ha/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(mine)
	if want := "for port in " + strings.Trim(fmt.Sprint(mine), "[]") + "; do"; !strings.Contains(string(script), want) {
		t.Errorf("run.sh does not check the pair's ports: want the line %q", want)
	}
}
