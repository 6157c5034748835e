package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/skyrocket-mq/skyrocket/protocol"
)

// Result is one run's report; -json prints it as is.
type Result struct {
	Mode           string            `json:"mode"`
	Name           string            `json:"name,omitempty"` // the target's name in a compare
	Target         string            `json:"target"`
	Settings       map[string]string `json:"settings"`
	Seconds        float64           `json:"seconds"`
	Messages       int64             `json:"messages"`
	Requests       int64             `json:"requests"`
	Bytes          int64             `json:"bytes"`
	MsgsPerSec     float64           `json:"msgs_per_sec"`
	MiBPerSec      float64           `json:"mib_per_sec"`
	RequestsPerSec float64           `json:"requests_per_sec"`
	Latency        *Latency          `json:"latency_ms,omitempty"`
	Empty          int64             `json:"empty_responses,omitempty"`
	Errors         map[string]int64  `json:"errors"`
	Remarks        map[string]string `json:"error_remarks,omitempty"` // the first remark of each failed response code
	ErrorCount     int64             `json:"error_count"`
	ConnErrors     []string          `json:"connection_errors,omitempty"`
	Server         *ProcReport       `json:"server,omitempty"`
	Slave          *ProcReport       `json:"slave,omitempty"` // -slave-cmd: the master's slave, same window
	Replication    *LagReport        `json:"replication,omitempty"`
	Client         *ProcReport       `json:"client,omitempty"`
	StartupMs      float64           `json:"startup_ms,omitempty"`
	Delivery       *DeliveryReport   `json:"delivery,omitempty"`
	Notes          []string          `json:"notes,omitempty"`
	// ScheduleLag (-rate, open loop): how late each request was written after its due
	// time; the latencies run from the due time, so this is the client's share of them.
	ScheduleLag *Latency `json:"schedule_lag,omitempty"`
}

// Latency is a latency summary in milliseconds.
type Latency struct {
	Count uint64  `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	P9999 float64 `json:"p9999"`
	Max   float64 `json:"max"`
}

func latencyOf(h *histogram) *Latency {
	if h.count() == 0 {
		return nil
	}
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	return &Latency{
		Count: h.count(), Mean: h.mean() / 1e6,
		P50: ms(h.quantile(0.50)), P90: ms(h.quantile(0.90)), P99: ms(h.quantile(0.99)),
		P999: ms(h.quantile(0.999)), P9999: ms(h.quantile(0.9999)), Max: ms(h.max),
	}
}

// codeKey names a response code in the errors map: "SYSTEM_BUSY(2)".
func codeKey(code int32) string {
	return fmt.Sprintf("%s(%d)", protocol.ResponseCode(code), code)
}

func (r *Result) addError(key string, n int64) {
	if n == 0 {
		return
	}
	if r.Errors == nil {
		r.Errors = map[string]int64{}
	}
	r.Errors[key] += n
	r.ErrorCount += n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeText prints the human-readable report.
func (r *Result) writeText(w io.Writer) {
	var set []string
	for _, k := range sortedKeys(r.Settings) {
		set = append(set, k+"="+r.Settings[k])
	}
	name := ""
	if r.Name != "" {
		name = r.Name + " "
	}
	fmt.Fprintf(w, "mqbench %s %s-> %s  (%s)\n", r.Mode, name, r.Target, strings.Join(set, " "))
	unit, rate := "messages", "msg/s"
	if r.Mode == "route" {
		unit, rate = "queries ", "queries/s"
	}
	if r.Seconds > 0 || r.Messages > 0 {
		fmt.Fprintf(w, "  %s    %d answered in %.3f s (requests %d", unit, r.Messages, r.Seconds, r.Requests)
		if r.Empty > 0 {
			fmt.Fprintf(w, ", %d empty", r.Empty)
		}
		fmt.Fprintf(w, ")\n")
		fmt.Fprintf(w, "  throughput  %.0f %s  %.2f MiB/s  %.0f req/s\n", r.MsgsPerSec, rate, r.MiBPerSec, r.RequestsPerSec)
	}
	if l := r.Latency; l != nil {
		fmt.Fprintf(w, "  latency ms  p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  p99.99 %.3f  max %.3f  mean %.3f  (n=%d)\n",
			l.P50, l.P90, l.P99, l.P999, l.P9999, l.Max, l.Mean, l.Count)
	}
	if l := r.ScheduleLag; l != nil {
		fmt.Fprintf(w, "  schedule lag ms  p50 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  (how late the open-loop sender wrote; included in the latencies)\n",
			l.P50, l.P99, l.P999, l.Max)
	}
	if r.Seconds > 0 || r.Messages > 0 {
		if r.ErrorCount == 0 {
			fmt.Fprintf(w, "  errors      none\n")
		} else {
			var parts []string
			for _, k := range sortedKeys(r.Errors) {
				parts = append(parts, fmt.Sprintf("%s=%d", k, r.Errors[k]))
			}
			fmt.Fprintf(w, "  errors      %d: %s\n", r.ErrorCount, strings.Join(parts, " "))
			for _, k := range sortedKeys(r.Remarks) {
				fmt.Fprintf(w, "  remark      %s: %q\n", k, r.Remarks[k])
			}
		}
	}
	for _, e := range r.ConnErrors {
		fmt.Fprintf(w, "  connection  %s\n", e)
	}
	if s := r.Server; s != nil {
		if s.SampleError != "" {
			fmt.Fprintf(w, "  server      pid %d: %s\n", s.PID, s.SampleError)
		} else {
			fmt.Fprintf(w, "  server      pid %d: %.2f CPU s (%.2f CPU s per million msgs, %.2f cores busy), peak RSS %.1f MiB (RSS %.1f -> %.1f MiB)\n",
				s.PID, s.CPUSeconds, s.CPUSecPerMillion, s.CPUUtilization, s.PeakRSSMiB, s.RSSBeforeMiB, s.RSSAfterMiB)
			fmt.Fprintf(w, "  server mem  RssAnon %.1f MiB after, %.1f MiB peak sampled; RssFile %.1f MiB after (mapped files: page cache)\n",
				s.AnonAfterMiB, s.PeakAnonMiB, s.FileAfterMiB)
		}
	}
	if s := r.Slave; s != nil {
		if s.SampleError != "" {
			fmt.Fprintf(w, "  slave       pid %d: %s\n", s.PID, s.SampleError)
		} else {
			fmt.Fprintf(w, "  slave       pid %d: %.2f CPU s (%.2f CPU s per million msgs, %.2f cores busy), RssAnon %.1f MiB peak sampled, RssFile %.1f MiB after\n",
				s.PID, s.CPUSeconds, s.CPUSecPerMillion, s.CPUUtilization, s.PeakAnonMiB, s.FileAfterMiB)
			if v := r.pairCPUPerMillion(); v > 0 {
				fmt.Fprintf(w, "  pair        %.2f CPU s per million msgs (server + slave)\n", v)
			}
		}
	}
	if l := r.Replication; l != nil {
		fmt.Fprintf(w, "  lag KiB     master - slave commitLogMaxOffset, %d samples (%d failed, answered within %.2f ms p50): p50 %.1f  p99 %.1f  max %.1f  mean %.1f\n",
			l.Samples, l.Errors, l.SampleMs, l.P50KiB, l.P99KiB, l.MaxKiB, l.MeanKiB)
		fmt.Fprintf(w, "  lag ms      at the master's %.1f MiB/s: p99 %.2f  max %.2f; slave caught up %.0f ms after the first accepted request, held the master's end %.1f ms after the run\n",
			l.WriteMiBPerSec, l.P99Ms, l.MaxMs, l.CaughtUpMs, l.DrainMs)
	}
	if c := r.Client; c != nil && c.SampleError == "" {
		fmt.Fprintf(w, "  client      %.2f CPU s (%.2f cores busy)\n", c.CPUSeconds, c.CPUUtilization)
	}
	if r.StartupMs > 0 {
		fmt.Fprintf(w, "  startup     %.1f ms from exec to the first accepted request\n", r.StartupMs)
	}
	if d := r.Delivery; d != nil {
		fmt.Fprintf(w, "  delivery    %d of %d in the topic (complete %v), last found %.2f s after the run",
			d.Delivered, d.Expected, d.Complete, d.WaitSeconds)
		if d.Foreign > 0 {
			fmt.Fprintf(w, "; %d other messages in the queues", d.Foreign)
		}
		fmt.Fprintln(w)
		if l := d.Lateness; l != nil {
			fmt.Fprintf(w, "  lateness ms store time - %s: p50 %.1f  p99 %.1f  max %.1f; stored at %.0f msg/s over %.2f s\n",
				d.Due, l.P50, l.P99, l.Max, d.RatePerSec, d.SpanSeconds)
		}
		if d.Early > 0 {
			fmt.Fprintf(w, "  early       %d stored before their due time (counted as 0 above), by up to %.0f ms\n", d.Early, d.EarliestMs)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note        %s\n", n)
	}
}

// pairCPUPerMillion is the CPU seconds per million messages of the server and its
// slave together; 0 unless both were measured.
func (r *Result) pairCPUPerMillion() float64 {
	if r.Server == nil || r.Slave == nil || r.Server.SampleError != "" || r.Slave.SampleError != "" {
		return 0
	}
	return r.Server.CPUSecPerMillion + r.Slave.CPUSecPerMillion
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
