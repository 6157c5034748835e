// Command mqnamesrv is Skyrocket's NameServer, started like Java's bin/mqnamesrv:
//
//	mqnamesrv [-c namesrv.conf] [-p] [-h]
//
// -c reads a Java properties file with NamesrvConfig and NettyServerConfig names
// (listenPort, kvConfigPath, orderMessageEnable, ...); its path becomes configStorePath,
// where UPDATE_NAMESRV_CONFIG persists. -p prints every item with its effective value and
// exits. Defaults are Java's: port 9876, kvConfigPath $HOME/namesrv/kvConfig.json.
// The long Java names work too (--configFile, --printConfigItem, --help), and -n is
// accepted and ignored, as Java's NameServer ignores it.
//
// Skyrocket adds -bind IP (listen on one address instead of every interface) and
// -log-level (trace, debug, info, warn, error; default $SKYROCKET_LOG_LEVEL or info).
// Logs go to stderr, one line per event; -log-dir DIR (or $SKYROCKET_LOG_DIR) writes them
// to DIR/namesrv.log instead (Java: ~/logs/rocketmqlogs/namesrv.log), rotated at 128 MB,
// 20 files kept gzipped. SIGINT and SIGTERM shut down cleanly.
// -pid-file (default namesrv.pid next to kvConfigPath: $HOME/namesrv/namesrv.pid) is
// written once it listens and removed when it stops: mqshutdown reads it.
//
// Java: NamesrvStartup.
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
	"syscall"

	"github.com/skyrocket-mq/skyrocket/configs"
	"github.com/skyrocket-mq/skyrocket/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal during the shutdown kills the process the default way
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	configFile string
	print      bool
	help       bool
	namesrv    string
	bind       string
	logLevel   string
	logDir     string
	pidFile    string
}

// usage is Java's -h text (commons-cli HelpFormatter layout) plus Skyrocket's flags.
const usage = `usage: mqnamesrv [-c <arg>] [-h] [-n <arg>] [-p] [-bind <ip>] [-log-level <level>] [-log-dir <dir>] [-pid-file <path>]
 -c,--configFile <arg>    Name server config properties file
 -h,--help                Print help
 -n,--namesrvAddr <arg>   Name server address list, eg: '192.168.0.1:9876;192.168.0.2:9876' (ignored, as in Java)
 -p,--printConfigItem     Print all config items
 -bind <ip>               Skyrocket: listen on this IP only (default: every interface, as Java)
 -log-level <level>       Skyrocket: trace, debug, info, warn, error (default: $SKYROCKET_LOG_LEVEL or info)
 -log-dir <dir>           Skyrocket: log to <dir>/namesrv.log (128 MB files, 20 kept, gzipped) instead of stderr,
                          e.g. ~/logs/rocketmqlogs as Java (default: $SKYROCKET_LOG_DIR)
 -pid-file <path>         Skyrocket: write the process id here (default: namesrv.pid beside kvConfigPath; "none": no file)
`

func parseFlags(args []string, stderr io.Writer) (*options, *flag.FlagSet, error) {
	o := &options{}
	fs := flag.NewFlagSet("mqnamesrv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, n := range []string{"c", "configFile"} {
		fs.StringVar(&o.configFile, n, "", "Name server config properties file")
	}
	for _, n := range []string{"p", "printConfigItem"} {
		fs.BoolVar(&o.print, n, false, "Print all config items")
	}
	for _, n := range []string{"h", "help"} {
		fs.BoolVar(&o.help, n, false, "Print help")
	}
	for _, n := range []string{"n", "namesrvAddr"} {
		fs.StringVar(&o.namesrv, n, "", "Name server address list (accepted and ignored, as in Java)")
	}
	fs.StringVar(&o.bind, "bind", "", "Skyrocket: listen on this IP only (default: every interface, as Java)")
	fs.StringVar(&o.logLevel, "log-level", server.DefaultLogLevel(), "Skyrocket: log level (trace, debug, info, warn, error; env "+server.LogLevelEnv+")")
	fs.StringVar(&o.logDir, "log-dir", os.Getenv(server.LogDirEnv), "Skyrocket: log to <dir>/namesrv.log with rotation instead of stderr (env "+server.LogDirEnv+")")
	fs.StringVar(&o.pidFile, "pid-file", "", "Skyrocket: pid file (default namesrv.pid beside kvConfigPath; none: no file)")
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	return o, fs, fs.Parse(args)
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
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
		fmt.Fprintf(stderr, "mqnamesrv: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 1
	}
	log, err := server.NewConsoleLogger(stderr, o.logLevel)
	if err == nil && o.logDir != "" {
		var closer io.Closer
		if log, closer, err = server.NewFileLogger(o.logDir, "namesrv.log", o.logLevel); err == nil {
			defer closer.Close()
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "mqnamesrv:", err)
		return 1
	}

	cfg := configs.NewNamesrv()
	if o.configFile != "" {
		unknown, err := cfg.LoadFile(o.configFile)
		for _, k := range unknown {
			log.Warn().Str("file", o.configFile).Str("property", k).Msg("unknown property ignored (as Java ignores it)")
		}
		if err != nil {
			fmt.Fprintf(stderr, "mqnamesrv: bad config %s: %v\n", o.configFile, err)
			return 1
		}
		// Java prints this line on stdout too (NamesrvStartup).
		fmt.Fprintf(stdout, "load config properties file OK, %s\n", o.configFile)
	}
	if o.print {
		if err := cfg.Print(stdout); err != nil {
			fmt.Fprintln(stderr, "mqnamesrv:", err)
			return 1
		}
		return 0
	}
	for _, w := range server.IneffectiveNamesrvProperties(cfg) {
		log.Warn().Str("property", w.Key).Str("value", w.Value).Str("why", w.Reason).Msg("property has no effect in Skyrocket")
	}

	opts := server.NamesrvOptions(cfg)
	if o.bind != "" {
		if net.ParseIP(o.bind) == nil {
			fmt.Fprintf(stderr, "mqnamesrv: -bind %q is not an IP address\n", o.bind)
			return 1
		}
		opts.ListenAddr = net.JoinHostPort(o.bind, strconv.Itoa(int(cfg.Server.ListenPort)))
	}
	opts.Logger = log
	httpOpts, err := server.NamesrvMetrics(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mqnamesrv:", err)
		return 1
	}
	node, err := server.StartNode(server.NodeOptions{Namesrv: &opts, NamesrvHTTP: httpOpts, HTTPHost: o.bind, Logger: log})
	if err != nil {
		fmt.Fprintln(stderr, "mqnamesrv:", err)
		return 1
	}
	// Java's tip, which start scripts grep for; then where it listens.
	fmt.Fprintln(stdout, "The Name Server boot success. serializeType=JSON")
	fmt.Fprintf(stdout, "listening on %s, kvConfigPath %s\n", node.Namesrv.Addr(), cfg.Namesrv.KvConfigPath)

	pidFile := o.pidFile
	if pidFile == "" {
		pidFile = filepath.Join(filepath.Dir(cfg.Namesrv.KvConfigPath), "namesrv.pid")
	}
	if pidFile != "none" {
		removePid, err := server.WritePidFile(pidFile)
		if err != nil {
			log.Warn().Err(err).Msg("pid file not written; mqshutdown needs -p or the pid")
		} else {
			defer removePid()
		}
	}

	err = node.Run(ctx)
	if err != nil {
		log.Error().Err(err).Msg("shutdown")
		return 1
	}
	return 0
}
