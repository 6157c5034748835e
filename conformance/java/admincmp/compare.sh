#!/usr/bin/env bash
# The dashboard's and the exporter's admin calls, Skyrocket against Java (run.sh admin-compare).
#
# Starts, side by side and with the same broker settings, Java's 4.9.7 NameServer + master
# broker-a (javaservers.sh) with a slave (brokerId 1), and Skyrocket: cmd/skyrocket (NameServer +
# master, as clients.sh starts it) with a cmd/mqbroker slave. Then AdminCmpMain collect against
# each (the same fixed workload, then every DefaultMQAdminExt call the dashboard's pages and the
# exporter's collectors make; both runs at once), then AdminCmpMain compare: the results field by
# field, with the allow-list (admincmp/src/main/resources/allowlist.txt) and Java's runtime-info
# formats (runtime-formats.txt). Exit status 1 on any difference not allowed.
#
#   compare.sh                          as above
#   ADMIN_COMPARE_KEEP=DIR compare.sh   also copies both runs' flattened results to DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

WORK=$(mktemp -d)
SKY_PID=""
SKY_SLAVE_PID=""
JAVA_STARTER=""
# The same on both servers: the trace topic and SQL92 filters on (clients.sh does the same;
# the all-in-one Skyrocket turns enablePropertyFilter on by default, Java does not), 64 MiB
# CommitLog files (Java's start allocates one), and what javaservers.sh writes into Java's
# broker.conf that differs from the defaults (diskMaxUsedSpaceRatio; storePathCommitLog, set
# per broker below).
SETTINGS=(traceTopicEnable=true enablePropertyFilter=true mappedFileSizeCommitLog=67108864 diskMaxUsedSpaceRatio=95)
SLAVE_SETTINGS=(brokerId=1 brokerRole=SLAVE)

stop_pid() {
  local pid=$1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

cleanup() {
  stop_pid "$SKY_SLAVE_PID"
  stop_pid "$SKY_PID"
  [ -n "$JAVA_STARTER" ] && wait "$JAVA_STARTER" 2>/dev/null || true
  "$JAVA_DIR/javaservers.sh" stop --dir "$WORK/javaslave" >/dev/null 2>&1 || true
  "$JAVA_DIR/javaservers.sh" stop --dir "$WORK/java" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Ports: a broker takes P-2..P+1; every port below is at least 5 away from the others.
USED=()
pick_port() {
  local p u ok
  while :; do
    read -r _ p < <("$JAVA_DIR/javaservers.sh" free-ports)
    ok=1
    for u in "${USED[@]+"${USED[@]}"}"; do
      if [ $((p - u)) -lt 5 ] && [ $((u - p)) -lt 5 ]; then ok=0; fi
    done
    if [ $ok = 1 ]; then
      USED+=("$p")
      echo "$p"
      return
    fi
  done
}
pick_ports() { # sets JNS JBR JSL SNS SBR SSL
  local v
  for v in JNS JBR JSL SNS SBR SSL; do
    pick_port >"$WORK/port"
    USED+=("$(cat "$WORK/port")")
    printf -v "$v" '%s' "$(cat "$WORK/port")"
  done
}

wait_for() { # wait_for NAME PID LOG PATTERN
  local deadline=$((SECONDS + 60))
  until grep -q "$4" "$3" 2>/dev/null; do
    if ! kill -0 "$2" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "admin-compare: $1 did not start:" >&2
      tail -20 "$3" >&2
      exit 1
    fi
    sleep 0.1
  done
}

# First, that the comparison fails where it must (a changed value, a missing or added path,
# a runtime value out of Java's format, an unknown runtime key; allowed changes pass).
java "${TOOL_JVM[@]}" -cp "$(module_cp admincmp)" org.skyrocket.admincmp.AdminCmpMain selftest

T0=$SECONDS
pick_ports
sets=() slave_sets=()
for kv in "${SETTINGS[@]}"; do sets+=(--set "$kv"); done
for kv in "${SLAVE_SETTINGS[@]}"; do slave_sets+=(--set "$kv"); done
# Java: the NameServer and master first (the slave's first registration needs the NameServer:
# Java registers every 30 s), then the slave with a smaller heap.
{
  "$JAVA_DIR/javaservers.sh" start --dir "$WORK/java" --namesrv-port "$JNS" --broker-port "$JBR" "${sets[@]}" &&
    SERVER_HEAP="-Xms384m -Xmx384m -XX:MaxDirectMemorySize=512m" "$JAVA_DIR/javaservers.sh" start --dir "$WORK/javaslave" \
      --no-namesrv --namesrv-port "$JNS" --broker-port "$JSL" "${sets[@]}" "${slave_sets[@]}"
} >"$WORK/java-start.log" 2>&1 &
JAVA_STARTER=$!

mkdir -p "$WORK/bin" "$WORK/home" "$WORK/skyhome" "$WORK/skyslavehome"
(cd "$REPO_ROOT" && go build -o "$WORK/bin/" ./cmd/skyrocket ./cmd/mqbroker)
{ printf '%s\n' "${SETTINGS[@]}"; echo "metricsPort=0"; echo "storePathCommitLog=$WORK/sky/store/commitlog"; } >"$WORK/broker.conf"
{
  printf '%s\n' "${SETTINGS[@]}" "${SLAVE_SETTINGS[@]}"
  echo "metricsPort=0"
  echo "brokerClusterName=DefaultCluster"
  echo "brokerName=broker-a"
  echo "brokerIP1=127.0.0.1"
  echo "brokerIP2=127.0.0.1"
  echo "listenPort=$SSL"
  echo "namesrvAddr=127.0.0.1:$SNS"
  echo "storePathRootDir=$WORK/skyslave/store"
  echo "storePathCommitLog=$WORK/skyslave/store/commitlog"
} >"$WORK/slave.conf"
# ROCKETMQ_HOME as Java's servers have it (getBrokerConfig reports it).
ROCKETMQ_HOME="$WORK/skyhome" "$WORK/bin/skyrocket" -data "$WORK/sky" -c "$WORK/broker.conf" -namesrv-port "$SNS" -port "$SBR" \
  -bind 127.0.0.1 -log-level warn >"$WORK/skyrocket.log" 2>&1 &
SKY_PID=$!
wait_for skyrocket "$SKY_PID" "$WORK/skyrocket.log" "Skyrocket is running"
ROCKETMQ_HOME="$WORK/skyslavehome" "$WORK/bin/mqbroker" -c "$WORK/slave.conf" -bind 127.0.0.1 -log-level warn -drain 0 \
  >"$WORK/skyslave.log" 2>&1 &
SKY_SLAVE_PID=$!
wait_for "the skyrocket slave" "$SKY_SLAVE_PID" "$WORK/skyslave.log" "boot success"
if ! wait "$JAVA_STARTER"; then
  JAVA_STARTER=""
  echo "admin-compare: the Java servers did not start:" >&2
  cat "$WORK/java-start.log" >&2
  exit 1
fi
JAVA_STARTER=""
source "$WORK/java/env"
J_NAMESRV=$NAMESRV_ADDR J_BROKER=$BROKER_ADDR J_STORE=$STORE_ROOT
source "$WORK/javaslave/env"
J_SLAVE=$BROKER_ADDR J_SLAVE_STORE=$STORE_ROOT
echo "admin-compare: Java 4.9.7 $J_NAMESRV / $J_BROKER + slave $J_SLAVE," \
  "Skyrocket 127.0.0.1:$SNS / 127.0.0.1:$SBR + slave 127.0.0.1:$SSL, up in $((SECONDS - T0)) s"

collect() { # collect NAME NAMESRV BROKER STORE ROCKETMQ_HOME SLAVE SLAVE_STORE SLAVE_HOME
  java "${TOOL_JVM[@]}" "-Duser.home=$WORK/home-$1" "-Drocketmq.client.localOffsetStoreDir=$WORK/offsets-$1" \
    -cp "$(module_cp admincmp)" org.skyrocket.admincmp.AdminCmpMain collect \
    --namesrv "$2" --broker "$3" --store "$4" --home "$5" --slave "$6" --slave-store "$7" --slave-home "$8" \
    --out "$WORK/$1.txt" >"$WORK/$1.out" 2>"$WORK/$1.err"
}
rc_java=0 rc_sky=0
t=$SECONDS
collect java "$J_NAMESRV" "$J_BROKER" "$J_STORE" "$WORK/java/home" "$J_SLAVE" "$J_SLAVE_STORE" "$WORK/javaslave/home" & pj=$!
collect skyrocket "127.0.0.1:$SNS" "127.0.0.1:$SBR" "$WORK/sky/store" "$WORK/skyhome" \
  "127.0.0.1:$SSL" "$WORK/skyslave/store" "$WORK/skyslavehome" & ps=$!
wait $pj || rc_java=$?
wait $ps || rc_sky=$?
cat "$WORK/java.out" "$WORK/skyrocket.out"
echo "admin-compare: both runs collected in $((SECONDS - t)) s"
for side in java skyrocket; do
  rc=$rc_java
  [ $side = skyrocket ] && rc=$rc_sky
  if [ "$rc" -ne 0 ]; then
    echo "admin-compare: the $side run failed (exit $rc):"
    grep -v '^\s*at ' "$WORK/$side.err" | grep -v ' WARN ' | tail -20
  fi
done
if [ -n "${ADMIN_COMPARE_KEEP:-}" ]; then
  mkdir -p "$ADMIN_COMPARE_KEEP"
  cp "$WORK/java.txt" "$WORK/skyrocket.txt" "$ADMIN_COMPARE_KEEP/" 2>/dev/null || true
fi
[ $rc_java -eq 0 ] && [ $rc_sky -eq 0 ] || exit 1

rc=0
java "${TOOL_JVM[@]}" -cp "$(module_cp admincmp)" org.skyrocket.admincmp.AdminCmpMain compare \
  --java "$WORK/java.txt" --skyrocket "$WORK/skyrocket.txt" || rc=$?
if [ $rc -ne 0 ]; then
  echo "admin-compare: last lines of the Skyrocket logs:"
  tail -n 10 "$WORK/skyrocket.log" "$WORK/skyslave.log"
fi
echo "admin-compare: $((SECONDS - T0)) s in all"
exit $rc
