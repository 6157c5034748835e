package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"
)

// Options configure a Server.
type Options struct {
	Addr   string // host:port; port 0 picks one (tests)
	Pprof  bool   // serve net/http/pprof under /debug/pprof/
	Logger zerolog.Logger
}

// Server is a node's HTTP endpoint: /metrics (Prometheus text), /healthz, /readyz and,
// with Options.Pprof, /debug/pprof/. It runs on net/http's own goroutines, never on a
// gnet event loop; a scrape reads the node's state from the scraping goroutine.
type Server struct {
	Registry *prometheus.Registry // the Go runtime and process collectors are registered
	Health   *Health

	ln  net.Listener
	srv *http.Server
	log zerolog.Logger
}

// Listen binds o.Addr and starts serving; it returns once the port is bound.
func Listen(o Options) (*Server, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s := &Server{Registry: reg, Health: &Health{}, log: o.Logger.With().Str("component", "http").Logger()}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: promLogger{s.log}, ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/healthz", s.Health.serveHealthz)
	mux.HandleFunc("/readyz", s.Health.serveReadyz)
	if o.Pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, err
	}
	s.ln = ln
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error().Err(err).Msg("http server")
		}
	}()
	s.log.Info().Str("addr", ln.Addr().String()).Bool("pprof", o.Pprof).Msg("metrics and health endpoint listening")
	return s, nil
}

// Addr is the bound address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Shutdown stops serving, waiting for requests in flight until ctx ends.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

type promLogger struct{ l zerolog.Logger }

func (p promLogger) Println(v ...any) { p.l.Warn().Msgf("%v", v) }
