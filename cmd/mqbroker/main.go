// Command mqbroker is Skyrocket's Broker, started like Java's bin/mqbroker:
//
//	mqbroker [-c broker.conf] [-n "ip:port;ip:port"] [-p | -m] [-h]
//
// -c reads a Java properties file with BrokerConfig, NettyServerConfig, NettyClientConfig
// and MessageStoreConfig names (brokerClusterName, brokerName, brokerId, brokerRole,
// flushDiskType, storePathRootDir, ...) and Java's defaults for everything it does not
// set; -n sets namesrvAddr (default $NAMESRV_ADDR); -p prints every item with its
// effective value and exits, -m only the important ones. The long Java names work too
// (--configFile, --namesrvAddr, --printConfigItem, --printImportantConfig, --help).
//
// Unknown properties are warnings (Java ignores them); values that do not parse, a bad
// namesrvAddr, a SLAVE with brokerId 0 and features Skyrocket refuses (DLedger, ACL, the
// address server, multi-path CommitLogs) print a message and exit 1.
//
// Skyrocket adds -bind IP (listen on one address instead of every interface; it is also
// the advertised brokerIP1/brokerIP2 unless the file sets them) and
// -log-level (trace, debug, info, warn, error; default $SKYROCKET_LOG_LEVEL or info).
// Logs go to stderr; -log-dir DIR (or $SKYROCKET_LOG_DIR) writes them to DIR/broker.log
// instead, Java's name (Java: ~/logs/rocketmqlogs), rotated at 128 MB, 20 files kept gzipped.
// SIGINT and SIGTERM drain, then shut down cleanly: the broker re-registers with the
// NameServers without write permission and keeps serving sends in flight and pulls for
// -drain (default 35 s, or $SKYROCKET_DRAIN; 0 skips it), so producers move to the other
// brokers at their 30 s route refresh without a failed send (a slave instead unregisters
// at once and keeps serving pulls, suggesting its master); then it unregisters, answers
// held pulls, persists consumer offsets, flushes and closes the store (checkpoint, abort
// file removed) and exits 0. A second signal ends the drain at once (the stop is still
// clean); a third kills the process. -pid-file (default <storePathRootDir>/broker.pid)
// is written once the broker started and removed when it stops: mqshutdown reads it.
//
// Java: BrokerStartup.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/server"
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

// DrainEnv is the environment variable with -drain's default (a Go duration, "0" for none).
const DrainEnv = server.DrainEnv

type options struct {
	configFile     string
	namesrv        string
	namesrvSet     bool
	print          bool
	printImportant bool
	help           bool
	bind           string
	logLevel       string
	logDir         string
	drain          time.Duration
	pidFile        string
}

// usage is Java's -h text (commons-cli HelpFormatter layout) plus Skyrocket's flags.
const usage = `usage: mqbroker [-c <arg>] [-h] [-m] [-n <arg>] [-p] [-bind <ip>] [-log-level <level>] [-log-dir <dir>] [-drain <duration>] [-pid-file <path>]
 -c,--configFile <arg>          Broker config properties file
 -h,--help                      Print help
 -m,--printImportantConfig      Print important config item
 -n,--namesrvAddr <arg>         Name server address list, eg: '192.168.0.1:9876;192.168.0.2:9876'
 -p,--printConfigItem           Print all config item
 -bind <ip>                     Skyrocket: listen on this IP only (default: every interface, as Java);
                                also brokerIP1/brokerIP2 unless the config file sets them
 -log-level <level>             Skyrocket: trace, debug, info, warn, error (default: $SKYROCKET_LOG_LEVEL or info)
 -log-dir <dir>                 Skyrocket: log to <dir>/broker.log (128 MB files, 20 kept, gzipped) instead of stderr,
                                e.g. ~/logs/rocketmqlogs as Java (default: $SKYROCKET_LOG_DIR)
 -drain <duration>              Skyrocket: on SIGTERM, serve read-only this long before stopping (default: $SKYROCKET_DRAIN or 35s; 0: none)
 -pid-file <path>               Skyrocket: write the process id here (default: <storePathRootDir>/broker.pid; "none": no file)
`

func parseFlags(args []string, stderr io.Writer) (*options, *flag.FlagSet, error) {
	o := &options{}
	fs := flag.NewFlagSet("mqbroker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, n := range []string{"c", "configFile"} {
		fs.StringVar(&o.configFile, n, "", "Broker config properties file")
	}
	for _, n := range []string{"n", "namesrvAddr"} {
		fs.StringVar(&o.namesrv, n, "", "Name server address list, eg: '192.168.0.1:9876;192.168.0.2:9876'")
	}
	for _, n := range []string{"p", "printConfigItem"} {
		fs.BoolVar(&o.print, n, false, "Print all config item")
	}
	for _, n := range []string{"m", "printImportantConfig"} {
		fs.BoolVar(&o.printImportant, n, false, "Print important config item")
	}
	for _, n := range []string{"h", "help"} {
		fs.BoolVar(&o.help, n, false, "Print help")
	}
	fs.StringVar(&o.bind, "bind", "", "Skyrocket: listen on this IP only (default: every interface, as Java)")
	fs.StringVar(&o.logLevel, "log-level", server.DefaultLogLevel(), "Skyrocket: log level (trace, debug, info, warn, error; env "+server.LogLevelEnv+")")
	fs.StringVar(&o.logDir, "log-dir", os.Getenv(server.LogDirEnv), "Skyrocket: log to <dir>/broker.log with rotation instead of stderr (env "+server.LogDirEnv+")")
	drain := server.DefaultDrainWindow
	if v := strings.TrimSpace(os.Getenv(DrainEnv)); v != "" {
		d, err := parseDrain(v)
		if err != nil {
			fmt.Fprintf(stderr, "mqbroker: $%s: %v\n", DrainEnv, err)
			return nil, fs, err
		}
		drain = d
	}
	fs.Func("drain", "Skyrocket: on SIGTERM, serve read-only this long before stopping", func(v string) error {
		d, err := parseDrain(v)
		drain = d
		return err
	})
	fs.StringVar(&o.pidFile, "pid-file", "", "Skyrocket: pid file (default <storePathRootDir>/broker.pid; none: no file)")
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	if err := fs.Parse(args); err != nil {
		return nil, fs, err
	}
	o.drain = drain
	fs.Visit(func(f *flag.Flag) { o.namesrvSet = o.namesrvSet || f.Name == "n" || f.Name == "namesrvAddr" })
	return o, fs, nil
}

// parseDrain takes a Go duration ("35s", "1m") or a bare number of seconds.
func parseDrain(v string) (time.Duration, error) { return server.ParseDrainWindow(v) }

// run is main without the process and without a second-signal cut: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runDrain(ctx, nil, args, stdout, stderr)
}

// runDrain is run; closing cut ends a drain early.
func runDrain(ctx context.Context, cut <-chan struct{}, args []string, stdout, stderr io.Writer) int {
	o, fs, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	if o.help {
		fmt.Fprint(stdout, usage) // Java's HelpFormatter prints to stdout
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mqbroker: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 1
	}
	log, err := server.NewConsoleLogger(stderr, o.logLevel)
	if err == nil && o.logDir != "" {
		var closer io.Closer
		if log, closer, err = server.NewFileLogger(o.logDir, "broker.log", o.logLevel); err == nil {
			defer closer.Close()
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "mqbroker:", err)
		return 1
	}
	cfg, err := loadConfig(o, log)
	if err != nil {
		fmt.Fprintln(stderr, "mqbroker:", err)
		return 1
	}
	switch {
	case o.print:
		return exitOnPrint(cfg.Print(stdout), stderr)
	case o.printImportant:
		return exitOnPrint(cfg.PrintImportant(stdout), stderr)
	}

	opts, err := server.BrokerOptions(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mqbroker:", err)
		return 1
	}
	for _, w := range server.IneffectiveBrokerProperties(cfg) {
		log.Warn().Str("property", w.Key).Str("value", w.Value).Str("why", w.Reason).Msg("property has no effect in Skyrocket")
	}
	if cfg.Store.BrokerRole == configs.Slave && cfg.Broker.BrokerID <= 0 {
		fmt.Fprintln(stderr, "Slave's brokerId must be > 0") // Java: BrokerStartup exits -3
		return 3
	}
	if o.bind != "" {
		if net.ParseIP(o.bind) == nil {
			fmt.Fprintf(stderr, "mqbroker: -bind %q is not an IP address\n", o.bind)
			return 1
		}
		opts.ListenAddr = net.JoinHostPort(o.bind, strconv.Itoa(int(cfg.Server.ListenPort)))
		// Bound to one address, the broker must also advertise it unless told otherwise:
		// the default brokerIP1 (the host's first address) would not be served.
		if _, set := cfg.FileProps["brokerIP1"]; !set && !net.ParseIP(o.bind).IsUnspecified() {
			opts.BrokerIP1 = o.bind
			if _, set := cfg.FileProps["brokerIP2"]; !set {
				opts.BrokerIP2 = o.bind
			}
		}
	}
	opts.Logger = log
	httpOpts, err := server.BrokerMetrics(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mqbroker:", err)
		return 1
	}
	node, err := server.StartNode(server.NodeOptions{Broker: &opts, BrokerHTTP: httpOpts, HTTPHost: o.bind, Logger: log})
	if err != nil {
		fmt.Fprintln(stderr, "mqbroker:", err)
		return 1
	}
	// Java's tip (BrokerStartup#start), which start scripts grep for; then where it listens.
	tip := fmt.Sprintf("The broker[%s, %s] boot success. serializeType=JSON", cfg.Broker.BrokerName, node.Broker.Addr())
	if cfg.Broker.NamesrvAddr != "" {
		tip += " and name server is " + cfg.Broker.NamesrvAddr
	}
	fmt.Fprintln(stdout, tip)
	fmt.Fprintf(stdout, "listening on %s, store %s\n", strings.Join(node.Broker.ListenAddrs(), " "), cfg.Store.StorePathRootDir)
	// Written once the store's lock is ours: a second broker on the same store fails
	// above and leaves the first one's file alone.
	pidFile := o.pidFile
	if pidFile == "" {
		pidFile = filepath.Join(cfg.Store.StorePathRootDir, "broker.pid")
	}
	if pidFile != "none" {
		removePid, err := server.WritePidFile(pidFile)
		if err != nil {
			log.Warn().Err(err).Msg("pid file not written; mqshutdown needs -p or the pid")
		} else {
			defer removePid()
		}
	}

	if err := node.RunDrain(ctx, o.drain, cut); err != nil {
		log.Error().Err(err).Msg("shutdown")
		return 1
	}
	log.Info().Msg("The broker shutdown OK") // a line scripts can wait for
	return 0
}

// loadConfig builds the configuration as BrokerStartup does: Java's defaults, the -c
// file, -n, then Resolve.
func loadConfig(o *options, log zerolog.Logger) (*configs.Broker, error) {
	cfg := configs.NewBroker()
	if o.configFile != "" {
		unknown, err := cfg.LoadFile(o.configFile)
		for _, k := range unknown {
			log.Warn().Str("file", o.configFile).Str("property", k).Msg("unknown property ignored (as Java ignores it)")
		}
		if err != nil {
			return nil, fmt.Errorf("bad config %s: %w", o.configFile, err)
		}
	}
	if o.namesrvSet {
		cfg.Broker.NamesrvAddr = o.namesrv
	}
	if err := cfg.Resolve(); err != nil {
		return nil, err
	}
	return cfg, nil
}

func exitOnPrint(err error, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintln(stderr, "mqbroker:", err)
		return 1
	}
	return 0
}
