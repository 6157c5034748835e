#!/usr/bin/env bash
# The dashboard's and the exporter's admin calls, Skyrocket against Java (run.sh admin-compare).
#
# Starts Java's 4.9.7 NameServer + Broker (javaservers.sh) and Skyrocket (cmd/skyrocket, as
# clients.sh starts it) side by side with the same broker settings, runs AdminCmpMain collect
# against each (the same fixed workload, then every DefaultMQAdminExt call the dashboard's pages
# and the exporter's collectors make; both runs at once), then AdminCmpMain compare: the results
# field by field, with the allow-list (admincmp/src/main/resources/allowlist.txt) and Java's
# runtime-info formats (runtime-formats.txt). Exit status 1 on any difference not allowed.
#
#   compare.sh            as above
#   ADMIN_COMPARE_KEEP=DIR compare.sh   also copies both runs' flattened results to DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

WORK=$(mktemp -d)
SKY_PID=""
JAVA_STARTER=""
# The same on both servers: the trace topic and SQL92 filters on (clients.sh does the same;
# the all-in-one Skyrocket turns enablePropertyFilter on by default, Java does not), 64 MiB
# CommitLog files (Java's start allocates one), and what javaservers.sh writes into Java's
# broker.conf that differs from the defaults (diskMaxUsedSpaceRatio, storePathCommitLog below).
SETTINGS=(traceTopicEnable=true enablePropertyFilter=true mappedFileSizeCommitLog=67108864 diskMaxUsedSpaceRatio=95)

cleanup() {
  if [ -n "$SKY_PID" ] && kill -0 "$SKY_PID" 2>/dev/null; then
    kill -TERM "$SKY_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$SKY_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SKY_PID" 2>/dev/null || true
  fi
  [ -n "$JAVA_STARTER" ] && wait "$JAVA_STARTER" 2>/dev/null || true
  "$JAVA_DIR/javaservers.sh" stop --dir "$WORK/java" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

T0=$SECONDS
sets=()
for kv in "${SETTINGS[@]}"; do sets+=(--set "$kv"); done
read -r JNS_PORT JBR_PORT < <("$JAVA_DIR/javaservers.sh" free-ports)
"$JAVA_DIR/javaservers.sh" start --dir "$WORK/java" --namesrv-port "$JNS_PORT" --broker-port "$JBR_PORT" "${sets[@]}" \
  >"$WORK/java-start.log" 2>&1 &
JAVA_STARTER=$!

mkdir -p "$WORK/bin" "$WORK/home"
(cd "$REPO_ROOT" && go build -o "$WORK/bin/" ./cmd/skyrocket)
# Skyrocket's ports must not be the ones just given to Java (its broker takes P-2..P+1).
while :; do
  read -r SNS_PORT SBR_PORT < <("$JAVA_DIR/javaservers.sh" free-ports)
  [ $((SBR_PORT - JBR_PORT)) -gt 4 ] || [ $((JBR_PORT - SBR_PORT)) -gt 4 ] || continue
  [ "$SNS_PORT" != "$JNS_PORT" ] && [ "$SNS_PORT" != "$JBR_PORT" ] && break
done
{ printf '%s\n' "${SETTINGS[@]}"; echo "metricsPort=0"; echo "storePathCommitLog=$WORK/sky/store/commitlog"; } >"$WORK/broker.conf"
# ROCKETMQ_HOME as Java's servers have it (getBrokerConfig reports it).
mkdir -p "$WORK/skyhome"
ROCKETMQ_HOME="$WORK/skyhome" "$WORK/bin/skyrocket" -data "$WORK/sky" -c "$WORK/broker.conf" -namesrv-port "$SNS_PORT" -port "$SBR_PORT" \
  -bind 127.0.0.1 -log-level warn >"$WORK/skyrocket.log" 2>&1 &
SKY_PID=$!
deadline=$((SECONDS + 30))
until grep -q "Skyrocket is running" "$WORK/skyrocket.log" 2>/dev/null; do
  if ! kill -0 "$SKY_PID" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
    echo "admin-compare: skyrocket did not start:" >&2
    tail -20 "$WORK/skyrocket.log" >&2
    exit 1
  fi
  sleep 0.1
done
if ! wait "$JAVA_STARTER"; then
  JAVA_STARTER=""
  echo "admin-compare: the Java servers did not start:" >&2
  cat "$WORK/java-start.log" >&2
  exit 1
fi
JAVA_STARTER=""
source "$WORK/java/env"
echo "admin-compare: Java 4.9.7 $NAMESRV_ADDR / $BROKER_ADDR, Skyrocket 127.0.0.1:$SNS_PORT / 127.0.0.1:$SBR_PORT, up in $((SECONDS - T0)) s"

collect() { # collect NAME NAMESRV BROKER STORE ROCKETMQ_HOME
  java "${TOOL_JVM[@]}" "-Duser.home=$WORK/home-$1" "-Drocketmq.client.localOffsetStoreDir=$WORK/offsets-$1" \
    -cp "$(module_cp admincmp)" org.skyrocket.admincmp.AdminCmpMain collect \
    --namesrv "$2" --broker "$3" --store "$4" --home "$5" --out "$WORK/$1.txt" >"$WORK/$1.out" 2>"$WORK/$1.err"
}
rc_java=0 rc_sky=0
t=$SECONDS
collect java "$NAMESRV_ADDR" "$BROKER_ADDR" "$STORE_ROOT" "$WORK/java/home" & pj=$!
collect skyrocket "127.0.0.1:$SNS_PORT" "127.0.0.1:$SBR_PORT" "$WORK/sky/store" "$WORK/skyhome" & ps=$!
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
  echo "admin-compare: last lines of the Skyrocket log:"
  tail -20 "$WORK/skyrocket.log"
fi
echo "admin-compare: $((SECONDS - T0)) s in all"
exit $rc
