package remoting

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// Shutdown refuses new connections before it stops the event loops: gnet's acceptor would
// otherwise accept until the end and hand connections to loops that have exited, leaving
// the client waiting on a connection nobody serves or closes.
func TestServer_StopAccepting_RefusesNewConnections(t *testing.T) {
	s := startServer(t, Options{}, []Route{{Code: protocol.CodeSendMessage, Handler: echo}})
	addr := s.Addrs()[0]
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	s.stopAccepting()
	c, err = net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
		t.Fatal("a connection was accepted after the listener was shut down")
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial after stopAccepting: %v, want connection refused", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown after stopAccepting: %v", err)
	}
}
