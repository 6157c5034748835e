package namesrv

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// Configuration is the namesrv's own configuration as GET/UPDATE_NAMESRV_CONFIG see it
// (Java: Configuration over NamesrvConfig and NettyServerConfig).
type Configuration interface {
	// Format returns every property as Java's "key=value\n" text.
	Format() string
	// Update applies properties and persists them (configStorePath).
	Update(props map[string]string) error
	// BlackList returns the properties that may not be updated remotely.
	BlackList() []string
}

// Options configure a NameServer. Zero values take Java's defaults.
type Options struct {
	ListenAddr         string        // default 0.0.0.0:9876
	KVConfigPath       string        // "" keeps the KV table in memory only
	OrderMessageEnable bool          // add orderTopicConf to routes
	BrokerExpire       time.Duration // 120 s without registration (BROKER_CHANNEL_EXPIRED_TIME)
	ScanInterval       time.Duration // 10 s
	IdleTimeout        time.Duration // 120 s
	EventLoops         int
	Transport          remoting.Transport // connection limits and TLS (server.TransportOptions)
	Config             Configuration
	Logger             zerolog.Logger
}

// Server is a running NameServer.
type Server struct {
	opts   Options
	log    zerolog.Logger
	routes *RouteTable
	kv     *KVStore
	rs     *remoting.Server
	cache  routeCache
	stop   chan struct{}
	wg     sync.WaitGroup
}

// New builds a NameServer and loads its KV config.
func New(opts Options) (*Server, error) {
	if opts.ListenAddr == "" {
		opts.ListenAddr = "0.0.0.0:9876"
	}
	if opts.BrokerExpire <= 0 {
		opts.BrokerExpire = 120 * time.Second
	}
	if opts.ScanInterval <= 0 {
		opts.ScanInterval = 10 * time.Second
	}
	log := opts.Logger.With().Str("component", "namesrv").Logger()
	kv, err := OpenKVStore(opts.KVConfigPath, log)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, log: log, routes: NewRouteTable(log), kv: kv, stop: make(chan struct{})}
	s.rs = remoting.NewServer(remoting.Options{
		Listeners:   []remoting.Listener{{Addr: opts.ListenAddr}},
		IdleTimeout: opts.IdleTimeout,
		EventLoops:  opts.EventLoops,
		Limits:      opts.Transport.Limits,
		TLS:         opts.Transport.TLS,
		Logger:      log,
		OnClose:     s.routes.RemoveConn,
	}, s.handlers())
	return s, nil
}

// Start listens and starts the broker-expiry scan.
func (s *Server) Start() error {
	if err := s.rs.Start(); err != nil {
		return err
	}
	s.wg.Add(1)
	go s.scanLoop()
	s.log.Info().Str("addr", s.Addr()).Msg("name server started")
	return nil
}

// Addr returns the bound "ip:port".
func (s *Server) Addr() string { return s.rs.Addrs()[0] }

// Routes exposes the route table (for tests and the all-in-one binary).
func (s *Server) Routes() *RouteTable { return s.routes }

// KV exposes the KV store.
func (s *Server) KV() *KVStore { return s.kv }

func (s *Server) scanLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.ScanInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if n := s.routes.ScanNotActive(s.opts.BrokerExpire); n > 0 {
				s.log.Info().Int("expired", n).Msg("inactive brokers removed")
			}
		}
	}
}

// Shutdown stops the server.
func (s *Server) Shutdown(ctx context.Context) error {
	select {
	case <-s.stop:
		return nil
	default:
		close(s.stop)
	}
	s.wg.Wait()
	err := s.rs.Shutdown(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	s.log.Info().Msg("name server stopped")
	return nil
}
