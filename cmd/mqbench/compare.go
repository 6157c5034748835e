package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
)

// compare: the same mode and flags against a base and a target, alternating for -rounds,
// then ratio lines target/base ("skyrocket/null throughput 0.71"). Throughput ratios
// above 1 and latency, CPU and memory ratios below 1 favour the target. A base named
// "null" without an address is a null broker mqbench starts itself (this executable,
// mode nullbroker, on a free loopback port), so its CPU and memory are measured too.

type side struct {
	name, addr, cmd string
	pid             int
	results         []*Result
}

func parseSide(s string) (name, addr string) {
	name, addr, _ = strings.Cut(s, "=")
	return name, addr
}

// CompareReport is compare's -json output.
type CompareReport struct {
	Mode   string             `json:"mode"`
	Base   []*Result          `json:"base"`
	Target []*Result          `json:"target"`
	Ratios map[string]float64 `json:"ratios"` // target / base
	Label  string             `json:"label"`  // "target/base"
}

func runCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseSpec := fs.String("base", "null", "base as NAME=ADDR; \"null\" alone starts mqbench's own null broker")
	targetSpec := fs.String("target", "", "target as NAME=ADDR (required)")
	baseCmd := fs.String("base-cmd", "", "start the base server with this command for each round (it must listen on ADDR)")
	targetCmd := fs.String("target-cmd", "", "start the target server with this command for each round")
	basePid := fs.Int("base-pid", 0, "pid of a running base server to sample")
	targetPid := fs.Int("target-pid", 0, "pid of a running target server to sample")
	rounds := fs.Int("rounds", 1, "alternate base and target this many times")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mqbench compare [compare flags] <produce|consume|route> [mode flags]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return fmt.Errorf("%w: compare needs a mode (produce, consume or route)", errUsage)
	}
	mode, modeArgs := rest[0], rest[1:]
	addrFlag := "-b"
	switch mode {
	case "produce", "consume":
	case "route":
		addrFlag = "-n"
	default:
		return fmt.Errorf("%w: compare runs produce, consume or route, not %q", errUsage, mode)
	}
	if slices.Contains(modeArgs, "-json") || slices.Contains(modeArgs, "--json") {
		return fmt.Errorf("%w: give -json to compare, before the mode", errUsage)
	}
	base, target := &side{cmd: *baseCmd, pid: *basePid}, &side{cmd: *targetCmd, pid: *targetPid}
	base.name, base.addr = parseSide(*baseSpec)
	target.name, target.addr = parseSide(*targetSpec)
	if target.name == "" || target.addr == "" {
		return fmt.Errorf("%w: -target NAME=ADDR is required", errUsage)
	}
	if base.addr == "" {
		if base.name != "null" || mode == "route" {
			return fmt.Errorf("%w: -base needs NAME=ADDR (only a produce/consume base named null may omit it)", errUsage)
		}
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		port, err := freePort()
		if err != nil {
			return err
		}
		base.addr = "127.0.0.1:" + strconv.Itoa(port)
		base.cmd = fmt.Sprintf("'%s' nullbroker -l %s", exe, base.addr)
	}
	for range *rounds {
		for _, s := range []*side{base, target} {
			a := append(slices.Clone(modeArgs), addrFlag, s.addr)
			if s.cmd != "" {
				a = append(a, "-server-cmd", s.cmd)
			} else if s.pid > 0 {
				a = append(a, "-pid", strconv.Itoa(s.pid))
			}
			res, _, err := modeResult(ctx, mode, a, io.Discard)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			res.Name = s.name
			s.results = append(s.results, res)
			if !*asJSON {
				res.writeText(stdout)
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	rep := &CompareReport{Mode: mode, Base: base.results, Target: target.results, Label: target.name + "/" + base.name,
		Ratios: ratios(aggregate(base.results), aggregate(target.results))}
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	fmt.Fprintln(stdout)
	for _, k := range sortedKeys(rep.Ratios) {
		fmt.Fprintf(stdout, "%s %s %.2f\n", rep.Label, k, rep.Ratios[k])
	}
	return nil
}

// modeResult parses a mode's flags (usage goes to flagOut) and runs it; asJSON is its -json.
func modeResult(ctx context.Context, mode string, args []string, flagOut io.Writer) (res *Result, asJSON bool, err error) {
	fs := flag.NewFlagSet(mode, flag.ContinueOnError)
	fs.SetOutput(flagOut)
	var o interface {
		check() error
		run(context.Context) (*Result, error)
	}
	var lo *loadOpts
	switch mode {
	case "produce":
		p := &produceOpts{}
		p.flags(fs)
		o, lo = p, &p.loadOpts
	case "consume":
		c := &consumeOpts{}
		c.flags(fs)
		o, lo = c, &c.loadOpts
	case "route":
		r := &routeOpts{}
		r.flags(fs)
		o, lo = r, &r.loadOpts
	default:
		return nil, false, fmt.Errorf("%w: unknown mode %q", errUsage, mode)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, false, err
		}
		return nil, false, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return nil, false, fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	if err := o.check(); err != nil {
		return nil, false, err
	}
	res, err = o.run(ctx)
	return res, lo.jsonOut, err
}

// runMode runs a load mode and prints its report.
func runMode(ctx context.Context, mode string, args []string, stdout, stderr io.Writer) error {
	res, asJSON, err := modeResult(ctx, mode, args, stderr)
	if err != nil {
		return err
	}
	return printResult(stdout, asJSON, res)
}

// summary is a side's results over all rounds.
type summary struct {
	msgsPerSec          float64
	p50, p99, p999      float64
	cpuPerMillion, peak float64
	hasServer           bool
	errors              int64
}

func aggregate(rs []*Result) summary {
	var s summary
	var msgs int64
	var secs, cpu float64
	var p50, p99, p999 []float64
	s.hasServer = len(rs) > 0
	for _, r := range rs {
		msgs += r.Messages
		secs += r.Seconds
		s.errors += r.ErrorCount
		if r.Latency != nil {
			p50, p99, p999 = append(p50, r.Latency.P50), append(p99, r.Latency.P99), append(p999, r.Latency.P999)
		}
		if r.Server == nil || r.Server.SampleError != "" {
			s.hasServer = false
			continue
		}
		cpu += r.Server.CPUSeconds
		s.peak = max(s.peak, r.Server.PeakRSSMiB)
	}
	if secs > 0 {
		s.msgsPerSec = float64(msgs) / secs
	}
	if msgs > 0 {
		s.cpuPerMillion = cpu / float64(msgs) * 1e6
	}
	s.p50, s.p99, s.p999 = median(p50), median(p99), median(p999)
	return s
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// ratios are target/base for every figure both sides have.
func ratios(b, t summary) map[string]float64 {
	out := map[string]float64{}
	put := func(k string, tv, bv float64) {
		if bv > 0 && tv > 0 {
			out[k] = tv / bv
		}
	}
	put("throughput", t.msgsPerSec, b.msgsPerSec)
	put("p50 latency", t.p50, b.p50)
	put("p99 latency", t.p99, b.p99)
	put("p999 latency", t.p999, b.p999)
	if b.hasServer && t.hasServer {
		put("cpu per message", t.cpuPerMillion, b.cpuPerMillion)
		put("peak rss", t.peak, b.peak)
	}
	return out
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
