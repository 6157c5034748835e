package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// Process metrics from /proc (Linux): CPU time from /proc/<pid>/stat, memory from
// /proc/<pid>/status. Sampled before and after the measured window of a run.

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat. Linux fixes
// it at 100 on every architecture Go supports (sysconf(_SC_CLK_TCK) needs cgo).
const clockTicks = 100

// errProcFormat is returned when a /proc file does not have the expected fields.
var errProcFormat = errors.New("mqbench: unexpected /proc format")

// procSample is one reading of a process's counters.
//
// VmRSS = RssAnon + RssFile + RssShmem. A broker's mapped CommitLog and ConsumeQueue
// pages are file-backed: they count in VmRSS (and VmHWM) while resident, but they are
// page cache the kernel reclaims under pressure. RssAnon is the memory the process
// itself owns (heap, stacks, direct buffers): "RSS, page cache aside".
type procSample struct {
	CPUSeconds float64 // utime + stime
	RSSKiB     int64   // VmRSS
	HWMKiB     int64   // VmHWM: peak resident set since the process started
	AnonKiB    int64   // RssAnon
	FileKiB    int64   // RssFile
}

// sampleProc reads pid's counters; pid 0 means this process.
func sampleProc(pid int) (procSample, error) {
	dir := "/proc/self"
	if pid > 0 {
		dir = "/proc/" + strconv.Itoa(pid)
	}
	var s procSample
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return s, fmt.Errorf("mqbench: read process stat: %w", err)
	}
	if s.CPUSeconds, err = parseStatCPU(stat); err != nil {
		return s, err
	}
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return s, fmt.Errorf("mqbench: read process status: %w", err)
	}
	s.RSSKiB = statusKiB(status, "VmRSS:")
	s.HWMKiB = statusKiB(status, "VmHWM:")
	s.AnonKiB = statusKiB(status, "RssAnon:")
	s.FileKiB = statusKiB(status, "RssFile:")
	return s, nil
}

// parseStatCPU returns (utime+stime)/USER_HZ from a /proc/<pid>/stat line. The command
// name (field 2) is in parentheses and may hold spaces and parentheses, so fields are
// counted from the last ')': state is field 3, utime field 14, stime field 15.
func parseStatCPU(stat []byte) (float64, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("%w: stat without ')'", errProcFormat)
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("%w: stat has %d fields after the name", errProcFormat, len(f))
	}
	ut, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	st, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%w: utime %q stime %q", errProcFormat, f[11], f[12])
	}
	return float64(ut+st) / clockTicks, nil
}

// statusKiB returns the kB value of a /proc/<pid>/status line ("VmHWM:   1234 kB"), or 0.
func statusKiB(status []byte, key string) int64 {
	for line := range bytes.SplitSeq(status, []byte{'\n'}) {
		if rest, ok := bytes.CutPrefix(line, []byte(key)); ok {
			f := bytes.Fields(rest)
			if len(f) > 0 {
				v, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return v
			}
		}
	}
	return 0
}

// ProcReport is what a run reports about a process.
type ProcReport struct {
	PID              int     `json:"pid"`
	CPUSeconds       float64 `json:"cpu_seconds"`
	CPUSecPerMillion float64 `json:"cpu_seconds_per_million_msgs,omitempty"`
	CPUUtilization   float64 `json:"cpu_cores_busy"` // CPU seconds per wall second
	PeakRSSMiB       float64 `json:"peak_rss_mib,omitempty"`
	RSSBeforeMiB     float64 `json:"rss_before_mib,omitempty"`
	RSSAfterMiB      float64 `json:"rss_after_mib,omitempty"`
	// RssAnon after the window, and the highest RssAnon sampled during it (every
	// anonSampleInterval: the kernel keeps no high-water mark of RssAnon).
	AnonAfterMiB float64 `json:"rss_anon_after_mib,omitempty"`
	PeakAnonMiB  float64 `json:"rss_anon_peak_mib,omitempty"`
	FileAfterMiB float64 `json:"rss_file_after_mib,omitempty"`
	SampleError  string  `json:"sample_error,omitempty"`
}

func procReport(pid int, before, after procSample, msgs int64, seconds float64) *ProcReport {
	r := &ProcReport{
		PID:          pid,
		CPUSeconds:   after.CPUSeconds - before.CPUSeconds,
		PeakRSSMiB:   float64(after.HWMKiB) / 1024,
		RSSBeforeMiB: float64(before.RSSKiB) / 1024,
		RSSAfterMiB:  float64(after.RSSKiB) / 1024,
		AnonAfterMiB: float64(after.AnonKiB) / 1024,
		PeakAnonMiB:  float64(max(before.AnonKiB, after.AnonKiB)) / 1024,
		FileAfterMiB: float64(after.FileKiB) / 1024,
	}
	if msgs > 0 {
		r.CPUSecPerMillion = r.CPUSeconds / float64(msgs) * 1e6
	}
	if seconds > 0 {
		r.CPUUtilization = r.CPUSeconds / seconds
	}
	return r
}

// anonSampleInterval is how often a run samples the server's RssAnon for its peak.
const anonSampleInterval = 250 * time.Millisecond

// anonSampler polls a process's RssAnon until stopped and keeps the highest value.
type anonSampler struct {
	stopCh chan struct{}
	done   chan struct{}
	peak   int64 // KiB; read after done is closed
	// samples counts the readings taken (tests wait on it).
	samples atomic.Int64
}

// startAnonSampler starts polling pid (> 0) every interval.
func startAnonSampler(pid int, interval time.Duration) *anonSampler {
	s := &anonSampler{stopCh: make(chan struct{}), done: make(chan struct{})}
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if status, err := os.ReadFile(path); err == nil {
				s.peak = max(s.peak, statusKiB(status, "RssAnon:"))
			}
			s.samples.Add(1)
			select {
			case <-s.stopCh:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// stop ends the polling and returns the peak RssAnon in KiB.
func (s *anonSampler) stop() int64 {
	close(s.stopCh)
	<-s.done
	return s.peak
}
