#!/usr/bin/env bash
# Issue 11's full-size timer benchmark (docs/benchmarks.md, "Timer messages"): on one fresh
# Skyrocket (bin/skyrocket, timerPrecisionMs 1000, ASYNC_FLUSH), at a steady RATE sends/s
# (mqbench -rate: open loop, 4 connections, async SEND_MESSAGE_V2 of 1 KiB):
#
#   1. M plain sends (the baseline, same rate, same server);
#   2. M timer sends, TIMER_DELIVER_MS = send time + TIMER + a part of [0, SPREAD) (with the
#      defaults: 1,000,000 sends over 100 s, due from 100 s to 700 s after the first send, so
#      about all M are pending when the sends end), then -await-delivery reads the topic
#      back: lateness = store time of the delivered record - TIMER_DELIVER_MS.
#
# A sampler writes the broker's RssAnon/RssFile (kB) every 5 s to rss.tsv, so the memory can
# be read against the pending count (sent minus due so far). The whole run holds the
# benchmark lock (BENCH_LOCK, default /tmp/skyrocket-bench.lock): about 14 minutes.
#
#   .ci/bench-timer-full.sh [-out DIR]      env: RATE M TIMER SPREAD WAIT SKYROCKET MQBENCH
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RATE=${RATE:-10000}
M=${M:-1000000}
TIMER=${TIMER:-100s}
SPREAD=${SPREAD:-500s}
WAIT=${WAIT:-900s}
SKYROCKET=${SKYROCKET:-$ROOT/bin/skyrocket}
MQBENCH=${MQBENCH:-$ROOT/bin/mqbench}
BENCH_LOCK=${BENCH_LOCK:-/tmp/skyrocket-bench.lock}
OUT=/tmp/bench-timer-full/$(date -u +%Y%m%dT%H%M%S)
[ "${1:-}" = -out ] && OUT=$2
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$OUT/run.log" >&2; }

if [ ! -x "$SKYROCKET" ] || [ ! -x "$MQBENCH" ]; then
  (cd "$ROOT" && go build -o bin/ ./cmd/skyrocket ./cmd/mqbench)
fi

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in $(seq 1 200); do
  NPORT=$((20000 + RANDOM % 20000))
  BPORT=$((20000 + RANDOM % 20000))
  if [ $((BPORT - NPORT)) -ge 5 ] || [ $((NPORT - BPORT)) -ge 5 ]; then
    if port_free "$NPORT" && port_free "$BPORT" && port_free $((BPORT - 2)) && port_free $((BPORT + 1)); then break; fi
  fi
done

exec {lockfd}>"$BENCH_LOCK"
flock "$lockfd"
log "lock taken; load $(cut -d' ' -f1-3 /proc/loadavg)"

rm -rf "$OUT/srv"
mkdir -p "$OUT/srv"
cat >"$OUT/srv/broker.conf" <<CONF
brokerClusterName=DefaultCluster
brokerName=broker-a
flushDiskType=ASYNC_FLUSH
timerPrecisionMs=1000
diskMaxUsedSpaceRatio=95
CONF
"$SKYROCKET" -data "$OUT/srv/data" -c "$OUT/srv/broker.conf" -namesrv-port "$NPORT" -port "$BPORT" \
  -bind 127.0.0.1 -log-level warn >"$OUT/srv/skyrocket.out" 2>&1 </dev/null &
PID=$!
trap 'kill $SAMPLER 2>/dev/null || true; kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT
SAMPLER=
deadline=$((SECONDS + 60))
until ! port_free "$BPORT"; do
  kill -0 "$PID" || { tail "$OUT/srv/skyrocket.out" >&2; exit 1; }
  [ $SECONDS -lt $deadline ] || { echo "skyrocket not listening" >&2; exit 1; }
  sleep 0.2
done

(
  printf 'unix_s\trss_anon_kB\trss_file_kB\tload1\n'
  while kill -0 "$PID" 2>/dev/null; do
    printf '%s\t%s\t%s\t%s\n' "$(date +%s)" "$(awk '/^RssAnon/ {print $2}' /proc/$PID/status)" \
      "$(awk '/^RssFile/ {print $2}' /proc/$PID/status)" "$(cut -d' ' -f1 /proc/loadavg)"
    sleep 5
  done
) >"$OUT/rss.tsv" &
SAMPLER=$!

common=(produce -b 127.0.0.1:$BPORT -create-topic -q 4 -s 1024 -kind async -c 4 -w 32 -rate "$RATE" -m "$M" -pid "$PID" -json)
log "plain: $M at $RATE/s"
"$MQBENCH" "${common[@]}" -t BenchPlainFull -json-out "$OUT/plain.json" >/dev/null
log "plain done; load $(cut -d' ' -f1-3 /proc/loadavg)"
log "timer: $M at $RATE/s, TIMER_DELIVER_MS = send + $TIMER + [0, $SPREAD)"
date +%s >"$OUT/timer.start"
"$MQBENCH" "${common[@]}" -t BenchTimerFull -timer "$TIMER" -timer-spread "$SPREAD" -await-delivery "$WAIT" \
  -json-out "$OUT/timer.json" >/dev/null
log "timer done; load $(cut -d' ' -f1-3 /proc/loadavg)"
cp "$OUT/srv/skyrocket.out" "$OUT/skyrocket.out"
du -sh "$OUT/srv/data/store/timer" "$OUT/srv/data/store/commitlog" 2>/dev/null | tee -a "$OUT/run.log" || true
kill "$SAMPLER" 2>/dev/null || true
kill "$PID"
wait "$PID" 2>/dev/null || true
rm -rf "$OUT/srv/data"
flock -u "$lockfd"

jq -r --slurp '.[0] as $p | .[1] as $t |
  "plain  \($p.msgs_per_sec|floor) msg/s  send p99 \($p.latency_ms.p99) ms  RssAnon after \($p.server.rss_anon_after_mib) MiB\n" +
  "timer  \($t.msgs_per_sec|floor) msg/s  send p99 \($t.latency_ms.p99) ms  RssAnon after the sends \($t.server.rss_anon_after_mib) MiB (peak \($t.server.rss_anon_peak_mib))\n" +
  "ratio  \(($t.msgs_per_sec / $p.msgs_per_sec * 1000 | round) / 1000)\n" +
  "delivered \($t.delivery.delivered) of \($t.delivery.expected); lateness p50 \($t.delivery.lateness_ms.p50) p99 \($t.delivery.lateness_ms.p99) max \($t.delivery.lateness_ms.max) ms; early \($t.delivery.early // 0)"' \
  "$OUT/plain.json" "$OUT/timer.json" | tee -a "$OUT/run.log"
echo "reports in $OUT"
