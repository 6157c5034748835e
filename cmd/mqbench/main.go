package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"
)

// errUsage is returned when flags or arguments are invalid.
var errUsage = errors.New("usage")

const usage = `mqbench: a RocketMQ remoting-protocol load generator and null broker

usage: mqbench <mode> [flags]

modes:
  produce     send messages to a broker (-b addr, or -n namesrv + route lookup)
  consume     pull messages from a broker like a push consumer
  route       GET_ROUTEINFO_BY_TOPIC queries against a NameServer
  nullbroker  a broker that acknowledges sends without storing them (the ceiling)
  namesrv     an in-process Skyrocket NameServer (server/namesrv), for route runs
  compare     run one mode against two targets with the same settings; print ratios

"mqbench <mode> -h" lists a mode's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "mqbench:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "mqbench:", err)
		os.Exit(1)
	}
}

// run dispatches one mode. It is main without the process: tests call it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: no mode given", errUsage)
	}
	switch args[0] {
	case "produce", "consume", "route":
		return runMode(ctx, args[0], args[1:], stdout, stderr)
	case "nullbroker":
		return runNullBroker(ctx, args[1:], stdout, stderr)
	case "namesrv":
		return runNamesrv(ctx, args[1:], stdout, stderr)
	case "compare":
		return runCompare(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("%w: unknown mode %q", errUsage, args[0])
}

func printResult(w io.Writer, asJSON bool, r *Result) error {
	if asJSON {
		return writeJSON(w, r)
	}
	r.writeText(w)
	return nil
}

// newLogger is the one place mqbench configures logging: console lines on stderr.
func newLogger(stderr io.Writer, level string) (zerolog.Logger, error) {
	lv, err := zerolog.ParseLevel(level)
	if err != nil {
		return zerolog.Nop(), fmt.Errorf("%w: -log-level %q", errUsage, level)
	}
	return zerolog.New(zerolog.ConsoleWriter{Out: stderr, TimeFormat: "15:04:05.000"}).Level(lv).With().Timestamp().Logger(), nil
}
