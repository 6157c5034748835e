package conformance

// The two server pairs a differential run compares: Java's 4.9.7 NameServer + Broker started
// by conformance/java (javaservers.sh) and Skyrocket's started in process, configured alike
// (broker-a in DefaultCluster, brokerIP1 127.0.0.1, autoCreateTopicEnable and
// enablePropertyFilter on), plus a raw-wire client and the address normalization that lets
// their answers be compared.

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	javaservers "github.com/skyrocket-mq/skyrocket/conformance/java"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// side is one NameServer + Broker pair under comparison.
type side struct {
	name    string // "java" or "skyrocket"
	ns      string // NameServer address
	broker  string // broker main address
	cl      *remoting.Client
	replace *strings.Replacer // addresses -> placeholders
}

// diffEnv holds both sides and, for the mixed-cluster runs, a Skyrocket NameServer the Java
// broker also registers with (it must exist before the Java broker starts).
type diffEnv struct {
	java, sky *side
	javaSrv   *javaservers.Servers
	mixedNS   *namesrv.Server
	skyC      *cluster
}

// needJavaServers skips unless run.sh (or a developer) asked for the JVM-backed tests.
func needJavaServers(t *testing.T) {
	t.Helper()
	if os.Getenv("SKYROCKET_JAVA_SERVERS") != "1" {
		t.Skip("starts Java's NameServer and Broker: set SKYROCKET_JAVA_SERVERS=1 (conformance/java/run.sh diff does)")
	}
	if err := javaservers.Available(); err != nil {
		t.Fatal(err)
	}
}

func newSide(t *testing.T, name, ns, broker string) *side {
	cl := remoting.NewClient(remoting.ClientOptions{})
	t.Cleanup(cl.Close)
	return &side{name: name, ns: ns, broker: broker, cl: cl,
		replace: strings.NewReplacer(broker, "<BROKER>", vipOf(broker), "<BROKER_VIP>", haOf(broker), "<BROKER_HA>", ns, "<NAMESRV>",
			hostHex(broker), "<BROKER_HEX>")}
}

// hostHex is the IP and port part of an offset msgId naming addr (8 + 8 upper-case hex
// digits, Java: MessageDecoder#createMessageId).
func hostHex(addr string) string {
	ap := netip.MustParseAddrPort(addr)
	ip := ap.Addr().As4()
	return fmt.Sprintf("%02X%02X%02X%02X%08X", ip[0], ip[1], ip[2], ip[3], ap.Port())
}

func portShift(addr string, d int) string {
	i := strings.LastIndexByte(addr, ':')
	p, _ := strconv.Atoi(addr[i+1:])
	return addr[:i+1] + strconv.Itoa(p+d)
}

func vipOf(addr string) string { return portShift(addr, -2) }
func haOf(addr string) string  { return portShift(addr, 1) }

func startDiffEnv(t *testing.T) *diffEnv {
	t.Helper()
	e := &diffEnv{mixedNS: startNamesrv(t, namesrv.Options{})}
	nsPort := freePort(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	t0 := time.Now()
	srv, err := javaservers.Start(ctx, javaservers.Options{
		Dir:         dir,
		NamesrvPort: nsPort,
		Broker: []string{
			"enablePropertyFilter=true",
			"mappedFileSizeCommitLog=67108864",
			// the Java broker also registers with the mixed-cluster NameServer (Skyrocket's)
			fmt.Sprintf("namesrvAddr=127.0.0.1:%d;%s", nsPort, e.mixedNS.Addr()),
		},
		Heap: "-Xms512m -Xmx512m -XX:MaxDirectMemorySize=512m",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Java 4.9.7 servers up in %v: namesrv %s broker %s", time.Since(t0).Round(time.Millisecond), srv.NamesrvAddr, srv.BrokerAddr)
	t.Cleanup(func() {
		t1 := time.Now()
		if err := srv.Stop(); err != nil {
			t.Errorf("stop the Java servers: %v", err)
		}
		t.Logf("Java servers stopped in %v", time.Since(t1).Round(time.Millisecond))
	})
	e.javaSrv = srv
	e.skyC = startCluster(t, nil)
	e.java = newSide(t, "java", srv.NamesrvAddr, srv.BrokerAddr)
	e.sky = newSide(t, "skyrocket", e.skyC.nsAddr(), e.skyC.opts.ListenAddr)
	return e
}

// req builds a raw request: code, then extFields as key, value pairs.
func req(code protocol.RequestCode, kv ...string) *protocol.Command {
	c := protocol.NewRequest(code)
	for i := 0; i+1 < len(kv); i += 2 {
		c.Ext.Set(kv[i], kv[i+1])
	}
	return c
}

// call sends c to addr and returns the response (failing the test on a transport error).
func (s *side) call(t *testing.T, addr string, c *protocol.Command) *protocol.Command {
	t.Helper()
	resp, err := s.cl.Invoke(context.Background(), addr, c, 15*time.Second)
	if err != nil {
		t.Fatalf("%s: request %d to %s: %v", s.name, c.Code, addr, err)
	}
	return resp
}

// callOrSilence is call for requests a server may leave unanswered (Java's NameServer
// answers no unknown request code): nil after wait without a response.
func (s *side) callOrSilence(t *testing.T, addr string, c *protocol.Command, wait time.Duration) *protocol.Command {
	t.Helper()
	resp, err := s.cl.Invoke(context.Background(), addr, c, wait)
	if err != nil {
		if strings.Contains(err.Error(), "timed out") {
			return nil
		}
		t.Fatalf("%s: request %d to %s: %v", s.name, c.Code, addr, err)
	}
	return resp
}

// createTopic creates topic on the side's broker (UPDATE_AND_CREATE_TOPIC, perm 6) and waits
// until its NameServer routes it.
func (s *side) createTopic(t *testing.T, topic string, queues int) {
	t.Helper()
	q := strconv.Itoa(queues)
	r := s.call(t, s.broker, req(protocol.CodeUpdateAndCreateTopic, "topic", topic, "defaultTopic", "TBW102",
		"readQueueNums", q, "writeQueueNums", q, "perm", "6", "topicFilterType", "SINGLE_TAG", "topicSysFlag", "0", "order", "false"))
	if r.Code != 0 {
		t.Fatalf("%s: create %s: %d %s", s.name, topic, r.Code, r.Remark)
	}
	eventually(t, 30*time.Second, s.name+" routes "+topic, func() bool {
		r := s.call(t, s.ns, req(protocol.CodeGetRouteinfoByTopic, "topic", topic))
		return r.Code == 0 && strings.Contains(string(r.Body), `"writeQueueNums":`+q)
	})
}

// clientAddr matches a client's loopback address as brokers print it in remarks
// ("Producer: 127.0.0.1:52302", "consumer:[/127.0.0.1:52302]").
var clientAddr = regexp.MustCompile(`127\.0\.0\.1:\d+`)

// norm replaces the side's addresses by placeholders, then any other loopback address (a
// client's) by <CLIENT>.
func (s *side) norm(v string) string {
	return clientAddr.ReplaceAllString(s.replace.Replace(v), "<CLIENT>")
}
