package server

// The HTTP endpoint of a node (server/metrics): /metrics, /healthz, /readyz and, with
// metricsPprofEnable, /debug/pprof/. The broker's endpoint is bound before the store is
// opened, so /healthz answers (with the recovery progress) while a large store recovers
// and /readyz says why the broker is not ready yet. A port that cannot be bound is
// logged and the node starts without its endpoint: metrics never keep a broker down.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/metrics"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
	"github.com/skyrocket-mq/skyrocket/store"
)

// NodeOptions is what StartNode starts: a NameServer, a Broker or both, each with its
// HTTP endpoint (a zero Metrics.Port: none). When both endpoints have the same port, one
// server serves both nodes' metrics.
type NodeOptions struct {
	Namesrv     *namesrv.Options
	Broker      *broker.Options
	NamesrvHTTP configs.Metrics
	BrokerHTTP  configs.Metrics
	// HTTPHost is the address the endpoints bind ("" = every interface).
	HTTPHost string
	Logger   zerolog.Logger
}

// BrokerMetrics reads metricsPort (default 5557) and metricsPprofEnable from the
// broker's file properties.
func BrokerMetrics(cfg *configs.Broker) (configs.Metrics, error) {
	return configs.MetricsFrom(cfg.FileProps, configs.DefaultBrokerMetricsPort)
}

// NamesrvMetrics reads metricsPort (default 5558) and metricsPprofEnable from the
// NameServer's file properties.
func NamesrvMetrics(cfg *configs.Namesrv) (configs.Metrics, error) {
	return configs.MetricsFrom(cfg.FileProps, configs.DefaultNamesrvMetricsPort)
}

func (o *NodeOptions) listen(m configs.Metrics) *metrics.Server {
	if m.Port == 0 {
		return nil
	}
	addr := net.JoinHostPort(o.HTTPHost, strconv.Itoa(m.Port))
	s, err := metrics.Listen(metrics.Options{Addr: addr, Pprof: m.Pprof, Logger: o.Logger})
	if err != nil {
		o.Logger.Error().Err(err).Str("addr", addr).Msg("metrics and health endpoint not started")
		return nil
	}
	return s
}

// StartNode starts what o names, as Start does, with the HTTP endpoints.
func StartNode(o NodeOptions) (*Node, error) {
	if o.Namesrv == nil && o.Broker == nil {
		return nil, errors.New("server: nothing to start")
	}
	n := &Node{}
	var brHTTP *metrics.Server
	if o.Broker != nil {
		brHTTP = o.listen(o.BrokerHTTP)
	}
	if o.Namesrv != nil {
		if brHTTP != nil && o.NamesrvHTTP.Port == o.BrokerHTTP.Port {
			n.NamesrvHTTP = brHTTP
		} else {
			n.NamesrvHTTP = o.listen(o.NamesrvHTTP)
		}
	}
	n.BrokerHTTP = brHTTP
	fail := func(err error) (*Node, error) {
		_ = n.Shutdown(context.Background())
		return nil, err
	}
	if o.Namesrv != nil {
		s, err := namesrv.New(*o.Namesrv)
		if err == nil {
			err = s.Start()
		}
		if err != nil {
			return fail(fmt.Errorf("server: name server: %w", err))
		}
		n.Namesrv = s
		if h := n.NamesrvHTTP; h != nil {
			h.Registry.MustRegister(metrics.NewNamesrvCollector(func() metrics.NamesrvFigures { return namesrvFigures(s) }))
			if h != brHTTP {
				h.Health.SetPhase(metrics.PhaseRunning)
			}
		}
	}
	if o.Broker != nil {
		bo := *o.Broker
		if h := brHTTP; h != nil {
			log := o.Logger
			next := bo.Store.OnRecoveryProgress
			bo.Store.OnRecoveryProgress = func(p store.RecoveryProgress) {
				h.Health.SetProgress(metrics.Progress{Stage: p.Stage, FilesDone: p.FilesDone, FilesTotal: p.FilesTotal,
					BytesDone: p.BytesDone, BytesTotal: p.BytesTotal})
				log.Info().Str("stage", p.Stage).Int("filesDone", p.FilesDone).Int("filesTotal", p.FilesTotal).
					Int64("bytesDone", p.BytesDone).Int64("bytesTotal", p.BytesTotal).Msg("store recovery progress")
				if next != nil {
					next(p)
				}
			}
			h.Health.SetPhase(metrics.PhaseStarting)
		}
		b, err := broker.New(bo)
		if err == nil {
			err = b.Start()
		}
		if err != nil {
			return fail(fmt.Errorf("server: broker: %w", err))
		}
		n.Broker = b
		if h := brHTTP; h != nil {
			h.Registry.MustRegister(metrics.NewBrokerCollector(b), b.Figures())
			if o.BrokerHTTP.ClientStats {
				b.EnableClientMetrics(time.Minute)
			}
			h.Health.AddCheck("registered", b.Registered)
			if !b.IsSlave() {
				h.Health.AddCheck("writable", b.Writable)
			}
			h.Health.SetPhase(metrics.PhaseRunning)
		}
	}
	return n, nil
}

func namesrvFigures(s *namesrv.Server) metrics.NamesrvFigures {
	rt := s.Routes()
	ci := rt.ClusterInfo()
	return metrics.NamesrvFigures{LiveBrokers: len(rt.LiveBrokers()), BrokerNames: len(ci.BrokerAddrTable),
		Clusters: len(ci.ClusterAddrTable), Topics: len(rt.Topics()), RouteVersion: rt.Version()}
}
