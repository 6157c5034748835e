package configs

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// javaField is one F line of testdata/java_config_dump.txt.
type javaField struct {
	name, typ string
	important bool
	value     string // "null" for a null String
}

type javaClass struct {
	fields  []javaField
	setters []string
}

// loadJavaDump reads testdata/java_config_dump.txt, printed by the real 4.9.8 classes
// (testdata/java/JavaConfigDump.java) on a machine with 2 CPUs, user.home /root, address
// 192.0.2.2 and host name vm.
func loadJavaDump(t *testing.T) map[string]*javaClass {
	t.Helper()
	f, err := os.Open("testdata/java_config_dump.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]*javaClass{}
	var cur *javaClass
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			cur = &javaClass{}
			out[strings.TrimPrefix(line, "## ")] = cur
		case strings.HasPrefix(line, "F\t"):
			p := strings.SplitN(line, "\t", 5)
			cur.fields = append(cur.fields, javaField{name: p[1], typ: p[2], important: p[3] == "I", value: p[4]})
		case strings.HasPrefix(line, "S\t"):
			cur.setters = append(cur.setters, strings.Split(line, "\t")[1])
		}
	}
	if len(out) != 5 {
		t.Fatalf("dump has %d classes, want 5", len(out))
	}
	return out
}

// The dump machine's values, for the defaults Java computes from the machine.
const (
	dumpCPUs = 2
	dumpHome = "/root"
	dumpIP   = "192.0.2.2"
	dumpHost = "vm"
)

// machineDefaults maps a Java field whose default depends on the machine to the value
// DefaultXxx must produce here, given the value Java printed on the dump machine.
func machineDefaults(t *testing.T) map[string]string {
	home, _ := os.UserHomeDir()
	cpus := runtime.NumCPU()
	send := min(cpus, 4)
	itoa := strconv.Itoa
	return map[string]string{
		"brokerIP1":                         compat.LocalAddress(),
		"brokerIP2":                         compat.LocalAddress(),
		"brokerName":                        compat.LocalHostName(),
		"storePathRootDir":                  filepath.Join(home, "store"),
		"kvConfigPath":                      filepath.Join(home, "namesrv", "kvConfig.json"),
		"configStorePath":                   filepath.Join(home, "namesrv", "namesrv.properties"),
		"sendMessageThreadPoolNums":         itoa(send),
		"putMessageFutureThreadPoolNums":    itoa(min(cpus, 4)),
		"pullMessageThreadPoolNums":         itoa(16 + cpus*2),
		"processReplyMessageThreadPoolNums": itoa(16 + cpus*2),
		"queryMessageThreadPoolNums":        itoa(8 + cpus),
		"heartbeatThreadPoolNums":           itoa(min(32, cpus)),
		"endTransactionThreadPoolNums":      itoa(max(8+cpus*2, send*4)),
		"clientCallbackExecutorThreads":     itoa(cpus),
	}
}

// dumpMachineValue is what the formula in machineDefaults gives on the dump machine; the
// test checks the dump agrees, so a formula that is wrong fails here too.
func dumpMachineValue(name string) string {
	cpus := dumpCPUs
	send := min(cpus, 4)
	itoa := strconv.Itoa
	return map[string]string{
		"brokerIP1": dumpIP, "brokerIP2": dumpIP, "brokerName": dumpHost,
		"storePathRootDir":                  dumpHome + "/store",
		"kvConfigPath":                      dumpHome + "/namesrv/kvConfig.json",
		"configStorePath":                   dumpHome + "/namesrv/namesrv.properties",
		"sendMessageThreadPoolNums":         itoa(send),
		"putMessageFutureThreadPoolNums":    itoa(min(cpus, 4)),
		"pullMessageThreadPoolNums":         itoa(16 + cpus*2),
		"processReplyMessageThreadPoolNums": itoa(16 + cpus*2),
		"queryMessageThreadPoolNums":        itoa(8 + cpus),
		"heartbeatThreadPoolNums":           itoa(min(32, cpus)),
		"endTransactionThreadPoolNums":      itoa(max(8+cpus*2, send*4)),
		"clientCallbackExecutorThreads":     itoa(cpus),
	}[name]
}

func goDefaults(t *testing.T) map[string]any {
	t.Setenv("ROCKETMQ_HOME", "") // the dump ran with both unset (Java: null)
	t.Setenv("NAMESRV_ADDR", "")
	return map[string]any{
		"BrokerConfig":       DefaultBrokerConfig(),
		"NettyServerConfig":  DefaultNettyServerConfig(),
		"NettyClientConfig":  DefaultNettyClientConfig(),
		"MessageStoreConfig": DefaultMessageStoreConfig(),
		"NamesrvConfig":      DefaultNamesrvConfig(),
	}
}

// Every field, in Java's order, with Java's type, @ImportantField and default.
func TestDefaults_EqualJava(t *testing.T) {
	dump := loadJavaDump(t)
	machine := machineDefaults(t)
	goTypes := map[string]reflect.Kind{"int": reflect.Int32, "long": reflect.Int64, "boolean": reflect.Bool, "String": reflect.String}
	for class, def := range goDefaults(t) {
		jc := dump[class]
		rt := reflect.TypeOf(def)
		fields := fieldsOf(rt)
		got := Properties(def)
		if len(got) != len(jc.fields) || len(fields) != len(jc.fields) {
			t.Errorf("%s: %d Go fields, Java has %d", class, len(got), len(jc.fields))
			continue
		}
		for i, jf := range jc.fields {
			kv, fi := got[i], fields[i]
			if kv.Key != jf.name {
				t.Errorf("%s field %d: Go %s, Java %s", class, i, kv.Key, jf.name)
				continue
			}
			if fi.important != jf.important {
				t.Errorf("%s.%s: important = %v, Java %v", class, jf.name, fi.important, jf.important)
			}
			if want, ok := goTypes[jf.typ]; ok {
				if k := rt.Field(fi.index).Type.Kind(); k != want {
					t.Errorf("%s.%s: Go kind %s, Java %s", class, jf.name, k, jf.typ)
				}
			}
			if fi.nullable != (jf.typ == "String" && jf.value == "null") {
				t.Errorf("%s.%s: nullable = %v, Java default %q", class, jf.name, fi.nullable, jf.value)
			}
			javaValue := jf.value
			if javaValue == "null" {
				javaValue = ""
			}
			if m, ok := machine[jf.name]; ok {
				if dv := dumpMachineValue(jf.name); dv != javaValue {
					t.Errorf("%s.%s: the dump machine's formula gives %q, Java printed %q", class, jf.name, dv, javaValue)
				}
				javaValue = m
			}
			if kv.Value != javaValue {
				t.Errorf("%s.%s = %q, Java default %q", class, jf.name, kv.Value, javaValue)
			}
		}
	}
}

// The property names Apply accepts are exactly the names Java's properties2Object derives
// from the setters.
func TestDefaults_PropertyKeysEqualJavaSetters(t *testing.T) {
	dump := loadJavaDump(t)
	for class, def := range goDefaults(t) {
		var keys []string
		for _, f := range fieldsOf(reflect.TypeOf(def)) {
			keys = append(keys, f.key)
		}
		slices.Sort(keys)
		want := slices.Clone(dump[class].setters)
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Errorf("%s: keys\n got %v\nwant %v", class, keys, want)
		}
	}
}

func TestNewBroker_ListenPorts(t *testing.T) {
	b := NewBroker()
	if b.Server.ListenPort != 10911 || b.Store.HaListenPort != 10912 {
		t.Errorf("broker ports %d/%d, want 10911/10912", b.Server.ListenPort, b.Store.HaListenPort)
	}
	if n := NewNamesrv(); n.Server.ListenPort != 9876 {
		t.Errorf("namesrv port %d, want 9876", n.Server.ListenPort)
	}
	if got := DefaultNettyServerConfig().ListenPort; got != 8888 {
		t.Errorf("class default listenPort %d, want 8888", got)
	}
}

func TestDefaults_Environment(t *testing.T) {
	t.Setenv("ROCKETMQ_HOME", "/opt/rocketmq")
	t.Setenv("NAMESRV_ADDR", "10.0.0.1:9876")
	b := DefaultBrokerConfig()
	if b.RocketmqHome != "/opt/rocketmq" || b.NamesrvAddr != "10.0.0.1:9876" {
		t.Errorf("env not read: %q %q", b.RocketmqHome, b.NamesrvAddr)
	}
	if n := DefaultNamesrvConfig(); n.RocketmqHome != "/opt/rocketmq" {
		t.Errorf("namesrv rocketmqHome %q", n.RocketmqHome)
	}
}

// `-p` prints exactly Java's lines: with the machine-dependent fields set to the dump
// machine's values, Print's output is the dump's F lines as name=value (null as "").
func TestPrint_EqualsJavaPrintObjectProperties(t *testing.T) {
	dump := loadJavaDump(t)
	t.Setenv("ROCKETMQ_HOME", "")
	t.Setenv("NAMESRV_ADDR", "")
	b := NewBroker()
	b.Server.ListenPort = 8888 // the dump shows the class default
	b.Broker.BrokerIP1, b.Broker.BrokerIP2, b.Broker.BrokerName = dumpIP, dumpIP, dumpHost
	b.Store.StorePathRootDir = dumpHome + "/store"
	b.Broker.SendMessageThreadPoolNums, b.Broker.PutMessageFutureThreadPoolNums = 2, 2
	b.Broker.PullMessageThreadPoolNums, b.Broker.ProcessReplyMessageThreadPoolNums = 20, 20
	b.Broker.QueryMessageThreadPoolNums, b.Broker.HeartbeatThreadPoolNums = 10, 2
	b.Broker.EndTransactionThreadPoolNums, b.Client.ClientCallbackExecutorThreads = 12, 2
	var sb strings.Builder
	if err := b.Print(&sb); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, class := range []string{"BrokerConfig", "NettyServerConfig", "NettyClientConfig", "MessageStoreConfig"} {
		for _, f := range dump[class].fields {
			v := f.value
			if v == "null" {
				v = ""
			}
			want.WriteString(f.name + "=" + v + "\n")
		}
	}
	if sb.String() != want.String() {
		t.Errorf("-p output differs from Java:\n got %s\nwant %s", sb.String(), want.String())
	}

	// -m: only @ImportantField items, same format.
	sb.Reset()
	if err := b.PrintImportant(&sb); err != nil {
		t.Fatal(err)
	}
	want.Reset()
	for _, class := range []string{"BrokerConfig", "NettyServerConfig", "NettyClientConfig", "MessageStoreConfig"} {
		for _, f := range dump[class].fields {
			if !f.important {
				continue
			}
			v := f.value
			if v == "null" {
				v = ""
			}
			want.WriteString(f.name + "=" + v + "\n")
		}
	}
	if sb.String() != want.String() {
		t.Errorf("-m output differs from Java:\n got %s\nwant %s", sb.String(), want.String())
	}
}
