package server

import (
	"context"
	"errors"
	"fmt"
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

// RunDrain is Run with a graceful drain first (mqbroker on SIGTERM): once ctx is done the
// Broker re-registers without write permission and keeps serving for window (or until
// cut is closed: a second signal), so that producers have moved to other brokers at
// their next route refresh before it unregisters and stops; then Shutdown as Run. A
// window of 0, a slave or a broker without name servers skips the drain.
func (n *Node) RunDrain(ctx context.Context, window time.Duration, cut <-chan struct{}) error {
	<-ctx.Done()
	if window > 0 && n.Broker != nil && n.Broker.BeginDrain() {
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
