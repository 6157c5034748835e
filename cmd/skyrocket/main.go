// Command skyrocket runs a NameServer and a Broker in one process with a local data
// directory: the quickest way to a working RocketMQ (`make run`).
//
//	skyrocket [-data ./data] [-c broker.conf] [-namesrv-port 9876] [-port 10911] [-bind IP] [-log-level info]
//
// Defaults: NameServer on 9876, Broker on 10911 (VIP 10909 = port-2; slaves replicate
// from the HA port 10912 = port+1), brokerName broker-a, brokerIP1
// 127.0.0.1 (or the -bind address), enablePropertyFilter=true (Java's default is false),
// the broker registered with this process's NameServer. Data lives under -data:
//
//	<data>/store                      the broker store (storePathRootDir)
//	<data>/store/config/broker.properties  where broker config updates would persist
//	<data>/namesrv/kvConfig.json      the NameServer KV store
//	<data>/namesrv/namesrv.properties where UPDATE_NAMESRV_CONFIG persists
//
// -c broker.conf (Java property names) overrides these defaults, except that flags given
// explicitly win over the file and the broker always registers with its own NameServer
// (namesrvAddr from the file is added; $NAMESRV_ADDR is not read).
//
// Ctrl-C (SIGINT) or SIGTERM drain as mqbroker does, then shut down cleanly: the broker
// re-registers without write permission (a slave: unregisters) and keeps serving for
// -drain (default 35 s, or $SKYROCKET_DRAIN; 0 skips it), while this process's NameServer
// goes on serving routes, so producers move to the other brokers at their route refresh;
// then the broker stops (unregister, flush, checkpoint, abort removed) and the NameServer
// last. A process alone in its own NameServer (no other broker registered with it, no other
// NameServer configured: `make run`) has nowhere to send its clients and stops at once.
// A second signal ends the drain at once (the stop stays clean); a third kills the process.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/server"
	"github.com/skyrocket-mq/skyrocket/server/broker"
	"github.com/skyrocket-mq/skyrocket/server/namesrv"
)

func main() {
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	cut := make(chan struct{})
	go func() {
		<-sigs
		cancel() // drain, then stop
		<-sigs
		close(cut)        // end the drain now; the stop stays clean
		signal.Stop(sigs) // a third signal kills the process the default way
	}()
	os.Exit(runDrain(ctx, cut, os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	data        string
	configFile  string
	namesrvPort int
	port        int
	bind        string
	logLevel    string
	drain       time.Duration
	help        bool
	set         map[string]bool // flags given on the command line
}

func parseFlags(args []string, stderr io.Writer) (*options, *flag.FlagSet, error) {
	o := &options{set: map[string]bool{}}
	fs := flag.NewFlagSet("skyrocket", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.data, "data", "./data", "data directory (store, NameServer KV config)")
	fs.StringVar(&o.configFile, "c", "", "optional broker.conf (Java property names)")
	fs.IntVar(&o.namesrvPort, "namesrv-port", 9876, "NameServer port")
	fs.IntVar(&o.port, "port", 10911, "Broker port (listenPort); VIP is port-2, HA port+1")
	fs.StringVar(&o.bind, "bind", "", "listen on this IP only (default: every interface); also the default brokerIP1")
	fs.StringVar(&o.logLevel, "log-level", server.DefaultLogLevel(), "log level (trace, debug, info, warn, error; env "+server.LogLevelEnv+")")
	fs.BoolVar(&o.help, "h", false, "print help")
	o.drain = server.DefaultDrainWindow
	if v := strings.TrimSpace(os.Getenv(server.DrainEnv)); v != "" {
		d, err := server.ParseDrainWindow(v)
		if err != nil {
			fmt.Fprintf(stderr, "skyrocket: $%s: %v\n", server.DrainEnv, err)
			return nil, fs, err
		}
		o.drain = d
	}
	fs.Func("drain", "on SIGTERM, serve read-only this long before stopping (default $"+server.DrainEnv+" or 35s; 0: none)", func(v string) error {
		d, err := server.ParseDrainWindow(v)
		o.drain = d
		return err
	})
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: skyrocket [-data <dir>] [-c <broker.conf>] [-namesrv-port <port>] [-port <port>] [-bind <ip>] [-log-level <level>] [-drain <duration>]")
		fmt.Fprintln(fs.Output(), "NameServer and Broker in one process.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, fs, err
	}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	return o, fs, nil
}

// runDrain is main without the process: it returns the exit code; closing cut ends a
// drain early.
func runDrain(ctx context.Context, cut <-chan struct{}, args []string, stdout, stderr io.Writer) int {
	o, fs, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	if o.help {
		fs.SetOutput(stdout)
		fs.Usage()
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "skyrocket: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 1
	}
	log, err := server.NewConsoleLogger(stderr, o.logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "skyrocket:", err)
		return 1
	}
	if o.bind != "" && net.ParseIP(o.bind) == nil {
		fmt.Fprintf(stderr, "skyrocket: -bind %q is not an IP address\n", o.bind)
		return 1
	}
	data, err := filepath.Abs(o.data)
	if err != nil {
		fmt.Fprintln(stderr, "skyrocket:", err)
		return 1
	}

	nsOpts, nsAddr := namesrvOptions(o, data)
	nsOpts.Logger = log
	bcfg, err := brokerConfig(o, data, nsAddr)
	if err != nil {
		fmt.Fprintln(stderr, "skyrocket:", err)
		return 1
	}
	for _, k := range bcfg.unknown {
		log.Warn().Str("file", o.configFile).Str("property", k).Msg("unknown property ignored (as Java ignores it)")
	}
	brOpts, err := server.BrokerOptions(bcfg.cfg)
	if err != nil {
		fmt.Fprintln(stderr, "skyrocket:", err)
		return 1
	}
	for _, w := range server.IneffectiveBrokerProperties(bcfg.cfg) {
		log.Warn().Str("property", w.Key).Str("value", w.Value).Str("why", w.Reason).Msg("property has no effect in Skyrocket")
	}
	brOpts.ListenAddr = net.JoinHostPort(listenIP(o.bind), strconv.Itoa(int(bcfg.cfg.Server.ListenPort)))
	brOpts.Logger = log
	httpOpts, err := server.BrokerMetrics(bcfg.cfg)
	if err != nil {
		fmt.Fprintln(stderr, "skyrocket:", err)
		return 1
	}
	// One endpoint serves both: the NameServer's figures join the broker's on its port.
	node, err := server.StartNode(server.NodeOptions{Namesrv: &nsOpts, Broker: &brOpts, NamesrvHTTP: httpOpts,
		BrokerHTTP: httpOpts, HTTPHost: listenIP(o.bind), Logger: log})
	if err != nil {
		fmt.Fprintln(stderr, "skyrocket:", err)
		return 1
	}
	printBanner(stdout, o, nsAddr, bcfg.cfg, node, data)

	if err := node.RunDrain(ctx, o.drain, cut); err != nil {
		log.Error().Err(err).Msg("shutdown")
		return 1
	}
	fmt.Fprintln(stdout, "Skyrocket stopped.")
	return 0
}

func listenIP(bind string) string {
	if bind == "" {
		return "0.0.0.0"
	}
	return bind
}

// connectIP is the address the in-process broker and local clients use to reach a
// server listening on listenIP(bind).
func connectIP(bind string) string {
	if bind == "" || net.ParseIP(bind).IsUnspecified() {
		return "127.0.0.1"
	}
	return bind
}

// namesrvOptions returns the NameServer's options with its files under <data>/namesrv,
// and the address the broker registers with.
func namesrvOptions(o *options, data string) (namesrv.Options, string) {
	n := configs.NewNamesrv()
	n.Server.ListenPort = int32(o.namesrvPort)
	n.Namesrv.KvConfigPath = filepath.Join(data, "namesrv", "kvConfig.json")
	n.Namesrv.ConfigStorePath = filepath.Join(data, "namesrv", "namesrv.properties")
	opts := server.NamesrvOptions(n)
	opts.ListenAddr = net.JoinHostPort(listenIP(o.bind), strconv.Itoa(o.namesrvPort))
	return opts, net.JoinHostPort(connectIP(o.bind), strconv.Itoa(o.namesrvPort))
}

type loadedBroker struct {
	cfg     *configs.Broker
	unknown []string
}

// brokerConfig applies, in order: Java's defaults, the all-in-one defaults, the -c file,
// the flags given explicitly, this process's NameServer, then BrokerStartup's Resolve.
func brokerConfig(o *options, data, nsAddr string) (loadedBroker, error) {
	cfg := configs.NewBroker()
	cfg.Broker.NamesrvAddr = ""
	cfg.Broker.BrokerName = "broker-a"
	cfg.Broker.BrokerIP1 = connectIP(o.bind)
	cfg.Broker.BrokerIP2 = cfg.Broker.BrokerIP1
	cfg.Broker.EnablePropertyFilter = true
	cfg.Server.ListenPort = int32(o.port)
	cfg.Store.StorePathRootDir = filepath.Join(data, "store")
	cfg.ConfigPath = filepath.Join(data, "store", "config", "broker.properties")
	var unknown []string
	if o.configFile != "" {
		var err error
		if unknown, err = cfg.LoadFile(o.configFile); err != nil {
			return loadedBroker{}, fmt.Errorf("bad config %s: %w", o.configFile, err)
		}
	}
	if o.set["port"] {
		cfg.Server.ListenPort = int32(o.port)
	}
	if o.set["data"] {
		cfg.Store.StorePathRootDir = filepath.Join(data, "store")
	}
	addrs := []string{nsAddr}
	for _, a := range broker.SplitNamesrvAddr(cfg.Broker.NamesrvAddr) {
		if !slices.Contains(addrs, a) {
			addrs = append(addrs, a)
		}
	}
	cfg.Broker.NamesrvAddr = strings.Join(addrs, ";")
	if err := cfg.Resolve(); err != nil {
		return loadedBroker{}, err
	}
	return loadedBroker{cfg: cfg, unknown: unknown}, nil
}

// printBanner writes the banner in one Write, so a reader of stdout (a test, a
// supervisor) never sees its first line without the rest.
func printBanner(out io.Writer, o *options, nsAddr string, cfg *configs.Broker, node *server.Node, data string) {
	w := new(bytes.Buffer)
	defer func() { _, _ = out.Write(w.Bytes()) }()
	port := int(cfg.Server.ListenPort)
	where := "every interface"
	if o.bind != "" {
		where = o.bind
	}
	fmt.Fprintf(w, "Skyrocket is running (NameServer + Broker, listening on %s)\n", where)
	fmt.Fprintf(w, "  NameServer  %s\n", nsAddr)
	fmt.Fprintf(w, "  Broker      %s  %s/%s, VIP port %d, HA port %d\n",
		node.Broker.Addr(), cfg.Broker.BrokerClusterName, cfg.Broker.BrokerName, port-2, cfg.Store.HaListenPort)
	fmt.Fprintf(w, "  Data        %s\n", data)
	if cfg.Store.StorePathRootDir != filepath.Join(data, "store") {
		fmt.Fprintf(w, "  Store       %s\n", cfg.Store.StorePathRootDir)
	}
	fmt.Fprintf(w, "Clients: NAMESRV_ADDR=%s. Ctrl-C stops.\n", nsAddr)
}
