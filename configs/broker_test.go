package configs

import (
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skyrocket-mq/skyrocket/compat"
)

func TestBroker_Resolve_JavaRules(t *testing.T) {
	b := NewBroker()
	b.Broker.BrokerID = 5
	b.Server.ListenPort = 20911
	if err := b.Resolve(); err != nil {
		t.Fatal(err)
	}
	if b.Broker.BrokerID != 0 || b.Store.HaListenPort != 20912 {
		t.Errorf("master: brokerId %d haListenPort %d, want 0 and 20912", b.Broker.BrokerID, b.Store.HaListenPort)
	}

	b = NewBroker()
	b.Store.BrokerRole = Slave
	if err := b.Resolve(); !errors.Is(err, ErrSlaveBrokerID) {
		t.Errorf("slave with brokerId 0: err = %v", err)
	}
	b.Broker.BrokerID = 2
	if err := b.Resolve(); err != nil || b.Broker.BrokerID != 2 {
		t.Errorf("slave with brokerId 2: %v, id %d", err, b.Broker.BrokerID)
	}

	b = NewBroker()
	b.Store.EnableDLegerCommitLog = true
	if err := b.Resolve(); err != nil || b.Broker.BrokerID != -1 {
		t.Errorf("dledger: %v, id %d", err, b.Broker.BrokerID)
	}

	b = NewBroker()
	b.Broker.NamesrvAddr = "127.0.0.1:9876;nohost"
	err := b.Resolve()
	if !errors.Is(err, ErrBadNamesrvAddr) || !strings.Contains(err.Error(), "The Name Server Address[127.0.0.1:9876;nohost] illegal") {
		t.Errorf("bad namesrvAddr: %v", err)
	}
}

func TestCheckNamesrvAddr(t *testing.T) {
	good := []string{"127.0.0.1:9876", "a:1;b:2", "a:1;", "host:0", "[::1]:9876", ":9876"}
	bad := []string{"a", ";a:1", "a:x", "a:65536", "a:-1", "a:1;;b:2", "a:"}
	for _, s := range good {
		if err := CheckNamesrvAddr(s); err != nil {
			t.Errorf("CheckNamesrvAddr(%q) = %v", s, err)
		}
	}
	for _, s := range bad {
		if err := CheckNamesrvAddr(s); !errors.Is(err, ErrBadNamesrvAddr) {
			t.Errorf("CheckNamesrvAddr(%q) = %v, want ErrBadNamesrvAddr", s, err)
		}
	}
}

func TestBroker_LoadFile_KeepsFileAndPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broker.conf")
	text := "brokerName=b1\nlistenPort=30911\ncustomKey=v\nrmqAddressServerDomain=ns.example:80\n"
	if err := compat.String2File([]byte(text), path); err != nil {
		t.Fatal(err)
	}
	b := NewBroker()
	unknown, err := b.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(unknown) != 1 || unknown[0] != "customKey" {
		t.Errorf("unknown = %v, want [customKey]", unknown)
	}
	if b.ConfigPath != path || b.Broker.BrokerName != "b1" || b.Server.ListenPort != 30911 {
		t.Errorf("loaded %q %q %d", b.ConfigPath, b.Broker.BrokerName, b.Server.ListenPort)
	}
	if got := b.AddressServerURL(); got != "http://ns.example:80/rocketmq/nsaddr" {
		t.Errorf("AddressServerURL = %s", got)
	}
	if got := NewBroker().AddressServerURL(); got != "http://jmenv.tbsite.net:8080/rocketmq/nsaddr" {
		t.Errorf("default AddressServerURL = %s", got)
	}
	if _, err := NewBroker().LoadFile(filepath.Join(t.TempDir(), "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestBroker_AllProperties_RoundTrip(t *testing.T) {
	b := NewBroker()
	if _, err := b.Load(map[string]string{"brokerName": "b1", "brokerRole": "SYNC_MASTER", "customKey": "kept", "namesrvAddr": "h:9876"}); err != nil {
		t.Fatal(err)
	}
	all := compat.PropertiesMap(b.AllProperties())
	if all["customKey"] != "kept" || all["brokerName"] != "b1" || all["brokerRole"] != "SYNC_MASTER" {
		t.Errorf("AllProperties missing values: %v", all)
	}
	if _, ok := all["haMasterAddress"]; ok {
		t.Error("null String reported")
	}
	if _, ok := all["isEnableBatchPush"]; !ok {
		t.Error("field name isEnableBatchPush missing (Java reports field names)")
	}
	kvs, err := compat.ParseProperties(b.PropertiesText())
	if err != nil {
		t.Fatal(err)
	}
	// Every key appears once.
	if len(kvs) != len(all) {
		t.Errorf("PropertiesText has %d lines for %d keys", len(kvs), len(all))
	}
	// Loading the text into a fresh broker gives the same configuration.
	c := NewBroker()
	c.Broker.BrokerIP1 = "203.0.113.9" // overwritten by the text
	if _, err := c.Load(compat.PropertiesMap(kvs)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.AllProperties(), b.AllProperties()) {
		t.Errorf("round trip differs:\n%s\n---\n%s", c.PropertiesText(), b.PropertiesText())
	}
}

func TestBroker_Update(t *testing.T) {
	b := NewBroker()
	if _, err := b.Load(map[string]string{"customKey": "old", "brokerPermission": "6"}); err != nil {
		t.Fatal(err)
	}
	n, err := b.Update([]byte("brokerPermission=4\ncustomKey=new\nnotInFile=x\nflushDiskType=SYNC_FLUSH\n"))
	if err != nil {
		t.Fatal(err)
	}
	if n.Broker.BrokerPermission != 4 || n.Store.FlushDiskType != SyncFlush || n.FileProps["customKey"] != "new" {
		t.Errorf("update not applied: %d %v %q", n.Broker.BrokerPermission, n.Store.FlushDiskType, n.FileProps["customKey"])
	}
	if _, ok := n.FileProps["notInFile"]; ok {
		t.Error("unknown key added (Java: mergeIfExist)")
	}
	if b.Broker.BrokerPermission != 6 || b.FileProps["customKey"] != "old" || b.Store.FlushDiskType != AsyncFlush {
		t.Error("Update changed the original")
	}

	for _, body := range []string{"rocketmqHome=/x", "brokerConfigPath=/x", "configBlackList=", "a=1\nconfigBlackList=x"} {
		if _, err := b.Update([]byte(body)); !errors.Is(err, ErrBlackListed) {
			t.Errorf("Update(%q) err = %v, want ErrBlackListed", body, err)
		}
	}
	// The configured black list counts too.
	b.Broker.ConfigBlackList = "configBlackList;brokerConfigPath;listenPort"
	if _, err := b.Update([]byte("listenPort=1")); !errors.Is(err, ErrBlackListed) {
		t.Errorf("configured black list ignored: %v", err)
	}
	if _, err := b.Update([]byte(`a=\u00`)); !errors.Is(err, ErrBadProperties) {
		t.Errorf("bad body err = %v, want ErrBadProperties", err)
	}
	n, err = b.Update([]byte("brokerPermission=x\nbrokerName=nb"))
	if !errors.Is(err, ErrInvalidValue) || n == nil || n.Broker.BrokerName != "nb" || n.Broker.BrokerPermission != 6 {
		t.Errorf("invalid value: %v %+v", err, n)
	}
}

func TestNamesrv_LoadUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "namesrv.conf")
	if err := compat.String2File([]byte("listenPort=19876\norderMessageEnable=true\nconfigStorePath=/ignored\n"), path); err != nil {
		t.Fatal(err)
	}
	n := NewNamesrv()
	unknown, err := n.LoadFile(path)
	if err != nil || len(unknown) != 0 {
		t.Fatalf("LoadFile: %v %v", unknown, err)
	}
	if n.Server.ListenPort != 19876 || !n.Namesrv.OrderMessageEnable || n.Namesrv.ConfigStorePath != path {
		t.Errorf("loaded %d %v %q", n.Server.ListenPort, n.Namesrv.OrderMessageEnable, n.Namesrv.ConfigStorePath)
	}
	for _, k := range []string{"kvConfigPath", "configStorePath", "rocketmqHome", "configBlackList"} {
		if _, err := n.Update([]byte(k + "=x")); !errors.Is(err, ErrBlackListed) {
			t.Errorf("Update(%s) err = %v, want ErrBlackListed", k, err)
		}
	}
	u, err := n.Update([]byte("orderMessageEnable=false\nserverWorkerThreads=16"))
	if err != nil || u.Namesrv.OrderMessageEnable || u.Server.ServerWorkerThreads != 16 || !n.Namesrv.OrderMessageEnable {
		t.Errorf("Update: %v %+v", err, u)
	}
	all := compat.PropertiesMap(u.AllProperties())
	if all["listenPort"] != "19876" || all["orderMessageEnable"] != "false" || all["kvConfigPath"] == "" {
		t.Errorf("AllProperties: %v", all)
	}
	var sb strings.Builder
	if err := u.Print(&sb); err != nil || !strings.HasPrefix(sb.String(), "rocketmqHome=") || !strings.Contains(sb.String(), "\nlistenPort=19876\n") {
		t.Errorf("Print: %v %q", err, sb.String())
	}
}

func TestMessageStoreConfig_Paths(t *testing.T) {
	c := DefaultMessageStoreConfig()
	c.StorePathRootDir = "/data/store"
	cases := map[string]string{
		c.CommitLogDir():          "/data/store/commitlog",
		c.ConsumeQueueDir():       "/data/store/consumequeue",
		c.ConsumeQueueExtDir():    "/data/store/consumequeue_ext",
		c.IndexDir():              "/data/store/index",
		c.CheckpointPath():        "/data/store/checkpoint",
		c.AbortPath():             "/data/store/abort",
		c.LockPath():              "/data/store/lock",
		c.DelayOffsetPath():       "/data/store/config/delayOffset.json",
		c.TopicConfigPath():       "/data/store/config/topics.json",
		c.ConsumerOffsetPath():    "/data/store/config/consumerOffset.json",
		c.LmqConsumerOffsetPath(): "/data/store/config/lmqConsumerOffset.json",
		c.SubscriptionGroupPath(): "/data/store/config/subscriptionGroup.json",
		c.ConsumerFilterPath():    "/data/store/config/consumerFilter.json",
		c.TranStateTableDir():     "/data/store/transaction/statetable",
		c.TranRedoLogDir():        "/data/store/transaction/redolog",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("path %s, want %s", got, want)
		}
	}
	c.StorePathCommitLog = "/fast/commitlog"
	if c.CommitLogDir() != "/fast/commitlog" {
		t.Errorf("explicit commitlog dir ignored: %s", c.CommitLogDir())
	}
	if !strings.HasSuffix(DefaultBrokerConfigPath(), filepath.Join("store", "config", "broker.properties")) {
		t.Errorf("DefaultBrokerConfigPath = %s", DefaultBrokerConfigPath())
	}
}

func TestMessageStoreConfig_JavaGetters(t *testing.T) {
	c := DefaultMessageStoreConfig()
	if c.ConsumeQueueFileSize() != 6000000 {
		t.Errorf("ConsumeQueueFileSize = %d", c.ConsumeQueueFileSize())
	}
	c.MappedFileSizeConsumeQueue = 1001
	if c.ConsumeQueueFileSize() != 1020 {
		t.Errorf("rounded ConsumeQueueFileSize = %d, want 1020", c.ConsumeQueueFileSize())
	}
	for in, want := range map[int32]int32{5: 10, 75: 75, 99: 95} {
		c.DiskMaxUsedSpaceRatio = in
		if got := c.EffectiveDiskMaxUsedSpaceRatio(); got != want {
			t.Errorf("EffectiveDiskMaxUsedSpaceRatio(%d) = %d, want %d", in, got, want)
		}
	}
	c.TransientStorePoolEnable = true
	if !c.EffectiveTransientStorePoolEnable() {
		t.Error("pool off for an async-flush master")
	}
	c.BrokerRole = Slave
	if c.EffectiveTransientStorePoolEnable() {
		t.Error("pool on for a slave")
	}
	c.BrokerRole, c.FlushDiskType = AsyncMaster, SyncFlush
	if c.EffectiveTransientStorePoolEnable() {
		t.Error("pool on with SYNC_FLUSH")
	}
}

func FuzzBroker_Load(f *testing.F) {
	f.Add([]byte("brokerClusterName = DefaultCluster\nbrokerName = broker-a\nbrokerId = 0\nbrokerRole = ASYNC_MASTER\n"))
	f.Add([]byte("listenPort=x\nbrokerRole=master\ncustom=\\u4e2d\n"))
	f.Add([]byte("messageDelayLevel=1s \\\n 5s\nenableBatchPush=TRUE\nwriteBufferLowWaterMark=-1\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		kvs, err := compat.ParseProperties(in)
		if err != nil {
			return
		}
		b := NewBroker()
		if _, err := b.Load(compat.PropertiesMap(kvs)); err != nil && !errors.Is(err, ErrInvalidValue) {
			t.Fatalf("Load: %v", err)
		}
		_ = b.Resolve()
		// What GET_BROKER_CONFIG reports loads back into the same configuration.
		text := b.PropertiesText()
		back, err := compat.ParseProperties(text)
		if err != nil {
			t.Fatalf("PropertiesText does not parse: %v\n%s", err, text)
		}
		c := NewBroker()
		if _, err := c.Load(compat.PropertiesMap(back)); err != nil {
			t.Fatalf("reloading PropertiesText: %v\n%s", err, text)
		}
		if got := c.PropertiesText(); string(got) != string(text) {
			t.Fatalf("round trip differs:\n%s\n---\n%s", got, text)
		}
	})
}
