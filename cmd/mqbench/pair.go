package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// A master under load and its slave (-slave, -slave-cmd, -slave-prep): mqbench starts the
// slave once the master accepts connections, waits until the slave holds what the master
// has stored (a connected slave that has made its first report), measures both processes
// over the same window and samples the replication lag. Lag is what an operator sees
// (ha-facts §9: 4.x has no HA runtime key): commitLogMaxOffset of the master minus the
// slave's, both from GET_BROKER_RUNTIME_INFO (28), asked at the same moment.

// pairOpts are the slave flags every load mode takes.
type pairOpts struct {
	slave     string
	slaveCmd  string
	slavePrep string
	lagEvery  time.Duration
}

func (p *pairOpts) flags(fs *flag.FlagSet) {
	fs.StringVar(&p.slave, "slave", "", "the slave broker of the master under load (-b): wait until it holds the master's data before measuring, sample the replication lag (commitLogMaxOffset master - slave) during the run")
	fs.StringVar(&p.slaveCmd, "slave-cmd", "", "start the slave with this command once the -server-cmd server accepts connections, measure its CPU and memory too, stop it after the run (needs -slave, -server-cmd)")
	fs.StringVar(&p.slavePrep, "slave-prep", "", "run this command to completion before starting -slave-cmd, untimed (e.g. \"rm -rf /tmp/slave-store\")")
	fs.DurationVar(&p.lagEvery, "lag-interval", 100*time.Millisecond, "how often the replication lag is sampled (-slave)")
}

func (p *pairOpts) check(serverCmd string) error {
	switch {
	case p.slaveCmd != "" && (p.slave == "" || serverCmd == ""):
		return fmt.Errorf("%w: -slave-cmd needs -slave (its address) and -server-cmd (the master)", errUsage)
	case p.slavePrep != "" && p.slaveCmd == "":
		return fmt.Errorf("%w: -slave-prep needs -slave-cmd", errUsage)
	case p.slave != "" && p.lagEvery <= 0:
		return fmt.Errorf("%w: -lag-interval must be positive", errUsage)
	}
	return nil
}

// LagReport is the replication lag over the measured window, in CommitLog bytes the
// slave did not have yet, and what the slave took to catch up before and after.
type LagReport struct {
	Slave   string  `json:"slave"`
	Samples int     `json:"samples"`
	Errors  int     `json:"sample_errors,omitempty"`
	MeanKiB float64 `json:"mean_kib"`
	P50KiB  float64 `json:"p50_kib"`
	P99KiB  float64 `json:"p99_kib"`
	MaxKiB  float64 `json:"max_kib"`
	// WriteMiBPerSec is the master's CommitLog growth over the window; the lag in time
	// is the lag in bytes at that rate.
	WriteMiBPerSec float64 `json:"master_write_mib_per_sec"`
	P99Ms          float64 `json:"p99_ms_at_write_rate"`
	MaxMs          float64 `json:"max_ms_at_write_rate"`
	// CaughtUpMs: from the master's first accepted request to the slave holding the
	// master's end (before the warm-up). DrainMs: from the end of the run (every answer
	// in) to the slave holding the master's end; -1 when it did not within 30 s.
	CaughtUpMs float64 `json:"caught_up_ms"`
	DrainMs    float64 `json:"drain_ms"`
	// SampleMs is the median over the samples of the slower of the two answers: the
	// two offsets are read within this of each other, so a lag is only known to about
	// this much of the write rate (a lag below 0 counts as 0).
	SampleMs float64 `json:"sample_ms_p50"`
}

// pairRun is a slave being watched during one run.
type pairRun struct {
	master, slave *rtClient
	proc          *serverProc // the started slave, nil with -slave alone
	caughtUp      time.Duration
	every         time.Duration
}

func (pr *pairRun) pid() int {
	if pr.proc == nil {
		return 0
	}
	return pr.proc.pid()
}

func (pr *pairRun) close() {
	pr.master.close()
	pr.slave.close()
}

// errSlaveExited is returned when the started slave exits before or during a run.
var errSlaveExited = errors.New("mqbench: the slave exited")

// waitListening waits until addr accepts a TCP connection (the master is up, its HA
// port with it) or p exits.
func (p *serverProc) waitListening(ctx context.Context, addr string, interval, timeout time.Duration) error {
	deadline := p.started.Add(timeout)
	for {
		if nc, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			nc.Close()
			return nil
		}
		select {
		case <-p.exited:
			p.keepLog = true
			return fmt.Errorf("mqbench: server exited before listening (%v); its output is in %s", p.waitErr, p.logPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
		if time.Now().After(deadline) {
			p.keepLog = true
			return fmt.Errorf("mqbench: server not listening on %s after %v; its output is in %s", addr, timeout, p.logPath)
		}
	}
}

// watchSlave connects to master and slave and waits until the slave's CommitLog
// reaches the master's end as it is now (the probe's message at least): the slave is
// connected and has made its first report (a Java slave reports ~5 s after connecting,
// and a Java master sends nothing before).
func (o *loadOpts) watchSlave(ctx context.Context, master string, proc *serverProc, since time.Time, timeout time.Duration) (*pairRun, error) {
	pr := &pairRun{master: &rtClient{addr: master}, slave: &rtClient{addr: o.pair.slave}, proc: proc, every: o.pair.lagEvery}
	deadline := time.Now().Add(timeout)
	var last error
	want := int64(-1)
	for {
		if want < 0 {
			if m, err := pr.master.maxOffset(time.Second); err == nil {
				want = m
			} else {
				last = fmt.Errorf("master: %w", err)
			}
		}
		if want >= 0 {
			s, err := pr.slave.maxOffset(time.Second)
			if err == nil && s >= want {
				pr.caughtUp = time.Since(since)
				return pr, nil
			}
			if err != nil {
				last = fmt.Errorf("slave: %w", err)
			} else {
				last = fmt.Errorf("slave at %d, master at %d", s, want)
			}
		}
		if proc != nil {
			select {
			case <-proc.exited:
				proc.keepLog = true
				pr.close()
				return nil, fmt.Errorf("%w (%v); its output is in %s", errSlaveExited, proc.waitErr, proc.logPath)
			default:
			}
		}
		if time.Now().After(deadline) {
			pr.close()
			return nil, fmt.Errorf("mqbench: the slave %s did not catch up with the master within %v: %w", o.pair.slave, timeout, last)
		}
		select {
		case <-ctx.Done():
			pr.close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// lagSampler asks master and slave for their CommitLog end every interval, both at
// once, until stopped.
type lagSampler struct {
	pr     *pairRun
	stopCh chan struct{}
	done   chan struct{}
	// The sampler goroutine's until done is closed.
	lags          []int64
	took          []time.Duration // the slower answer of each sample
	errs          int
	first, last   int64 // the master's end at the first and the last good sample
	firstT, lastT time.Time
}

func (pr *pairRun) startLag() *lagSampler {
	s := &lagSampler{pr: pr, stopCh: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *lagSampler) loop() {
	defer close(s.done)
	t := time.NewTicker(s.pr.every)
	defer t.Stop()
	for {
		s.sample()
		select {
		case <-s.stopCh:
			return
		case <-t.C:
		}
	}
}

func (s *lagSampler) sample() {
	t0 := time.Now()
	var mt time.Duration
	var wg sync.WaitGroup
	var m int64
	var merr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		m, merr = s.pr.master.maxOffset(time.Second)
		mt = time.Since(t0)
	}()
	sl, serr := s.pr.slave.maxOffset(time.Second)
	st := time.Since(t0)
	wg.Wait()
	now := time.Now()
	if merr != nil || serr != nil {
		s.errs++
		return
	}
	if s.firstT.IsZero() {
		s.first, s.firstT = m, now
	}
	s.last, s.lastT = m, now
	s.lags = append(s.lags, max(0, m-sl))
	s.took = append(s.took, max(mt, st))
}

// stop ends the sampling and summarizes it.
func (s *lagSampler) stop() *LagReport {
	close(s.stopCh)
	<-s.done
	r := &LagReport{Slave: s.pr.slave.addr, Samples: len(s.lags), Errors: s.errs, CaughtUpMs: float64(s.pr.caughtUp) / 1e6}
	if len(s.lags) == 0 {
		return r
	}
	v := slices.Clone(s.lags)
	slices.Sort(v)
	var sum float64
	for _, x := range v {
		sum += float64(x)
	}
	kib := func(x int64) float64 { return float64(x) / 1024 }
	q := func(p float64) int64 { return v[min(len(v)-1, int(p*float64(len(v))))] }
	took := slices.Clone(s.took)
	slices.Sort(took)
	r.SampleMs = float64(took[len(took)/2]) / 1e6
	r.MeanKiB = sum / float64(len(v)) / 1024
	r.P50KiB, r.P99KiB, r.MaxKiB = kib(q(0.50)), kib(q(0.99)), kib(v[len(v)-1])
	if d := s.lastT.Sub(s.firstT).Seconds(); d > 0 && s.last > s.first {
		rate := float64(s.last-s.first) / d // bytes/s
		r.WriteMiBPerSec = rate / (1 << 20)
		r.P99Ms = float64(q(0.99)) / rate * 1e3
		r.MaxMs = float64(v[len(v)-1]) / rate * 1e3
	}
	return r
}

// drain waits up to limit for the slave to hold the master's end after the run: the
// time it took, or -1.
func (pr *pairRun) drain(limit time.Duration) float64 {
	t0 := time.Now()
	m, err := pr.master.maxOffset(time.Second)
	if err != nil {
		return -1
	}
	for time.Since(t0) < limit {
		if s, err := pr.slave.maxOffset(time.Second); err == nil && s >= m {
			return float64(time.Since(t0)) / 1e6
		}
		time.Sleep(5 * time.Millisecond)
	}
	return -1
}

// rtClient asks one broker for GET_BROKER_RUNTIME_INFO on a connection of its own,
// redialled after a failure.
type rtClient struct {
	addr   string
	nc     net.Conn
	opaque int32
}

func (c *rtClient) close() {
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
	}
}

// maxOffset is the broker's commitLogMaxOffset.
func (c *rtClient) maxOffset(timeout time.Duration) (int64, error) {
	if c.nc == nil {
		nc, err := dial(c.addr, timeout)
		if err != nil {
			return 0, err
		}
		c.nc = nc
	}
	c.opaque++
	req := protocol.NewRequest(protocol.CodeGetBrokerRuntimeInfo)
	req.Opaque = c.opaque
	resp, err := call(c.nc, req, timeout)
	if err != nil {
		c.close()
		return 0, err
	}
	if resp.Code != int32(protocol.ResSuccess) {
		return 0, errResponse(resp)
	}
	var kv protocol.KVTable
	if err := json.Unmarshal(resp.Body, &kv); err != nil {
		return 0, fmt.Errorf("mqbench: runtime info of %s: %w", c.addr, err)
	}
	v, err := strconv.ParseInt(kv.Table["commitLogMaxOffset"], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("mqbench: runtime info of %s: commitLogMaxOffset %q", c.addr, kv.Table["commitLogMaxOffset"])
	}
	return v, nil
}
