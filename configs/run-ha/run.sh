#!/usr/bin/env bash
# make run-ha: a local master/slave pair as three processes — mqnamesrv (:9886), a
# SYNC_MASTER broker-a (:10921) and its SLAVE (:10931) — with data and logs in ./data-ha.
# The configs are configs/run-ha/*, copied to ./data-ha/conf at each start (a broker
# rewrites its file on UPDATE_BROKER_CONFIG, as Java's does). Ports are the defaults + 10
# (+20 for the slave): each broker also takes listenPort-2 (VIP) and, on the master,
# listenPort+1 (HA), so `make run` (9876, 10909, 10911, 10912) can run beside it.
#
# Ctrl-C (or SIGTERM/SIGHUP to this script or its process group) stops all three cleanly,
# a second Ctrl-C kills them. If one exits on its own, the others are stopped and the
# script exits 1.
set -euo pipefail
cd "$(dirname "$0")/../.."

BIN=${1:-bin} # the binaries' directory (make run-ha passes $(BIN))
DATA=./data-ha
CONF=$DATA/conf
LOGS=$DATA/logs

for b in mqnamesrv mqbroker; do
  [ -x "$BIN/$b" ] || { echo "run-ha: $BIN/$b not found; run make build (or make run-ha)" >&2; exit 1; }
done
busy=()
for port in 9886 10919 10921 10922 10929 10931; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then busy+=("$port"); fi
done
if [ ${#busy[@]} -gt 0 ]; then
  echo "run-ha: something already listens on 127.0.0.1 port(s) ${busy[*]} (another run-ha?)" >&2
  exit 1
fi

mkdir -p "$CONF" "$LOGS"
cp configs/run-ha/namesrv.conf configs/run-ha/broker-a.properties configs/run-ha/broker-a-s.properties "$CONF/"

names=() pids=()

# running: the names of the processes still running, one a line
running() {
  local i
  for i in "${!pids[@]}"; do
    if kill -0 "${pids[$i]}" 2>/dev/null; then echo "${names[$i]}"; fi
  done
}

# stop SIGNAL: signal every process still running (slave, master, NameServer: the
# brokers unregister first) and wait for them.
stop() {
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -"$1" "${pids[$i]}" 2>/dev/null || true
  done
  for i in "${!pids[@]}"; do # a trap interrupts wait: wait again until the process is gone
    while kill -0 "${pids[$i]}" 2>/dev/null; do wait "${pids[$i]}" 2>/dev/null || true; done
  done
}

# The three run in their own session when setsid(1) is there, so a Ctrl-C or a signal to
# the process group reaches only this script, which sends each exactly one SIGTERM (a
# second signal makes a Skyrocket process die at once, skipping its clean shutdown).
detach=()
if command -v setsid >/dev/null 2>&1; then detach=(setsid); fi

# The traps only take note (got=INT|TERM|HUP) and the main flow stops the processes: a
# handler that does the work and is interrupted by the next signal confuses bash. While
# stopping, a second Ctrl-C kills at once; a second SIGTERM (make passes on the one its
# process group already got) changes nothing.
got= stopping=
trap 'if [ -n "$stopping" ]; then kill -KILL "${pids[@]}" 2>/dev/null; echo "run-ha: killed" >&2; exit 130; fi; got=INT' INT
trap '[ -n "$stopping" ] || got=TERM' TERM
trap '[ -n "$stopping" ] || got=HUP' HUP

# shutdown: stop all three (called from the main flow once got is set) and exit 0.
shutdown() {
  stopping=1
  echo
  echo "run-ha: stopping (Ctrl-C again kills at once)"
  if [ ${#detach[@]} -eq 0 ]; then
    # Without setsid the processes share our process group: a terminal's Ctrl-C or a
    # signal to the group reached them too, and a second one would kill them. Give them
    # 10 s to stop on their own before SIGTERM.
    for _ in $(seq 100); do
      [ -z "$(running)" ] && break
      sleep 0.1
    done
  fi
  stop TERM
  echo "run-ha: stopped; data and logs kept in $DATA"
  exit 0
}

# start NAME LOG WANT CMD...: start CMD in the background, logging to LOG, and wait until
# LOG shows WANT (its boot line).
start() {
  local name=$1 log=$2 want=$3
  shift 3
  ${detach[@]+"${detach[@]}"} "$@" >"$log" 2>&1 &
  names+=("$name")
  pids+=($!)
  for _ in $(seq 300); do
    if [ -n "$got" ]; then shutdown; fi
    if grep -q "$want" "$log"; then
      grep "$want" "$log" | head -1
      return 0
    fi
    if ! kill -0 "$!" 2>/dev/null; then
      echo "run-ha: $name exited at start; $log:" >&2
      tail -20 "$log" >&2
      stop TERM
      exit 1
    fi
    sleep 0.1
  done
  echo "run-ha: $name did not start within 30 s; see $log" >&2
  stop TERM
  exit 1
}

# The master registers before the slave starts, so the slave's first registration answer
# already names the master's HA address (else it would learn it 30 s later).
start namesrv "$LOGS/namesrv.log" "boot success" "$BIN/mqnamesrv" -c "$CONF/namesrv.conf"
start master "$LOGS/master.log" "boot success" "$BIN/mqbroker" -c "$CONF/broker-a.properties"
start slave "$LOGS/slave.log" "boot success" "$BIN/mqbroker" -c "$CONF/broker-a-s.properties"

cat <<EOF

Skyrocket master/slave pair is running (cluster DefaultCluster, broker group broker-a)
  NameServer  127.0.0.1:9886
  Master      127.0.0.1:10921  SYNC_MASTER, brokerId 0 (VIP 10919, HA 10922)
  Slave       127.0.0.1:10931  SLAVE, brokerId 1 (VIP 10929)
  Data        $DATA/{master,slave}/store, $DATA/namesrv
  Logs        $LOGS/{namesrv,master,slave}.log
Clients: NAMESRV_ADDR=127.0.0.1:9886. Replication lag: commitLogMaxOffset of
  mqadmin brokerStatus -n 127.0.0.1:9886 -b 127.0.0.1:10921   (master)
  mqadmin brokerStatus -n 127.0.0.1:9886 -b 127.0.0.1:10931   (slave)
and the master's "Slave fall behind master" line, every 60 s, in $LOGS/master.log.
Ctrl-C stops all three.
EOF

while :; do
  sleep 1 &
  wait $! || true # a trap runs as soon as a signal arrives, not after the sleep
  if [ -n "$got" ]; then shutdown; fi
  alive=$(running)
  if [ "$(echo "$alive" | grep -c .)" -lt ${#pids[@]} ]; then
    for n in "${names[@]}"; do
      if ! echo "$alive" | grep -qx "$n"; then echo "run-ha: $n exited; see $LOGS/$n.log" >&2; fi
    done
    stop TERM
    exit 1
  fi
done
