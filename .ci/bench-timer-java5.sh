#!/usr/bin/env bash
# Timer messages side by side: Skyrocket's timing wheel (store/timer) against Java RocketMQ
# 5.3.3's TimerMessageStore, the same mqbench workload on each (docs/benchmarks.md, "Timer
# messages"). Both receive what a 4.x client sends: SEND_MESSAGE_V2 with the 5.x property
# TIMER_DELIVER_MS (mqbench -timer); Java 5.x serves it with timerWheelEnable (on by default).
#
#   .ci/bench-timer-java5.sh [-rounds N] [-m MESSAGES] [-timer D] [-spread S] [-wait W]
#                            [-out DIR] [-sides "sky java"]
#
# A round is, for each side in turn (the order alternates between rounds): a fresh store,
# the server started (Skyrocket: bin/skyrocket, NameServer and broker in one process; Java:
# NamesrvStartup + BrokerStartup 5.3.3), an unreported warm-up of -m plain sends (the JVM's
# JIT; the first CommitLog pages on both), a plain run (-m async 1 KiB sends to topic
# BenchPlain) and a timer run (-m sends with TIMER_DELIVER_MS = send time + D + a part of
# [0, S), then -await-delivery reads the topic back and measures lateness = store time of
# the delivered record - TIMER_DELIVER_MS), in alternating order, the server stopped. mqbench
# speaks 4.x remoting (SEND_MESSAGE_V2), 4 connections x 32 in flight. Each side's round holds
# the benchmark lock (BENCH_LOCK, default /tmp/skyrocket-bench.lock) from the server's
# start to its stop. mqbench samples the broker's /proc (-pid): CPU, RssAnon; the script
# adds the broker's CPU over each whole run (a timer run's includes its deliveries).
#
# Reports go to DIR (default /tmp/bench-timer-java5/<UTC time>): one mqbench JSON per run
# and summary.tsv; the summary is printed at the end with the load averages seen.
#
# Environment: SKYROCKET (default bin/skyrocket), MQBENCH (default bin/mqbench): built with
# `go build -o bin/ ./cmd/skyrocket ./cmd/mqbench` when missing. JAVA5_CACHE (default
# ~/.cache/skyrocket/java5-5.3.3): where the 5.3.3 classpath is resolved (Maven Central,
# `mvn dependency:build-classpath`, offline first). SERVER_HEAP (default "-Xms1g -Xmx1g
# -XX:MaxDirectMemorySize=1g", as conformance/java/javaservers.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/conformance/java/lib.sh" # JAVA17_OPENS

ROUNDS=2
MSGS=200000
TIMER=5s
SPREAD=30s
WAIT=180s
SIDES="sky java"
OUT=""
while [ $# -gt 0 ]; do
  case $1 in
    -rounds) ROUNDS=$2; shift 2 ;;
    -m) MSGS=$2; shift 2 ;;
    -timer) TIMER=$2; shift 2 ;;
    -spread) SPREAD=$2; shift 2 ;;
    -wait) WAIT=$2; shift 2 ;;
    -out) OUT=$2; shift 2 ;;
    -sides) SIDES=$2; shift 2 ;;
    *) echo "bench-timer-java5.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

SKYROCKET=${SKYROCKET:-$ROOT/bin/skyrocket}
MQBENCH=${MQBENCH:-$ROOT/bin/mqbench}
JAVA5_VERSION=5.3.3
JAVA5_CACHE=${JAVA5_CACHE:-$HOME/.cache/skyrocket/java5-$JAVA5_VERSION}
SERVER_HEAP=${SERVER_HEAP:-"-Xms1g -Xmx1g -XX:MaxDirectMemorySize=1g"}
BENCH_LOCK=${BENCH_LOCK:-/tmp/skyrocket-bench.lock}
OUT=${OUT:-/tmp/bench-timer-java5/$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }

if [ ! -x "$SKYROCKET" ] || [ ! -x "$MQBENCH" ]; then
  log "building bin/skyrocket and bin/mqbench"
  (cd "$ROOT" && go build -o bin/ ./cmd/skyrocket ./cmd/mqbench)
fi

# java5_cp resolves rocketmq-namesrv and rocketmq-broker 5.3.3 with their dependencies.
java5_cp() {
  if [ ! -s "$JAVA5_CACHE/classpath.txt" ]; then
    mkdir -p "$JAVA5_CACHE"
    cat >"$JAVA5_CACHE/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.skyrocket</groupId>
  <artifactId>bench-java5-servers</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-namesrv</artifactId><version>$JAVA5_VERSION</version></dependency>
    <dependency><groupId>org.apache.rocketmq</groupId><artifactId>rocketmq-broker</artifactId><version>$JAVA5_VERSION</version></dependency>
  </dependencies>
</project>
POM
    log "resolving rocketmq-broker/namesrv $JAVA5_VERSION into $JAVA5_CACHE"
    (cd "$JAVA5_CACHE" && { mvn -q -B -o dependency:build-classpath -Dmdep.outputFile=classpath.txt >mvn.log 2>&1 ||
      mvn -q -B dependency:build-classpath -Dmdep.outputFile=classpath.txt >mvn.log 2>&1; }) ||
      { cat "$JAVA5_CACHE/mvn.log" >&2; exit 1; }
  fi
  cat "$JAVA5_CACHE/classpath.txt"
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

free_ports() {
  local n b
  for _ in $(seq 1 200); do
    n=$((20000 + RANDOM % 12000)) # below the ephemeral range (javaservers.sh free_ports)
    b=$((20000 + RANDOM % 12000))
    if [ $((b - n)) -lt 5 ] && [ $((n - b)) -lt 5 ]; then continue; fi
    if port_free "$n" && port_free "$b" && port_free $((b - 2)) && port_free $((b + 1)); then
      echo "$n $b"
      return 0
    fi
  done
  echo "bench-timer-java5.sh: no free ports" >&2
  return 1
}

# wait_port PID PORT OUTFILE: until PORT accepts or PID exits (90 s).
wait_port() {
  local pid=$1 port=$2 out=$3 deadline=$((SECONDS + 90))
  while [ $SECONDS -lt $deadline ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "server $pid exited during start:"; tail -30 "$out" >&2; return 1
    fi
    if ! port_free "$port"; then return 0; fi
    sleep 0.2
  done
  log "server $pid not listening on $port after 90 s:"; tail -30 "$out" >&2
  return 1
}

# stop_pid PID: SIGTERM, SIGKILL after 60 s.
stop_pid() {
  local pid=$1 deadline=$((SECONDS + 60))
  kill "$pid" 2>/dev/null || return 0
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# start_side SIDE DIR: starts the side's servers on a fresh store under DIR; sets BROKER,
# BROKER_PID and STOP_PIDS.
start_side() {
  local side=$1 dir=$2 nport bport
  rm -rf "$dir"
  mkdir -p "$dir"
  read -r nport bport < <(free_ports)
  BROKER=127.0.0.1:$bport
  case $side in
    sky)
      # The same store settings as the Java side's broker.conf, in Java's property names.
      cat >"$dir/broker.conf" <<CONF
brokerClusterName=DefaultCluster
brokerName=broker-a
flushDiskType=ASYNC_FLUSH
timerPrecisionMs=1000
timerMaxDelaySec=259200
diskMaxUsedSpaceRatio=95
CONF
      "$SKYROCKET" -data "$dir/data" -c "$dir/broker.conf" -namesrv-port "$nport" -port "$bport" \
        -bind 127.0.0.1 -log-level warn >"$dir/skyrocket.out" 2>&1 </dev/null &
      BROKER_PID=$!
      STOP_PIDS="$BROKER_PID"
      wait_port "$BROKER_PID" "$bport" "$dir/skyrocket.out"
      ;;
    java)
      local cp jvm
      cp=$(java5_cp)
      mkdir -p "$dir/home/conf" "$dir/logs" "$dir/store"
      for s in namesrv broker; do
        cat >"$dir/home/conf/logback_$s.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>$dir/logs/$s.log</file>
    <encoder><pattern>%d{HH:mm:ss,SSS} %-5level %logger{24} - %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="FILE"/></root>
</configuration>
XML
      done
      printf 'listenPort=%s\nkvConfigPath=%s/namesrv/kvConfig.json\n' "$nport" "$dir" >"$dir/namesrv.conf"
      cat >"$dir/broker.conf" <<CONF
brokerClusterName=DefaultCluster
brokerName=broker-a
brokerId=0
brokerRole=ASYNC_MASTER
flushDiskType=ASYNC_FLUSH
brokerIP1=127.0.0.1
brokerIP2=127.0.0.1
listenPort=$bport
namesrvAddr=127.0.0.1:$nport
storePathRootDir=$dir/store
storePathCommitLog=$dir/store/commitlog
autoCreateTopicEnable=true
autoCreateSubscriptionGroup=true
diskMaxUsedSpaceRatio=95
timerWheelEnable=true
timerPrecisionMs=1000
timerMaxDelaySec=259200
CONF
      # shellcheck disable=SC2206
      jvm=($SERVER_HEAP "${JAVA17_OPENS[@]}" "-Duser.home=$dir/home" "-Drocketmq.home.dir=$dir/home")
      (cd "$dir" && ROCKETMQ_HOME="$dir/home" exec java "${jvm[@]}" -cp "$cp" \
        org.apache.rocketmq.namesrv.NamesrvStartup -c "$dir/namesrv.conf" >"$dir/namesrv.out" 2>&1 </dev/null) &
      local npid=$!
      wait_port "$npid" "$nport" "$dir/namesrv.out"
      (cd "$dir" && ROCKETMQ_HOME="$dir/home" exec java "${jvm[@]}" -cp "$cp" \
        org.apache.rocketmq.broker.BrokerStartup -c "$dir/broker.conf" >"$dir/broker.out" 2>&1 </dev/null) &
      BROKER_PID=$!
      STOP_PIDS="$BROKER_PID $npid"
      wait_port "$BROKER_PID" "$bport" "$dir/broker.out"
      # "boot success" is printed once the broker has registered and serves.
      local deadline=$((SECONDS + 90))
      until grep -q "boot success" "$dir/broker.out"; do
        [ $SECONDS -lt $deadline ] || { log "java broker: no boot success"; tail -30 "$dir/broker.out" >&2; return 1; }
        sleep 0.2
      done
      ;;
  esac
}

stop_side() {
  local p
  for p in $STOP_PIDS; do stop_pid "$p"; done
  STOP_PIDS=""
}
STOP_PIDS=""
trap 'stop_side' EXIT

# cpu_ticks PID: utime + stime in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICKS=$(getconf CLK_TCK)

# run_side SIDE ROUND: one side's round under the benchmark lock.
run_side() {
  local side=$1 r=$2 dir="$OUT/srv-$side"
  exec {lockfd}>"$BENCH_LOCK"
  flock "$lockfd"
  log "round $r $side: start (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  start_side "$side" "$dir"
  local common=(produce -b "$BROKER" -create-topic -q 4 -s 1024 -kind async -c 4 -w 32 -m "$MSGS" -pid "$BROKER_PID" -json)
  # Warm-up (not reported): the JVM's JIT, the first CommitLog file's page faults.
  "$MQBENCH" "${common[@]}" -t BenchWarm >/dev/null
  # Plain first in odd rounds, timer first in even ones.
  local kinds="plain timer"
  [ $((r % 2)) -eq 0 ] && kinds="timer plain"
  for k in $kinds; do
    local load1 cpu0
    load1=$(cut -d' ' -f1-3 /proc/loadavg)
    cpu0=$(cpu_ticks "$BROKER_PID")
    if [ "$k" = plain ]; then
      "$MQBENCH" "${common[@]}" -t BenchPlain -json-out "$OUT/r$r-$side-plain.json" >/dev/null
    else
      "$MQBENCH" "${common[@]}" -t BenchTimer -timer "$TIMER" -timer-spread "$SPREAD" -await-delivery "$WAIT" \
        -json-out "$OUT/r$r-$side-timer.json" >/dev/null
    fi
    echo "$load1 / $(cut -d' ' -f1-3 /proc/loadavg)" >"$OUT/r$r-$side-$k.load"
    # The broker's CPU over the whole run: for the timer run the sends, the enqueue and
    # every delivery (mqbench's own figure covers the sends' window only).
    echo $(($(cpu_ticks "$BROKER_PID") - cpu0)) >"$OUT/r$r-$side-$k.ticks"
    log "round $r $side $k: $(jq -r '"\(.msgs_per_sec|floor) msg/s" + (if .delivery then ", lateness p50 \(.delivery.lateness_ms.p50) p99 \(.delivery.lateness_ms.p99) max \(.delivery.lateness_ms.max) ms, \(.delivery.delivered)/\(.delivery.expected) delivered, early \(.delivery.early // 0)" else "" end)' "$OUT/r$r-$side-$k.json")"
  done
  stop_side
  flock -u "$lockfd"
  exec {lockfd}>&-
}

for r in $(seq 1 "$ROUNDS"); do
  order=$SIDES
  if [ $((r % 2)) -eq 0 ]; then order=$(echo "$SIDES" | awk '{for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? " " : "")}'); fi
  for side in $order; do run_side "$side" "$r"; done
done

{
  printf 'round\tside\tplain_msg_s\ttimer_msg_s\ttimer/plain\tlate_p50_ms\tlate_p99_ms\tlate_max_ms\tearly\tearliest_ms\tdelivered\tsent\trss_anon_after_timer_MiB\trss_anon_peak_MiB\tcpu_s_per_M_plain\tcpu_s_per_M_timer_all\tload_plain\tload_timer\n'
  for r in $(seq 1 "$ROUNDS"); do
    for side in $SIDES; do
      p=$OUT/r$r-$side-plain.json
      t=$OUT/r$r-$side-timer.json
      [ -f "$p" ] && [ -f "$t" ] || continue
      tp=$(cat "$OUT/r$r-$side-plain.ticks")
      tt=$(cat "$OUT/r$r-$side-timer.ticks")
      jq -r --slurp --arg r "$r" --arg side "$side" --argjson tp "$tp" --argjson tt "$tt" --argjson hz "$TICKS" --arg lp "$(cat "$OUT/r$r-$side-plain.load")" --arg lt "$(cat "$OUT/r$r-$side-timer.load")" '
        .[0] as $p | .[1] as $t |
        [$r, $side, ($p.msgs_per_sec|floor), ($t.msgs_per_sec|floor), (($t.msgs_per_sec / $p.msgs_per_sec * 100 | round) / 100),
         $t.delivery.lateness_ms.p50, $t.delivery.lateness_ms.p99, $t.delivery.lateness_ms.max,
         ($t.delivery.early // 0), ($t.delivery.earliest_ms // 0), $t.delivery.delivered, $t.delivery.expected,
         ($t.server.rss_anon_after_mib // "-"), ([$p.server.rss_anon_peak_mib, $t.server.rss_anon_peak_mib] | max // "-"),
         ($tp / $hz / $p.messages * 1e6 | round), ($tt / $hz / $t.messages * 1e6 | round), $lp, $lt] | @tsv' "$p" "$t"
    done
  done
} >"$OUT/summary.tsv"
column -t -s $'\t' "$OUT/summary.tsv"
log "reports in $OUT"
