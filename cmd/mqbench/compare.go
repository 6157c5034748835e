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

// compare: the same mode and flags against a base, a target and optionally a ceiling
// (the null broker), alternating for -rounds with the order rotated each round, then a
// summary per side (median and range over the rounds of every figure) and ratio lines
// target/base and target/ceiling ("skyrocket/java throughput 4.47 (rounds 4.10–4.80)"):
// the ratio of the medians, and the range of the per-round ratios. Throughput ratios
// above 1 and latency, CPU and memory ratios below 1 favour the target. A side named
// "null" without an address is a null broker mqbench starts itself (this executable,
// mode nullbroker, on a free loopback port), so its CPU and memory are measured too.

type side struct {
	role, name, addr string
	cmd, prep, args  string
	pid              int
	results          []*Result
}

func parseSide(s string) (name, addr string) {
	name, addr, _ = strings.Cut(s, "=")
	return name, addr
}

// Spread is one figure of one side over the rounds.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

// SideReport is one side of a compare.
type SideReport struct {
	Role    string            `json:"role"` // base, target or ceiling
	Name    string            `json:"name"`
	Results []*Result         `json:"results"`
	Figures map[string]Spread `json:"figures"`
}

// RatioReport is target/other for one figure: the ratio of the medians, and the range
// of the per-round ratios (round i of the target against round i of the other).
type RatioReport struct {
	Label  string  `json:"label"` // "target/other"
	Figure string  `json:"figure"`
	Median float64 `json:"median_ratio"`
	Min    float64 `json:"min_round_ratio"`
	Max    float64 `json:"max_round_ratio"`
}

// CompareReport is compare's -json output.
type CompareReport struct {
	Mode   string        `json:"mode"`
	Rounds int           `json:"rounds"`
	Sides  []SideReport  `json:"sides"`
	Ratios []RatioReport `json:"ratios"`
}

// figure is one compared quantity of a run.
type figure struct {
	key, unit string
	get       func(r *Result) float64 // 0: not measured in this run, unless has says it was
	has       func(r *Result) bool    // nil: measured when get > 0 (a lag of 0 is a figure)
}

// value is f of r, and whether r measured it.
func (f *figure) value(r *Result) (float64, bool) {
	x := f.get(r)
	if f.has != nil {
		return x, f.has(r)
	}
	return x, x > 0 || f.key == "errors"
}

func hasLag(r *Result) bool { return r.Replication != nil && r.Replication.Samples > 0 }

func serverFig(f func(p *ProcReport) float64) func(r *Result) float64 {
	return func(r *Result) float64 {
		if r.Server == nil || r.Server.SampleError != "" {
			return 0
		}
		return f(r.Server)
	}
}

func latencyFig(f func(l *Latency) float64) func(r *Result) float64 {
	return func(r *Result) float64 {
		if r.Latency == nil {
			return 0
		}
		return f(r.Latency)
	}
}

func lagFig(f func(l *LagReport) float64) func(r *Result) float64 {
	return func(r *Result) float64 {
		if r.Replication == nil {
			return 0
		}
		return f(r.Replication)
	}
}

func deliveryFig(f func(d *DeliveryReport) float64) func(r *Result) float64 {
	return func(r *Result) float64 {
		if r.Delivery == nil {
			return 0
		}
		return f(r.Delivery)
	}
}

var figures = []figure{
	{"throughput", "msg/s", func(r *Result) float64 { return r.MsgsPerSec }, nil},
	{"p50 latency", "ms", latencyFig(func(l *Latency) float64 { return l.P50 }), nil},
	{"p99 latency", "ms", latencyFig(func(l *Latency) float64 { return l.P99 }), nil},
	{"p999 latency", "ms", latencyFig(func(l *Latency) float64 { return l.P999 }), nil},
	{"p9999 latency", "ms", latencyFig(func(l *Latency) float64 { return l.P9999 }), nil},
	{"max latency", "ms", latencyFig(func(l *Latency) float64 { return l.Max }), nil},
	{"mean latency", "ms", latencyFig(func(l *Latency) float64 { return l.Mean }), nil},
	{"cpu per message", "CPU s/10^6 msgs", serverFig(func(p *ProcReport) float64 { return p.CPUSecPerMillion }), nil},
	{"peak rss", "MiB VmHWM", serverFig(func(p *ProcReport) float64 { return p.PeakRSSMiB }), nil},
	{"peak rss anon", "MiB RssAnon", serverFig(func(p *ProcReport) float64 { return p.PeakAnonMiB }), nil},
	{"slave cpu per message", "CPU s/10^6 msgs", func(r *Result) float64 {
		if r.Slave == nil || r.Slave.SampleError != "" {
			return 0
		}
		return r.Slave.CPUSecPerMillion
	}, nil},
	{"pair cpu per message", "CPU s/10^6 msgs, server + slave", func(r *Result) float64 { return r.pairCPUPerMillion() }, nil},
	{"slave peak rss anon", "MiB RssAnon", func(r *Result) float64 {
		if r.Slave == nil || r.Slave.SampleError != "" {
			return 0
		}
		return r.Slave.PeakAnonMiB
	}, nil},
	{"lag p50", "KiB", lagFig(func(l *LagReport) float64 { return l.P50KiB }), hasLag},
	{"lag p99", "KiB", lagFig(func(l *LagReport) float64 { return l.P99KiB }), hasLag},
	{"lag max", "KiB", lagFig(func(l *LagReport) float64 { return l.MaxKiB }), hasLag},
	{"lag p99 time", "ms at the write rate", lagFig(func(l *LagReport) float64 { return l.P99Ms }), nil},
	{"lag sample time", "ms, p50 of the slower answer", lagFig(func(l *LagReport) float64 { return l.SampleMs }), nil},
	{"startup", "ms", func(r *Result) float64 { return r.StartupMs }, nil},
	{"delivery rate", "msg/s stored", deliveryFig(func(d *DeliveryReport) float64 { return d.RatePerSec }), nil},
	{"delivery p99 lateness", "ms", deliveryFig(func(d *DeliveryReport) float64 {
		if d.Lateness == nil {
			return 0
		}
		return d.Lateness.P99
	}), nil},
	{"errors", "count", func(r *Result) float64 { return float64(r.ErrorCount) }, nil},
}

// sideFlags registers -ROLE, -ROLE-cmd, -ROLE-prep and -ROLE-pid.
func sideFlags(fs *flag.FlagSet, s *side, def, what string) *string {
	spec := fs.String(s.role, def, what)
	fs.StringVar(&s.cmd, s.role+"-cmd", "", "start the "+s.role+" server with this command for each round (it must listen on ADDR)")
	fs.StringVar(&s.prep, s.role+"-prep", "", "run this command before each start of the "+s.role+" server, untimed (-server-prep)")
	fs.IntVar(&s.pid, s.role+"-pid", 0, "pid of a running "+s.role+" server to sample")
	fs.StringVar(&s.args, s.role+"-args", "", "mode flags for the "+s.role+" only, after the common ones (\"-kind tx\": the same server, another workload)")
	return spec
}

func runCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base, target, ceiling := &side{role: "base"}, &side{role: "target"}, &side{role: "ceiling"}
	baseSpec := sideFlags(fs, base, "null", "base as NAME=ADDR; \"null\" alone starts mqbench's own null broker")
	targetSpec := sideFlags(fs, target, "", "target as NAME=ADDR (required)")
	ceilingSpec := sideFlags(fs, ceiling, "", "optional third side, the ceiling, as NAME=ADDR or \"null\" (mqbench's own null broker); ratios target/ceiling")
	rounds := fs.Int("rounds", 1, "alternate the sides this many times (the order rotates each round)")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	jsonOut := fs.String("json-out", "", "also write the comparison as JSON to this file")
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
	if *rounds < 1 {
		return fmt.Errorf("%w: -rounds must be at least 1", errUsage)
	}
	base.name, base.addr = parseSide(*baseSpec)
	target.name, target.addr = parseSide(*targetSpec)
	if target.name == "" || target.addr == "" {
		return fmt.Errorf("%w: -target NAME=ADDR is required", errUsage)
	}
	sides := []*side{base, target}
	if *ceilingSpec != "" {
		ceiling.name, ceiling.addr = parseSide(*ceilingSpec)
		sides = append(sides, ceiling)
	}
	extra := map[*side][]string{}
	for _, s := range sides {
		if s.args != "" {
			env, argv, err := splitCommand(s.args)
			if err != nil || len(env) > 0 {
				return fmt.Errorf("%w: -%s-args %q", errUsage, s.role, s.args)
			}
			extra[s] = argv
		}
		if s.addr != "" {
			continue
		}
		if s.name != "null" || mode == "route" {
			return fmt.Errorf("%w: -%s needs NAME=ADDR (only a produce/consume side named null may omit it)", errUsage, s.role)
		}
		if err := s.ownNullBroker(); err != nil {
			return err
		}
	}
	for r := range *rounds {
		for i := range sides {
			s := sides[(i+r)%len(sides)]
			a := append(slices.Concat(modeArgs, extra[s]), addrFlag, s.addr)
			if s.cmd != "" {
				a = append(a, "-server-cmd", s.cmd)
				if s.prep != "" {
					a = append(a, "-server-prep", s.prep)
				}
			} else if s.pid > 0 {
				a = append(a, "-pid", strconv.Itoa(s.pid))
			}
			res, _, err := modeResult(ctx, mode, a, io.Discard)
			if err != nil {
				return fmt.Errorf("%s (round %d): %w", s.name, r+1, err)
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
	rep := &CompareReport{Mode: mode, Rounds: *rounds}
	for _, s := range sides {
		rep.Sides = append(rep.Sides, SideReport{Role: s.role, Name: s.name, Results: s.results, Figures: spreads(s.results)})
	}
	for _, other := range sides {
		if other != target {
			rep.Ratios = append(rep.Ratios, ratioReports(target, other)...)
		}
	}
	if *jsonOut != "" {
		if err := writeJSONFile(*jsonOut, rep); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	rep.writeText(stdout)
	return nil
}

// ownNullBroker makes s a null broker this executable starts on a free loopback port.
func (s *side) ownNullBroker() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	s.addr = "127.0.0.1:" + strconv.Itoa(port)
	s.cmd = fmt.Sprintf("'%s' nullbroker -l %s", exe, s.addr)
	return nil
}

// spreads is every figure's median and range over a side's rounds; figures a run did
// not measure are left out.
func spreads(rs []*Result) map[string]Spread {
	out := map[string]Spread{}
	for _, f := range figures {
		var v []float64
		for _, r := range rs {
			if x, ok := f.value(r); ok {
				v = append(v, x)
			}
		}
		if len(v) > 0 {
			slices.Sort(v)
			out[f.key] = Spread{Median: median(v), Min: v[0], Max: v[len(v)-1], N: len(v)}
		}
	}
	return out
}

// ratioReports are target/other for every figure both sides measured (errors aside).
func ratioReports(t, o *side) []RatioReport {
	var out []RatioReport
	for _, f := range figures {
		if f.key == "errors" {
			continue
		}
		var tv, ov, per []float64
		for i := range min(len(t.results), len(o.results)) {
			a, aok := f.value(t.results[i])
			b, bok := f.value(o.results[i])
			if aok {
				tv = append(tv, a)
			}
			if bok {
				ov = append(ov, b)
			}
			if a > 0 && b > 0 {
				per = append(per, a/b)
			}
		}
		if len(tv) == 0 || len(ov) == 0 || len(per) == 0 {
			continue
		}
		if median(ov) <= 0 {
			continue // a ratio to nothing (a lag of 0)
		}
		slices.Sort(per)
		out = append(out, RatioReport{Label: t.name + "/" + o.name, Figure: f.key,
			Median: median(tv) / median(ov), Min: per[0], Max: per[len(per)-1]})
	}
	return out
}

func (rep *CompareReport) writeText(w io.Writer) {
	fmt.Fprintf(w, "\nsummary: median [min-max] of %d rounds\n", rep.Rounds)
	for _, f := range figures {
		var parts []string
		for _, s := range rep.Sides {
			if sp, ok := s.Figures[f.key]; ok {
				parts = append(parts, fmt.Sprintf("%s %s [%s-%s]", s.Name, num(sp.Median), num(sp.Min), num(sp.Max)))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "  %-16s %-16s %s\n", f.key, "("+f.unit+")", strings.Join(parts, "   "))
		}
	}
	fmt.Fprintln(w)
	for _, r := range rep.Ratios {
		fmt.Fprintf(w, "%s %s %.2f (rounds %.2f-%.2f)\n", r.Label, r.Figure, r.Median, r.Min, r.Max)
	}
}

// num prints a figure with about three significant digits.
func num(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// modeResult parses a mode's flags (usage goes to flagOut) and runs it; asJSON is its -json.
// A -json-out file is written here, so compare's runs write theirs too.
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
	if err == nil && lo.jsonFile != "" {
		err = writeJSONFile(lo.jsonFile, res)
	}
	return res, lo.jsonOut, err
}

// writeJSONFile writes v as indented JSON to path.
func writeJSONFile(path string, v any) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("mqbench: -json-out: %w", err)
	}
	err = writeJSON(f, v)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("mqbench: -json-out: %w", err)
	}
	return nil
}

// runMode runs a load mode and prints its report.
func runMode(ctx context.Context, mode string, args []string, stdout, stderr io.Writer) error {
	res, asJSON, err := modeResult(ctx, mode, args, stderr)
	if err != nil {
		return err
	}
	return printResult(stdout, asJSON, res)
}

// median of values (any order).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[len(v)/2]
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
