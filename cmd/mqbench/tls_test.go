package main

import (
	"context"
	"crypto/tls"
	"io"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/server/namesrv"
	"github.com/skyrocket-mq/skyrocket/server/remoting"
)

// -tls connects every connection with TLS: against a NameServer in enforcing mode (which
// closes plaintext connections) the route run, its stand-in broker included, succeeds.
func TestRoute_TLS_EnforcingNamesrv(t *testing.T) {
	t.Cleanup(func() { dialTLS = false })
	cert, err := remoting.SelfSignedCertificate()
	if err != nil {
		t.Fatal(err)
	}
	s, err := namesrv.New(namesrv.Options{ListenAddr: "127.0.0.1:0", Transport: remoting.Transport{
		TLS: remoting.TLS{Mode: remoting.TLSEnforcing, Config: &tls.Config{Certificates: []tls.Certificate{cert}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	r := mustRun(t, "route", "-n", s.Addr(), "-register", "-t", "T1", "-c", "2", "-m", "100", "-tls")
	noErrors(t, r)
	if r.Messages != 100 {
		t.Fatalf("queries %d over TLS, want 100", r.Messages)
	}
	if _, _, err := modeResult(context.Background(), "route", []string{"-n", s.Addr(), "-register", "-t", "T1", "-c", "1", "-m", "10", "-timeout", "2s"}, io.Discard); err == nil {
		t.Fatal("a plaintext run against an enforcing NameServer succeeded")
	}
}
