package metrics

import (
	"strings"
	"testing"
)

func TestExporterFamilies_89GaugesEachRuntimeOneParsed(t *testing.T) {
	names := ExporterFamilies()
	if len(names) != 89 {
		t.Fatalf("%d families, want the exporter's 89", len(names))
	}
	seen := map[string]bool{}
	runtime := 0
	for _, n := range names {
		if seen[n] {
			t.Errorf("%s twice", n)
		}
		seen[n] = true
		if strings.HasPrefix(n, "rocketmq_brokeruntime_") {
			runtime++
			found := false
			for _, rf := range runtimeFamilies {
				found = found || rf.family == n
			}
			if !found {
				t.Errorf("%s: no runtime key mapped", n)
			}
		}
	}
	if runtime != 63 || len(runtimeFamilies) != 63 {
		t.Errorf("%d runtime families, %d mapped, want 63", runtime, len(runtimeFamilies))
	}
	if got := ExporterLabels("rocketmq_group_diff"); strings.Join(got, ",") != "group,topic,countOfOnlineConsumers,msgModel" {
		t.Errorf("group_diff labels %v", got)
	}
}

// The values are read as rocketmq-exporter's BrokerRuntimeStats reads them.
func TestRuntimeValue_JavaFormats(t *testing.T) {
	kv := map[string]string{
		"commitLogDirCapacity":     "Total : 98.3 GiB, Free : 50.5 MiB.",
		"putTps":                   "12.5 11.98 3.0416666666666665",
		"getFoundTps":              "1.0  ",
		"putMessageDistributeTime": "[<=0ms]:7 [0~10ms]:3 [10~50ms]:0 [50~100ms]:0 [100~200ms]:0 [200~500ms]:0 [500ms~1s]:0 [1~2s]:0 [2~3s]:0 [3~4s]:0 [4~5s]:0 [5~10s]:0 [10s~]:2 ",
		"remainHowManyDataToFlush": "1.5 KiB",
		"commitLogDiskRatio":       "0.31",
		"msgPutTotalTodayNow":      "42",
	}
	cases := map[string]float64{
		"rocketmq_brokeruntime_commitlogdir_capacity_total": 98.3 * 1024 * 1024 * 1024,
		"rocketmq_brokeruntime_commitlogdir_capacity_free":  50.5 * 1024 * 1024,
		"rocketmq_brokeruntime_put_tps10":                   12.5,
		"rocketmq_brokeruntime_put_tps600":                  3.0416666666666665,
		"rocketmq_brokeruntime_getfound_tps10":              1,
		"rocketmq_brokeruntime_pmdt_0ms":                    7,
		"rocketmq_brokeruntime_pmdt_0to10ms":                3,
		"rocketmq_brokeruntime_pmdt_10stomore":              2,
		"rocketmq_brokeruntime_remain_howmanydata_toflush":  1.5,
		"rocketmq_brokeruntime_commitlog_disk_ratio":        0.31,
		"rocketmq_brokeruntime_msg_put_total_today_now":     42,
	}
	for fam, want := range cases {
		if got, ok := RuntimeValue(fam, kv); !ok || got != want {
			t.Errorf("%s = %v, %v; want %v", fam, got, ok, want)
		}
	}
	// A window without enough samples is empty in Java's string: no series, as the exporter's parse fails.
	if _, ok := RuntimeValue("rocketmq_brokeruntime_getfound_tps60", kv); ok {
		t.Error("empty tps60 token parsed")
	}
	if _, ok := RuntimeValue("rocketmq_brokeruntime_dispatch_behind_bytes", kv); ok {
		t.Error("missing key parsed")
	}
	if v, ok := RuntimeValue("rocketmq_brokeruntime_pmdt_1to2s", map[string]string{"putMessageDistributeTime": "null"}); !ok || v != 0 {
		t.Errorf("pmdt before the first minute: %v %v", v, ok)
	}
}

func TestHealth_ReadyNeedsRunningAndChecks(t *testing.T) {
	var h Health
	if st := h.Ready(); st.Status == "ready" || st.Failing["phase"] != "starting" {
		t.Errorf("zero Health: %+v", st)
	}
	h.SetProgress(Progress{Stage: "commitlog", FilesDone: 1, FilesTotal: 3})
	if st, _ := h.snapshot(); st.Phase != PhaseRecovering || st.Recovery.FilesTotal != 3 {
		t.Errorf("after progress: %+v", st)
	}
	fail := true
	h.AddCheck("registered", func() error {
		if fail {
			return errString("no name server")
		}
		return nil
	})
	h.SetPhase(PhaseRunning)
	if st := h.Ready(); st.Status == "ready" || st.Failing["registered"] != "no name server" {
		t.Errorf("check failing: %+v", st)
	}
	fail = false
	if st := h.Ready(); st.Status != "ready" {
		t.Errorf("all met: %+v", st)
	}
	h.SetPhase(PhaseStopping)
	if st := h.Ready(); st.Status == "ready" {
		t.Errorf("stopping is not ready: %+v", st)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
