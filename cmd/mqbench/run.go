package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// errBusyAddr is returned when a server command is to be started on an address that
// some other process already serves.
var errBusyAddr = errors.New("mqbench: address in use")

// errWriteStuck is reported for a connection whose write was still blocked -timeout
// after the run ended.
var errWriteStuck = errors.New("mqbench: write blocked at the end of the run (the server stopped reading)")

// loadOpts are the flags every load mode (produce, consume, route) shares.
type loadOpts struct {
	conns          int
	window         int
	duration       time.Duration
	total          int64
	warmup         time.Duration
	timeout        time.Duration
	serialize      string
	pid            int
	serverCmd      string
	serverPrep     string
	startupCmd     string
	serverLog      string
	startupTimeout time.Duration
	probeInterval  time.Duration
	jsonOut        bool
	jsonFile       string
	cpuProfile     string
	hbEvery        time.Duration
	pair           pairOpts
	// watched is the slave of the server under load during a run (pair.go).
	watched *pairRun
}

func (o *loadOpts) register(fs *flag.FlagSet, conns, window int) {
	fs.IntVar(&o.conns, "c", conns, "connections")
	fs.IntVar(&o.window, "w", window, "requests in flight per connection (the window)")
	fs.DurationVar(&o.duration, "d", 10*time.Second, "measured duration (ignored when -m is set)")
	fs.Int64Var(&o.total, "m", 0, "stop after this many messages (queries in route mode) instead of -d")
	fs.DurationVar(&o.warmup, "warmup", 0, "unmeasured load before the measured window")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "connect/setup timeout and how long to wait for outstanding answers at the end")
	fs.StringVar(&o.serialize, "serialize", "json", "header serialization: json (every client's default) or rocketmq")
	fs.IntVar(&o.pid, "pid", 0, "server pid: sample its CPU time and memory from /proc before and after the measured window")
	fs.StringVar(&o.serverCmd, "server-cmd", "", "start this server command, wait until it accepts a request, measure it, then stop it")
	fs.StringVar(&o.serverPrep, "server-prep", "", "run this command to completion before starting -server-cmd/-startup-cmd, untimed (e.g. \"rm -rf /tmp/store\": every run on an empty store)")
	fs.StringVar(&o.startupCmd, "startup-cmd", "", "start this server command, report the time from exec to the first accepted request, stop it (no load run)")
	fs.StringVar(&o.serverLog, "server-log", "", "where the started server's output goes (default: a temp file)")
	fs.DurationVar(&o.startupTimeout, "startup-timeout", 60*time.Second, "how long a started server may take to accept a request")
	fs.DurationVar(&o.probeInterval, "probe-interval", 5*time.Millisecond, "interval between readiness probes of a started server")
	fs.BoolVar(&o.jsonOut, "json", false, "print the report as JSON")
	fs.StringVar(&o.jsonFile, "json-out", "", "also write the report as JSON to this file")
	fs.DurationVar(&o.hbEvery, "heartbeat-interval", heartbeatInterval, "repeat each connection's HEART_BEAT this often (produce, consume; Java closes a silent client's connection after 120 s)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write mqbench's own CPU profile of the measured window here (to check the client is cheap)")
	fs.BoolVar(&dialTLS, "tls", false, "connect with TLS (the server's tls.server.mode permissive or enforcing; no certificate check, as RocketMQ clients)")
	o.pair.flags(fs)
}

func (o *loadOpts) check() error {
	switch {
	case o.conns < 1:
		return fmt.Errorf("%w: -c must be at least 1", errUsage)
	case o.window < 1:
		return fmt.Errorf("%w: -w must be at least 1", errUsage)
	case o.total <= 0 && o.duration <= 0:
		return fmt.Errorf("%w: give -d or -m", errUsage)
	case o.serverCmd != "" && o.startupCmd != "":
		return fmt.Errorf("%w: -server-cmd and -startup-cmd exclude each other", errUsage)
	case o.serverCmd != "" && o.pid != 0:
		return fmt.Errorf("%w: -pid and -server-cmd exclude each other", errUsage)
	case o.hbEvery <= 0:
		return fmt.Errorf("%w: -heartbeat-interval must be positive", errUsage)
	}
	if err := o.pair.check(o.serverCmd); err != nil {
		return err
	}
	_, err := o.serializeType()
	return err
}

func (o *loadOpts) serializeType() (protocol.SerializeType, error) {
	switch strings.ToLower(o.serialize) {
	case "json", "0":
		return protocol.SerializeJSON, nil
	case "rocketmq", "binary", "1":
		return protocol.SerializeRocketMQ, nil
	}
	return 0, fmt.Errorf("%w: -serialize %q (want json or rocketmq)", errUsage, o.serialize)
}

func (o *loadOpts) settings(m map[string]string) map[string]string {
	m["c"] = strconv.Itoa(o.conns)
	m["w"] = strconv.Itoa(o.window)
	if o.total > 0 {
		m["m"] = strconv.FormatInt(o.total, 10)
	} else {
		m["d"] = o.duration.String()
	}
	if o.warmup > 0 {
		m["warmup"] = o.warmup.String()
	}
	m["serialize"] = strings.ToLower(o.serialize)
	return m
}

// withServer runs fn against the server: one mqbench started (-server-cmd, after waiting
// until probe succeeds), or the given -pid, or none. With -startup-cmd it only measures
// the startup and returns a result with no load. With -slave it also waits until the
// slave holds the master's data (-slave-cmd: the slave started once the master
// listens), and the run watches it (pair.go).
//
// addr, when known, is where the started server will listen: if something accepts there
// already, the probe and the load would measure that instead, so it is an error.
func (o *loadOpts) withServer(ctx context.Context, mode, addr string, probe func() error, fn func(pid int) (*Result, error)) (*Result, error) {
	line := o.serverCmd
	if line == "" {
		line = o.startupCmd
	}
	if o.pair.slave != "" && addr == "" {
		return nil, fmt.Errorf("%w: -slave needs the master's address (-b)", errUsage)
	}
	if line == "" {
		if o.pair.slave != "" {
			pr, err := o.watchSlave(ctx, addr, nil, time.Now(), o.startupTimeout)
			if err != nil {
				return nil, err
			}
			defer pr.close()
			o.watched = pr
		}
		return fn(o.pid)
	}
	busy := []string{addr}
	if o.pair.slaveCmd != "" {
		busy = append(busy, o.pair.slave)
	}
	for _, a := range busy {
		if a == "" {
			continue
		}
		if nc, err := net.DialTimeout("tcp", a, 200*time.Millisecond); err == nil {
			nc.Close()
			return nil, fmt.Errorf("%w: %s already accepts connections before the server command started; stop that server or measure it with -pid", errBusyAddr, a)
		}
	}
	if o.serverPrep != "" {
		if err := runPrep(ctx, o.serverPrep); err != nil {
			return nil, err
		}
	}
	if o.pair.slavePrep != "" {
		if err := runPrep(ctx, o.pair.slavePrep); err != nil {
			return nil, err
		}
	}
	p, err := startServer(line, o.serverLog)
	if err != nil {
		return nil, err
	}
	defer p.stop(10 * time.Second)
	var slave *serverProc
	if o.pair.slaveCmd != "" && o.startupCmd == "" {
		if err := p.waitListening(ctx, addr, o.probeInterval, o.startupTimeout); err != nil {
			return nil, err
		}
		if slave, err = startServer(o.pair.slaveCmd, o.serverLog); err != nil {
			return nil, err
		}
		defer slave.stop(10 * time.Second) // before the master's (deferred first)
	}
	startup, err := p.waitReady(ctx, probe, o.probeInterval, o.startupTimeout, slave)
	if err != nil {
		return nil, err
	}
	if o.startupCmd != "" {
		return &Result{Mode: mode, Target: line, Settings: map[string]string{"startup-cmd": line},
			StartupMs: float64(startup) / 1e6, Errors: map[string]int64{}}, nil
	}
	if o.pair.slave != "" {
		pr, err := o.watchSlave(ctx, addr, slave, p.started.Add(startup), o.startupTimeout)
		if err != nil {
			return nil, err
		}
		defer pr.close()
		o.watched = pr
	}
	res, err := fn(p.pid())
	if res != nil {
		res.StartupMs = float64(startup) / 1e6
	}
	return res, err
}

// runLoad starts the pipes, lets the warm-up pass, measures until -d elapses, -m
// messages complete, every connection fails or ctx ends, then waits up to drain for
// outstanding answers (oneway runs send a fence instead) and fills res.
func runLoad(ctx context.Context, pipes []*pipe, run *runState, o *loadOpts, drain time.Duration, fence bool, pid int, res *Result) {
	allDead := func() bool {
		for _, p := range pipes {
			select {
			case <-p.dead:
			default:
				return false
			}
		}
		return true
	}
	waitUntil := func(deadline time.Time, done func() bool) {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for !done() && !allDead() && (deadline.IsZero() || time.Now().Before(deadline)) {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}
	if o.warmup > 0 {
		for _, p := range pipes {
			p.start()
		}
		waitUntil(time.Now().Add(o.warmup), run.stopped)
	}
	var before, selfBefore procSample
	var beforeErr error
	var anon *anonSampler
	if pid > 0 {
		before, beforeErr = sampleProc(pid)
		anon = startAnonSampler(pid, anonSampleInterval)
	}
	var slaveBefore procSample
	var slaveBeforeErr error
	var slaveAnon *anonSampler
	var lag *lagSampler
	if pr := o.watched; pr != nil {
		if pr.pid() > 0 {
			slaveBefore, slaveBeforeErr = sampleProc(pr.pid())
			slaveAnon = startAnonSampler(pr.pid(), anonSampleInterval)
		}
		lag = pr.startLag()
	}
	selfBefore, selfErr := sampleProc(0)
	if o.cpuProfile != "" {
		if f, err := os.Create(o.cpuProfile); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer func() {
					pprof.StopCPUProfile()
					f.Close()
				}()
			}
		}
	}
	t0 := run.now()
	run.measuring.Store(true)
	if o.warmup <= 0 {
		// Measuring from the first request on keeps -m exact: every send is charged.
		for _, p := range pipes {
			p.start()
		}
	}

	var end time.Time
	if o.total <= 0 {
		end = time.Now().Add(o.duration)
	}
	// The measured window ends at -d, when -m messages completed, or when every writer
	// has stopped on its own (the -m send budget is spent, whatever the answers were).
	waitUntil(end, func() bool {
		if run.stopped() {
			return true
		}
		for _, p := range pipes {
			select {
			case <-p.wdone:
			default:
				return false
			}
		}
		return true
	})
	run.stop()
	for _, p := range pipes {
		// A write blocked on a server that stopped reading would hold this forever:
		// after -timeout the connection is closed under it.
		stopped := make(chan struct{})
		go func() {
			p.stopSending()
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-time.After(o.timeout):
			p.die(errWriteStuck)
			p.nc.Close()
			<-stopped
		}
	}
	if fence {
		for _, p := range pipes {
			_ = p.sendFence()
		}
		waitUntil(time.Now().Add(drain), func() bool {
			for _, p := range pipes {
				select {
				case <-p.fenced:
				case <-p.dead:
				default:
					return false
				}
			}
			return true
		})
	} else if drain > 0 {
		waitUntil(time.Now().Add(drain), func() bool {
			for _, p := range pipes {
				select {
				case <-p.dead:
					continue
				default:
				}
				if p.inflight.Load() > 0 {
					return false
				}
			}
			return true
		})
	}
	t1 := run.now()
	run.measuring.Store(false)
	var after, selfAfter procSample
	var afterErr error
	var anonPeak int64
	if pid > 0 {
		after, afterErr = sampleProc(pid)
		anonPeak = anon.stop()
	}
	selfAfter, selfErr2 := sampleProc(0)
	var slaveAfter procSample
	var slaveAfterErr error
	var slaveAnonPeak int64
	if pr := o.watched; pr != nil {
		res.Replication = lag.stop()
		if pr.pid() > 0 {
			slaveAfter, slaveAfterErr = sampleProc(pr.pid())
			slaveAnonPeak = slaveAnon.stop()
		}
	}
	for _, p := range pipes {
		p.nc.Close()
	}
	hist, lagHist := newHistogram(), newHistogram()
	for _, p := range pipes {
		<-p.rdone
		s := &p.stats
		hist.merge(s.hist)
		if p.pace > 0 {
			<-p.wdone // paceLoop records lag until it returns
			lagHist.merge(p.lag)
		}
		res.Messages += s.msgs + s.onewayMsgs
		res.Bytes += s.bytes
		res.Requests += s.requests + s.onewayReqs
		res.Empty += s.empty
		for code, n := range s.codes {
			res.addError(codeKey(code), n)
		}
		for code, remark := range s.remarks {
			if _, ok := res.Remarks[codeKey(code)]; !ok && remark != "" {
				if res.Remarks == nil {
					res.Remarks = map[string]string{}
				}
				res.Remarks[codeKey(code)] = remark
			}
		}
		for k, n := range s.errs {
			res.addError(k, n)
		}
		// Requests still outstanding: lost with a failed connection, timed out when the
		// run waited for them; with drain 0 (long polls) they are abandoned.
		if lost := p.inflight.Load(); lost > 0 {
			switch {
			case s.connErr != nil:
				res.addError("connection lost", lost)
			case fence || drain > 0:
				res.addError("timeout", lost)
			}
		}
		res.addError("stray response", s.stray)
		if s.connErr != nil {
			res.ConnErrors = append(res.ConnErrors, fmt.Sprintf("conn %d: %v", p.id, s.connErr))
			res.addError("connection failed", 1)
		}
	}
	if res.Errors == nil {
		res.Errors = map[string]int64{}
	}
	res.Seconds = float64(t1-t0) / 1e9
	if res.Seconds > 0 {
		res.MsgsPerSec = float64(res.Messages) / res.Seconds
		res.MiBPerSec = float64(res.Bytes) / res.Seconds / (1 << 20)
		res.RequestsPerSec = float64(res.Requests) / res.Seconds
	}
	res.Latency = latencyOf(hist)
	res.ScheduleLag = latencyOf(lagHist)
	if pid > 0 {
		if beforeErr != nil || afterErr != nil {
			res.Server = &ProcReport{PID: pid, SampleError: fmt.Sprint(firstErr(beforeErr, afterErr))}
		} else {
			res.Server = procReport(pid, before, after, res.Messages, res.Seconds)
			res.Server.PeakAnonMiB = max(res.Server.PeakAnonMiB, float64(anonPeak)/1024)
		}
	}
	if selfErr == nil && selfErr2 == nil {
		res.Client = procReport(0, selfBefore, selfAfter, res.Messages, res.Seconds)
	}
	if pr := o.watched; pr != nil {
		if pid := pr.pid(); pid > 0 {
			if err := firstErr(slaveBeforeErr, slaveAfterErr); err != nil {
				res.Slave = &ProcReport{PID: pid, SampleError: err.Error()}
			} else {
				res.Slave = procReport(pid, slaveBefore, slaveAfter, res.Messages, res.Seconds)
				res.Slave.PeakAnonMiB = max(res.Slave.PeakAnonMiB, float64(slaveAnonPeak)/1024)
			}
		}
		res.Replication.DrainMs = pr.drain(30 * time.Second)
	}
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
