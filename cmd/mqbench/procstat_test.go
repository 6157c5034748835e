package main

import (
	"errors"
	"os"
	"reflect"
	"runtime"
	"testing"
	"time"
)

func TestParseStatCPU_NameWithSpacesAndParens(t *testing.T) {
	// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
	stat := []byte("4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 566 0 0 20 0 30 0\n")
	got, err := parseStatCPU(stat)
	if err != nil || got != 18.0 {
		t.Fatalf("cpu = %v, %v; want 18 s (1800 ticks)", got, err)
	}
	if _, err := parseStatCPU([]byte("4242 no parens")); !errors.Is(err, errProcFormat) {
		t.Fatalf("err = %v", err)
	}
}

func TestStatusKiB_Fields(t *testing.T) {
	status := []byte("Name:\tjava\nVmPeak:\t  900 kB\nVmHWM:\t  51200 kB\nVmRSS:\t  40960 kB\n")
	if hwm, rss := statusKiB(status, "VmHWM:"), statusKiB(status, "VmRSS:"); hwm != 51200 || rss != 40960 {
		t.Fatalf("hwm %d rss %d", hwm, rss)
	}
	if v := statusKiB(status, "VmSwap:"); v != 0 {
		t.Fatalf("missing key = %d", v)
	}
}

func TestSampleProc_Self(t *testing.T) {
	s, err := sampleProc(0)
	if err != nil {
		t.Fatal(err)
	}
	if s.RSSKiB <= 0 || s.HWMKiB < s.RSSKiB || s.CPUSeconds < 0 {
		t.Fatalf("sample %+v", s)
	}
	if s.AnonKiB <= 0 || s.FileKiB <= 0 || s.AnonKiB+s.FileKiB > s.RSSKiB {
		t.Fatalf("RssAnon %d + RssFile %d against VmRSS %d", s.AnonKiB, s.FileKiB, s.RSSKiB)
	}
	r := procReport(1, procSample{CPUSeconds: 1, RSSKiB: 1024, AnonKiB: 3072}, procSample{CPUSeconds: 3, RSSKiB: 2048, HWMKiB: 4096, AnonKiB: 1024, FileKiB: 1024}, 1_000_000, 4)
	want := &ProcReport{PID: 1, CPUSeconds: 2, CPUSecPerMillion: 2, CPUUtilization: 0.5, PeakRSSMiB: 4, RSSBeforeMiB: 1, RSSAfterMiB: 2,
		AnonAfterMiB: 1, PeakAnonMiB: 3, FileAfterMiB: 1}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("report %+v, want %+v", r, want)
	}
}

func TestSplitCommand_QuotesAndEnv(t *testing.T) {
	env, argv, err := splitCommand(`JAVA_OPTS="-Xms1g -Xmx1g" A=1 '/opt/my dir/bin/java' -cp "a b" x\ y 'it''s'`)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(env, []string{"JAVA_OPTS=-Xms1g -Xmx1g", "A=1"}) {
		t.Fatalf("env %q", env)
	}
	if !reflect.DeepEqual(argv, []string{"/opt/my dir/bin/java", "-cp", "a b", "x y", "its"}) {
		t.Fatalf("argv %q", argv)
	}
	if _, argv, err := splitCommand(`sh -c 'rm -rf a b; sync' "x|y" x\>y`); err != nil || !reflect.DeepEqual(argv, []string{"sh", "-c", "rm -rf a b; sync", "x|y", "x>y"}) {
		t.Errorf("quoted operators: %q, %v", argv, err)
	}
	for _, bad := range []string{"", "A=1", `'open`, `"open`, "rm -rf a b; sync", "rm -rf a && sync", "cat a | wc", "cmd > out", "cmd <in", "echo `id`", "run &"} {
		if _, _, err := splitCommand(bad); !errors.Is(err, errBadCommand) {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

func TestAnonSampler_KeepsThePeak(t *testing.T) {
	s := startAnonSampler(os.Getpid(), time.Millisecond)
	// Touch 32 MiB, then let the sampler read /proc at least twice while it is resident.
	buf := make([]byte, 32<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	n0 := s.samples.Load()
	deadline := time.Now().Add(5 * time.Second)
	for s.samples.Load() < n0+2 {
		if time.Now().After(deadline) {
			t.Fatal("sampler took no sample in 5 s")
		}
		runtime.Gosched()
	}
	runtime.KeepAlive(buf)
	if peak := s.stop(); peak < 32<<10 {
		t.Fatalf("peak RssAnon %d KiB, want at least 32 MiB", peak)
	}
}
