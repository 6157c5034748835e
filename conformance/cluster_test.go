package conformance

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/conformance/testkit"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
)

// cluster is a NameServer and one broker on random loopback ports with a temp store.
type cluster struct {
	t      *testing.T
	ns     *namesrv.Server
	broker *broker.Broker
	root   string
	opts   broker.Options
}

// freeBrokerPort: testkit.BrokerPort (p-2 VIP and p+1 HA free too).
func freeBrokerPort(t testing.TB) int { return testkit.BrokerPort(t) }

// startCluster starts a namesrv and a broker; mutate adjusts the broker options.
func startCluster(t *testing.T, mutate func(*broker.Options)) *cluster {
	t.Helper()
	c := &cluster{t: t, ns: startNamesrv(t, namesrv.Options{}), root: t.TempDir()}
	cfg := broker.DefaultConfig(filepath.Join(c.root, "store"))
	cfg.Broker.BrokerName = "broker-a" // a property: GET_BROKER_CONFIG reports it
	c.opts = broker.MustOptionsFrom(cfg)
	c.opts.ListenAddr = fmt.Sprintf("127.0.0.1:%d", freeBrokerPort(t))
	c.opts.NamesrvAddrs = []string{c.ns.Addr()}
	c.opts.EnablePropertyFilter = true
	c.opts.Store.MappedFileSizeCommitLog = 16 << 20
	c.opts.Store.MappedFileSizeConsumeQueue = 30000 * 20
	c.opts.Store.MaxHashSlotNum = 1000
	c.opts.Store.MaxIndexNum = 4000
	if mutate != nil {
		mutate(&c.opts)
	}
	c.startBroker()
	return c
}

func (c *cluster) startBroker() {
	c.t.Helper()
	b, err := broker.New(c.opts)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.broker = b
	c.t.Cleanup(func() { c.stopBroker() })
}

func (c *cluster) stopBroker() {
	if c.broker == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.broker.Shutdown(ctx); err != nil {
		c.t.Errorf("broker shutdown: %v", err)
	}
	c.broker = nil
}

// restartBroker stops the broker cleanly and starts it again on the same store.
func (c *cluster) restartBroker() {
	c.stopBroker()
	c.startBroker()
}

func (c *cluster) nsAddr() string { return c.ns.Addr() }
