package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
)

// The two server modes: nullbroker (the ceiling) and namesrv (Skyrocket's NameServer in
// this process, so route runs need no other binary). Both serve until SIGINT/SIGTERM and
// print their bound address on stdout once they accept.

func runNullBroker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("nullbroker", flag.ContinueOnError)
	listen := fs.String("l", "127.0.0.1:10911", "listen address (port 0 picks one)")
	loops := fs.Int("loops", 0, "event loops (default: one per CPU)")
	ns := fs.String("n", "", "NameServer address: register as a broker owning the -t topics, every 30 s")
	topics := fs.String("t", "BenchmarkTest", "topics registered with -n (comma-separated); the first names the canned pull records")
	queues := fs.Int("q", 4, "read/write queues per registered topic")
	name := fs.String("name", "mqbench-null", "broker name registered with -n")
	cluster := fs.String("cluster", "DefaultCluster", "cluster name registered with -n")
	pullSize := fs.Int("pull-size", 1024, "body size of the canned records answering PULL_MESSAGE")
	region := fs.String("region", "DefaultRegion", "MSG_REGION of send responses")
	trace := fs.Bool("trace-on", true, "TRACE_ON of send responses")
	level := fs.String("log-level", "warn", "log level")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log, err := newLogger(stderr, *level)
	if err != nil {
		return err
	}
	tl := splitList(*topics)
	if len(tl) == 0 {
		return fmt.Errorf("%w: -t is empty", errUsage)
	}
	nb := newNullBroker(nullOptions{Listen: *listen, EventLoops: *loops, Topic: tl[0], PullSize: *pullSize,
		Region: *region, TraceOn: *trace, Logger: log})
	if err := nb.Start(); err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = nb.Shutdown(sctx)
	}()
	if *ns != "" {
		r := startRegistrar(*ns, brokerRegistration{cluster: *cluster, name: *name, addr: nb.Addr(), topics: tl, queues: *queues,
			version: protocol.DataVersion{Timestamp: time.Now().UnixMilli()}}, log)
		defer r.close()
		if err := <-r.initial; err != nil {
			return fmt.Errorf("mqbench: register with %s: %w", *ns, err)
		}
	}
	fmt.Fprintf(stdout, "nullbroker listening on %s\n", nb.Addr())
	<-ctx.Done()
	fmt.Fprintf(stdout, "nullbroker acknowledged %d messages\n", nb.sends.Load())
	return nil
}

func runNamesrv(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("namesrv", flag.ContinueOnError)
	listen := fs.String("l", "127.0.0.1:9876", "listen address (port 0 picks one)")
	loops := fs.Int("loops", 0, "event loops (default: one per CPU)")
	level := fs.String("log-level", "warn", "log level")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log, err := newLogger(stderr, *level)
	if err != nil {
		return err
	}
	s, err := namesrv.New(namesrv.Options{ListenAddr: *listen, EventLoops: *loops, Logger: log})
	if err != nil {
		return err
	}
	if err := s.Start(); err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(sctx)
	}()
	fmt.Fprintf(stdout, "namesrv listening on %s\n", s.Addr())
	<-ctx.Done()
	return nil
}
