package conformance

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// TLS (issue 14): tls.server.mode on the NameServer's and broker's ports, configured with
// Java's property names through server.TransportOptions (test mode: a self-signed
// certificate made at start). The Go client's TLS option is producer/consumer.WithTls,
// which dials with InsecureSkipVerify and no client certificate.

// syncBuffer is a log sink the test reads while servers write to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startTLSCluster starts a NameServer and a broker with tls.server.mode=mode (the broker
// dials the NameServer over TLS when enforcing, as Java's BrokerStartup defaults
// tls.enable). Both log to logs.
func startTLSCluster(t *testing.T, mode string, logs *syncBuffer) *cluster {
	t.Helper()
	props := map[string]string{configs.PropTLSServerMode: mode, configs.PropTLSConfigFile: filepath.Join(t.TempDir(), "none")}
	log := zerolog.New(logs)
	nsTransport := server.TransportOptions(configs.DefaultNettyServerConfig(), props, false)
	c := &cluster{t: t, ns: startNamesrv(t, namesrv.Options{Transport: nsTransport, Logger: log}), root: t.TempDir()}
	cfg := broker.DefaultConfig(filepath.Join(c.root, "store"))
	c.opts = broker.MustOptionsFrom(cfg)
	c.opts.ListenAddr = fmt.Sprintf("127.0.0.1:%d", freeBrokerPort(t))
	c.opts.NamesrvAddrs = []string{c.ns.Addr()}
	c.opts.Store.MappedFileSizeCommitLog = 16 << 20
	c.opts.Store.MappedFileSizeConsumeQueue = 30000 * 20
	c.opts.Transport = server.TransportOptions(configs.DefaultNettyServerConfig(), props, true)
	c.opts.Logger = log
	c.startBroker()
	return c
}

// goClientTLS turns the Go client's TLS on for the rest of the test. WithTls writes the
// client library's shared default RemotingClientConfig, so every Go client in the process
// dials TLS until it is turned off again; the cleanup, registered first and so run last,
// turns it off after the test's clients have shut down.
func goClientTLS(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		if _, err := producer.NewDefaultProducer(producer.WithTls(false), producer.WithInstanceName(unique("tls-off")),
			producer.WithNsResolver(primitive.NewPassthroughResolver([]string{"127.0.0.1:9876"}))); err != nil {
			t.Errorf("turning the Go client's TLS off: %v", err)
		}
	})
}

func TestTLS_GoClient_SendAndConsume(t *testing.T) {
	for _, mode := range []string{"permissive", "enforcing"} {
		t.Run(mode, func(t *testing.T) {
			goClientTLS(t)
			logs := &syncBuffer{}
			c := startTLSCluster(t, mode, logs)
			topic := unique("TlsT")
			p := newProducer(t, c.nsAddr(), producer.WithTls(true))
			const n = 20
			for i := range n {
				m := primitive.NewMessage(topic, []byte(fmt.Sprintf("tls-%d", i)))
				res, err := p.SendSync(context.Background(), m)
				if err != nil || res.Status != primitive.SendOK {
					t.Fatalf("send %d over TLS: %v %v", i, res, err)
				}
			}
			got := newReceived()
			startPushConsumer(t, c.nsAddr(), unique("TlsCG"), topic, all, collect(got), consumer.WithTls(true))
			eventually(t, 30*time.Second, "all messages consumed over TLS", func() bool { d, _ := got.count(); return d == n })
			if mode == "enforcing" && strings.Contains(logs.String(), "plaintext client") {
				t.Errorf("a plaintext connection was refused in a TLS-only run (the broker's registration?):\n%s", logs.String())
			}
		})
	}
}

func TestTLS_Enforcing_RefusesPlaintextClient(t *testing.T) {
	logs := &syncBuffer{}
	c := startTLSCluster(t, "enforcing", logs)
	// The raw remoting client, plaintext, to the NameServer and to the broker.
	cl := remoting.NewClient(remoting.ClientOptions{DialTimeout: time.Second})
	defer cl.Close()
	for _, addr := range []string{c.nsAddr(), c.broker.Addr()} {
		req := protocol.NewRequest(protocol.CodeGetRouteinfoByTopic)
		(&protocol.GetRouteInfoRequestHeader{Topic: "TBW102"}).Encode(&req.Ext)
		if resp, err := cl.Invoke(context.Background(), addr, req, 2*time.Second); err == nil {
			t.Errorf("%s answered a plaintext client in enforcing mode: %+v", addr, resp)
		}
	}
	// The Go client without TLS cannot send.
	p := newProducer(t, c.nsAddr(), producer.WithSendMsgTimeout(2*time.Second))
	if _, err := p.SendSync(context.Background(), primitive.NewMessage(unique("TlsT"), []byte("x"))); err == nil {
		t.Error("a plaintext Go producer sent through an enforcing cluster")
	}
	eventually(t, 5*time.Second, "the refusal logged with its reason", func() bool {
		return strings.Contains(logs.String(), "a plaintext client while this server runs in SSL enforcing mode")
	})
	// A TLS client is served by the same servers.
	tcl := remoting.NewClient(remoting.ClientOptions{DialTimeout: time.Second, TLS: server.TransportOptions(configs.DefaultNettyServerConfig(),
		map[string]string{configs.PropTLSServerMode: "enforcing", configs.PropTLSConfigFile: filepath.Join(t.TempDir(), "none")}, true).ClientTLS})
	defer tcl.Close()
	req := protocol.NewRequest(protocol.CodeGetRouteinfoByTopic)
	(&protocol.GetRouteInfoRequestHeader{Topic: "TBW102"}).Encode(&req.Ext)
	eventually(t, 10*time.Second, "the broker registered over TLS", func() bool {
		resp, err := tcl.Invoke(context.Background(), c.nsAddr(), req, 2*time.Second)
		return err == nil && resp.ResponseCode() == protocol.ResSuccess
	})
}
