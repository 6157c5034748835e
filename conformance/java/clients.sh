#!/usr/bin/env bash
# The Java client scenarios (scenarios/ = 4.9.8 client, scenarios42/ = 4.2.0 client, same
# sources) against a NameServer + Broker this script starts (run.sh clients / clients-java).
#
#   clients.sh              build cmd/skyrocket, start it on free loopback ports with a temp data
#                           dir, run every client run below, restart it on the same data, run the
#                           after-restart phase, stop it
#   clients.sh --java       the same against Java's 4.9.7 NameServer + Broker (javaservers.sh):
#                           the baseline that shows the scenarios expect what Java does
#
# Runs (one JVM each; a label says client version / header serialization / send code):
#   4.9.8/json          every 4.9.8 scenario, SEND_MESSAGE_V2, JSON headers
#   4.9.8/rocketmq      the same with -Drocketmq.serialize.type=ROCKETMQ (binary headers; 4.9.8
#                       writes SEND_MESSAGE_V2 / PULL headers through its FastCodesHeader path)
#   4.9.8/send-v1       the send paths with -Dorg.apache.rocketmq.client.sendSmartMsg=false
#                       (SEND_MESSAGE, code 10, long header keys)
#   4.2.0/json          every 4.2.0 scenario; 4.2.0 sends through the VIP channel (port-2) by default
#   4.2.0/rocketmq      the same with env ROCKETMQ_SERIALIZE_TYPE=ROCKETMQ
#   */after-restart     after the broker restart: offsets, messages and indexes survived
# Every scenario prints PASS or FAIL; the script fails if any run has a FAIL or does not finish.
# The broker runs with enablePropertyFilter, traceTopicEnable and transaction checks every second
# (transactionCheckInterval=1000, transactionTimeOut=1000), the same for both servers.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODE=skyrocket
[ "${1:-}" = "--java" ] && MODE=java

WORK=$(mktemp -d)
SERVER_PID=""
BROKER_SETTINGS=(enablePropertyFilter=true traceTopicEnable=true transactionCheckInterval=1000
  transactionTimeOut=1000 mappedFileSizeCommitLog=67108864)
read -r NS_PORT BROKER_PORT < <("$JAVA_DIR/javaservers.sh" free-ports)
NAMESRV=127.0.0.1:$NS_PORT
BROKER=127.0.0.1:$BROKER_PORT

cleanup() {
  stop_servers || true
  rm -rf "$WORK"
}
trap cleanup EXIT

start_servers() {
  if [ $MODE = java ]; then
    local sets=() kv
    for kv in "${BROKER_SETTINGS[@]}"; do sets+=(--set "$kv"); done
    "$JAVA_DIR/javaservers.sh" start --dir "$WORK/java" --namesrv-port "$NS_PORT" --broker-port "$BROKER_PORT" \
      "${sets[@]}" >/dev/null
    return
  fi
  printf '%s\n' "${BROKER_SETTINGS[@]}" >"$WORK/broker.conf"
  "$WORK/bin/skyrocket" -data "$WORK/data" -c "$WORK/broker.conf" -namesrv-port "$NS_PORT" -port "$BROKER_PORT" \
    -bind 127.0.0.1 -log-level warn >>"$WORK/skyrocket.log" 2>&1 &
  SERVER_PID=$!
  local deadline=$((SECONDS + 30))
  until grep -q "Skyrocket is running" "$WORK/skyrocket.log" 2>/dev/null; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "clients: skyrocket did not start:" >&2
      tail -20 "$WORK/skyrocket.log" >&2
      return 1
    fi
    sleep 0.1
  done
}

stop_servers() {
  if [ $MODE = java ]; then
    [ -d "$WORK/java" ] && "$JAVA_DIR/javaservers.sh" stop --dir "$WORK/java"
    return 0
  fi
  [ -n "$SERVER_PID" ] || return 0
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  while kill -0 "$SERVER_PID" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "clients: skyrocket ($SERVER_PID) did not stop in 30 s; SIGKILL" >&2
    kill -KILL "$SERVER_PID" 2>/dev/null || true
  fi
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}

LABELS=()
FAILED_RUNS=0

# scenario_run LABEL MODULE [VAR=value env...] -- [JVM flags...] -- [ScenarioMain args...]
scenario_run() {
  local label=$1 module=$2 envs=() jvm=() args=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do jvm+=("$1"); shift; done
  shift
  args=("$@")
  local out="$WORK/${label//\//_}.out" err="$WORK/${label//\//_}.err" t0=$SECONDS rc=0
  LABELS+=("$label")
  env "${envs[@]+"${envs[@]}"}" timeout 300 java "${TOOL_JVM[@]}" "-Duser.home=$WORK/home" \
    "-Drocketmq.client.localOffsetStoreDir=$WORK/offsets" "${jvm[@]+"${jvm[@]}"}" -cp "$(module_cp "$module")" \
    org.skyrocket.scenarios.ScenarioMain --namesrv "$NAMESRV" --broker "$BROKER" --label "$label" \
    "${args[@]+"${args[@]}"}" >"$out" 2>"$err" || rc=$?
  cat "$out"
  echo "   ($label: $((SECONDS - t0)) s)"
  if [ $rc -ne 0 ]; then
    FAILED_RUNS=$((FAILED_RUNS + 1))
    if ! grep -q "passed, .* failed" "$out"; then
      echo "FAIL $label: the JVM exited with $rc before the summary; stderr tail:"
      tail -20 "$err"
    fi
  fi
}

T0=$SECONDS
mkdir -p "$WORK/bin" "$WORK/home" "$WORK/offsets"
if [ $MODE = skyrocket ]; then
  (cd "$REPO_ROOT" && go build -o "$WORK/bin/" ./cmd/skyrocket)
fi
start_servers
echo "clients: $MODE NameServer $NAMESRV, Broker $BROKER (VIP 127.0.0.1:$((BROKER_PORT - 2))), started in $((SECONDS - T0)) s"

SENDS=send-sync,send-async,send-oneway,send-batch,large-compressed,oversized-body,vip-channel,retry-reconsume-later,delay-level,transaction-check-back,request-reply,query-view-message
# timer-properties (Skyrocket's timer messages, a 5.x feature a 4.x broker ignores) runs once,
# with the 4.9.8 client against Skyrocket: it lasts a minute.
FIRST_SKIP=()
[ $MODE = java ] && FIRST_SKIP=(--skip timer-properties)
scenario_run 4.9.8/json scenarios -- -- --state "$WORK/state49" "${FIRST_SKIP[@]+"${FIRST_SKIP[@]}"}"
scenario_run 4.9.8/rocketmq scenarios -- -Drocketmq.serialize.type=ROCKETMQ -- --skip broker-restart-before,timer-properties
scenario_run 4.9.8/send-v1 scenarios -- -Dorg.apache.rocketmq.client.sendSmartMsg=false -- --only "$SENDS"
scenario_run 4.2.0/json scenarios42 -- -- --state "$WORK/state42" --skip timer-properties
scenario_run 4.2.0/rocketmq scenarios42 ROCKETMQ_SERIALIZE_TYPE=ROCKETMQ -- -- --skip broker-restart-before,timer-properties

t=$SECONDS
stop_servers
start_servers
echo "clients: broker restarted on the same store in $((SECONDS - t)) s"
scenario_run 4.9.8/after-restart scenarios -- -- --phase after-restart --state "$WORK/state49"
scenario_run 4.2.0/after-restart scenarios42 -- -- --phase after-restart --state "$WORK/state42"
stop_servers

echo "== clients summary ($MODE, $((SECONDS - T0)) s)"
pass_total=0
fail_total=0
for label in "${LABELS[@]}"; do
  f="$WORK/${label//\//_}.out"
  p=$(grep -c '^PASS ' "$f" || true)
  n=$(grep -c '^FAIL ' "$f" || true)
  pass_total=$((pass_total + p))
  fail_total=$((fail_total + n))
  printf '  %-22s %3d passed %3d failed\n' "$label" "$p" "$n"
done
grep -h '^FAIL ' "$WORK"/*.out || true
if [ $MODE = skyrocket ] && [ $fail_total -gt 0 ]; then
  echo "skyrocket log tail:"
  tail -20 "$WORK/skyrocket.log"
fi
echo "clients: $pass_total scenarios passed, $fail_total failed"
[ $FAILED_RUNS -eq 0 ] && [ $fail_total -eq 0 ]
