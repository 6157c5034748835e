package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/metrics"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
)

// Node is what one Skyrocket process runs: a NameServer (mqnamesrv), a Broker
// (mqbroker), or both (skyrocket, the all-in-one binary).
type Node struct {
	Namesrv *namesrv.Server // nil when the process runs no NameServer
	Broker  *broker.Broker  // nil when the process runs no Broker

	// The HTTP endpoints (http.go); nil when off. They are the same server when the
	// NameServer and the Broker share a port.
	NamesrvHTTP, BrokerHTTP *metrics.Server
}

// Start builds and starts the servers whose options are given, the NameServer first so
// the Broker's first registration finds it. When the Broker fails to open or start, the
// NameServer already started is shut down again. Either argument may be nil, not both.
func Start(ns *namesrv.Options, br *broker.Options) (*Node, error) {
	if ns == nil && br == nil {
		return nil, errors.New("server: nothing to start")
	}
	n := &Node{}
	if ns != nil {
		s, err := namesrv.New(*ns)
		if err != nil {
			return nil, fmt.Errorf("server: name server: %w", err)
		}
		if err := s.Start(); err != nil {
			return nil, fmt.Errorf("server: name server: %w", err)
		}
		n.Namesrv = s
	}
	if br != nil {
		b, err := broker.New(*br)
		if err == nil {
			err = b.Start()
		}
		if err != nil {
			if n.Namesrv != nil {
				_ = n.Namesrv.Shutdown(context.Background())
			}
			return nil, fmt.Errorf("server: broker: %w", err)
		}
		n.Broker = b
	}
	return n, nil
}

// Shutdown stops the Broker (unregister, drain, persist offsets, close the store and
// remove its abort file), then the NameServer. ctx bounds the drains; both are stopped
// whatever happens to the first, and their errors are joined.
func (n *Node) Shutdown(ctx context.Context) error {
	var errs []error
	for _, h := range []*metrics.Server{n.BrokerHTTP, n.NamesrvHTTP} {
		if h != nil {
			h.Health.SetPhase(metrics.PhaseStopping)
		}
	}
	if n.Broker != nil {
		if err := n.Broker.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("server: broker shutdown: %w", err))
		}
	}
	if n.Namesrv != nil {
		if err := n.Namesrv.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("server: name server shutdown: %w", err))
		}
	}
	for i, h := range []*metrics.Server{n.BrokerHTTP, n.NamesrvHTTP} {
		if h != nil && (i == 0 || h != n.BrokerHTTP) {
			if err := h.Shutdown(ctx); err != nil {
				errs = append(errs, fmt.Errorf("server: http shutdown: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}

// Run blocks until ctx is done (cmd/ cancels it on SIGINT or SIGTERM), then shuts the
// node down with ShutdownTimeout for the drains and returns Shutdown's error.
func (n *Node) Run(ctx context.Context) error { return n.RunDrain(ctx, 0, nil) }

// DefaultDrainWindow is how long mqbroker keeps serving after SIGTERM once it has
// re-registered without write permission: the clients' route refresh (30 s, Java's
// pollNameServerInterval and the Go client's) plus time for the sends it already routed.
const DefaultDrainWindow = 35 * time.Second

// DrainEnv is the environment variable with the drain window's default for mqbroker and
// skyrocket (-drain): a Go duration or a number of seconds, "0" for none.
const DrainEnv = "SKYROCKET_DRAIN"

// ParseDrainWindow takes a Go duration ("35s", "1m") or a bare number of seconds.
func ParseDrainWindow(v string) (time.Duration, error) {
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("drain %q: want a duration such as 35s, or 0", v)
	}
	return d, nil
}

// RunDrain is Run with a graceful drain first (mqbroker and skyrocket on SIGTERM): once
// ctx is done the Broker re-registers without write permission (a slave: unregisters) and
// keeps serving for window (or until cut is closed: a second signal), so that clients
// have moved to other brokers at their next route refresh before it unregisters and
// stops; then Shutdown as Run: the Broker first, the NameServer of the same process last,
// so that it serves routes during the whole window. A window of 0, a broker without name
// servers, or an all-in-one process that is alone (aloneInOwnNamesrv) skips the drain.
func (n *Node) RunDrain(ctx context.Context, window time.Duration, cut <-chan struct{}) error {
	<-ctx.Done()
	if window > 0 && n.Broker != nil && !n.aloneInOwnNamesrv() && n.Broker.BeginDrain() {
		// Alive, not ready: /readyz answers 503 {"phase":"draining"} during the window, so
		// a load balancer or an orchestrator sees the drain without reading the logs.
		if h := n.BrokerHTTP; h != nil {
			h.Health.SetPhase(metrics.PhaseDraining)
		}
		t := time.NewTimer(window)
		select {
		case <-t.C:
		case <-cut:
			t.Stop()
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	return n.Shutdown(sctx)
}

// aloneInOwnNamesrv reports, for a process that runs both servers (skyrocket), that a
// drain could move no client anywhere: the broker registers only with this process's
// NameServer, which knows no other broker. Such a process stops at once, as before
// (`make run`, the test harnesses); one that other brokers registered with, or whose
// broker also registers elsewhere, drains.
func (n *Node) aloneInOwnNamesrv() bool {
	if n.Namesrv == nil || n.Broker == nil {
		return false
	}
	for _, a := range n.Broker.NamesrvAddrs() {
		if !n.isOwnNamesrv(a) {
			return false
		}
	}
	for _, a := range n.Namesrv.Routes().LiveBrokers() {
		if a != n.Broker.Addr() {
			return false
		}
	}
	return true
}

// isOwnNamesrv reports that addr reaches this process's NameServer: its port, on its
// listen address, a loopback address, or one of this host's addresses when it listens on
// all of them.
func (n *Node) isOwnNamesrv(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	lhost, lport, lerr := net.SplitHostPort(n.Namesrv.Addr())
	if err != nil || lerr != nil || port != lport {
		return false
	}
	ip, lip := net.ParseIP(host), net.ParseIP(lhost)
	switch {
	case host == lhost || (ip != nil && ip.IsLoopback()):
		return true
	case ip == nil || lip == nil || !lip.IsUnspecified():
		return false
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if in, ok := a.(*net.IPNet); ok && in.IP.Equal(ip) {
			return true
		}
	}
	return false
}
