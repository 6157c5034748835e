#!/usr/bin/env bash
# Starts and stops the Java RocketMQ NameServer and Broker (4.9.7 from Maven Central: 4.9.8 of
# rocketmq-broker/rocketmq-namesrv is not served) on loopback ports, for differential tests, the
# side-by-side benchmark and the Java-written store fixture.
#
#   javaservers.sh start --dir DIR [--namesrv-port N] [--broker-port P] [--store ROOT]
#                        [--set key=value]...      extra broker.conf lines (override defaults)
#                        [--namesrv-set key=value]... extra namesrv.conf lines
#                        [--no-namesrv]    start the broker only (it registers with whatever
#                                          namesrvAddr its --set lines name; NAMESRV_PID=0)
#       Prints NAMESRV_ADDR=... and BROKER_ADDR=... (also written to DIR/env) once both answer.
#       Ports default to free random ones; the broker also needs P-2 (VIP) and P+1 (HA) free.
#   javaservers.sh stop --dir DIR      SIGTERM (clean shutdown hooks) broker then namesrv, by PID;
#                                       SIGKILL after 60 s.
#   javaservers.sh stop-broker --dir DIR   the same for the broker only (the NameServer stays up,
#                                       so clients see the broker leave its routes).
#   javaservers.sh kill --dir DIR      SIGKILL both at once (crash tests).
#   javaservers.sh status --dir DIR    exit 0 if both PIDs (the broker's alone with --no-namesrv) are alive.
#   javaservers.sh free-ports          prints "NAMESRV_PORT BROKER_PORT".
#
# JVM settings are explicit and equal for both servers (state them next to any comparison):
#   SERVER_HEAP (default "-Xms1g -Xmx1g -XX:MaxDirectMemorySize=1g") plus the Java 17
#   --add-opens/--add-exports flags from lib.sh. user.home and ROCKETMQ_HOME point into DIR, so
#   nothing is written outside DIR and the store root.
# The servers' classpath is conformance/java/servers/target/classpath.txt (run.sh build, or
# this script builds it when missing).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SERVER_HEAP=${SERVER_HEAP:-"-Xms1g -Xmx1g -XX:MaxDirectMemorySize=1g"}
READY_TIMEOUT=${READY_TIMEOUT:-90}

die() {
  echo "javaservers.sh: $*" >&2
  exit 1
}

port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

free_ports() {
  local n b i
  for i in $(seq 1 200); do
    # Below the kernel's ephemeral range (32768+): a port picked there could be taken as
    # the local port of some outgoing connection before the server binds it (a Java
    # broker of bench-compare's rate step once failed to start on "Address already in use").
    n=$((20000 + RANDOM % 12000))
    b=$((20000 + RANDOM % 12000))
    if [ $((b - n)) -lt 5 ] && [ $((n - b)) -lt 5 ]; then
      continue
    fi
    if port_free "$n" && port_free "$b" && port_free $((b - 2)) && port_free $((b + 1)); then
      echo "$n $b"
      return 0
    fi
  done
  die "no free ports found"
}

alive() {
  [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

# wait_ready NAME PIDFILE OUTFILE PORT PATTERN
wait_ready() {
  local name=$1 pidf=$2 out=$3 port=$4 pattern=$5 deadline
  deadline=$((SECONDS + READY_TIMEOUT))
  while [ $SECONDS -lt $deadline ]; do
    if ! alive "$pidf"; then
      echo "javaservers.sh: $name exited during start; last output:" >&2
      tail -30 "$out" >&2 || true
      return 1
    fi
    if grep -q "$pattern" "$out" 2>/dev/null && ! port_free "$port"; then
      return 0
    fi
    sleep 0.2
  done
  echo "javaservers.sh: $name not ready after ${READY_TIMEOUT}s; last output:" >&2
  tail -30 "$out" >&2 || true
  return 1
}

write_logback() {
  local file=$1 log=$2
  cat >"$file" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>$log</file>
    <append>true</append>
    <encoder><pattern>%d{yyy-MM-dd HH:mm:ss,SSS} %-5level %logger{24} - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
XML
}

cmd_start() {
  local dir="" nport="" bport="" store="" sets=() nsets=() namesrv=1
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      --no-namesrv) namesrv=0; shift ;;
      --namesrv-port) nport=$2; shift 2 ;;
      --broker-port) bport=$2; shift 2 ;;
      --store) store=$2; shift 2 ;;
      --set) sets+=("$2"); shift 2 ;;
      --namesrv-set) nsets+=("$2"); shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  [ -n "$dir" ] || die "start needs --dir"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if alive "$dir/namesrv.pid" || alive "$dir/broker.pid"; then
    die "servers already running for $dir (stop them first)"
  fi
  if [ -z "$nport" ] || [ -z "$bport" ]; then
    read -r fn fb < <(free_ports)
    nport=${nport:-$fn}
    bport=${bport:-$fb}
  fi
  store=${store:-$dir/store}
  mkdir -p "$store" "$dir/home/conf" "$dir/logs"
  store=$(cd "$store" && pwd)
  [ -f "$JAVA_DIR/servers/target/classpath.txt" ] || mvn_build

  write_logback "$dir/home/conf/logback_namesrv.xml" "$dir/logs/namesrv.log"
  write_logback "$dir/home/conf/logback_broker.xml" "$dir/logs/broker.log"
  {
    echo "listenPort=$nport"
    echo "kvConfigPath=$dir/namesrv/kvConfig.json"
    printf '%s\n' "${nsets[@]+"${nsets[@]}"}"
  } >"$dir/namesrv.conf"
  {
    echo "brokerClusterName=DefaultCluster"
    echo "brokerName=broker-a"
    echo "brokerId=0"
    echo "brokerRole=ASYNC_MASTER"
    echo "flushDiskType=ASYNC_FLUSH"
    echo "brokerIP1=127.0.0.1"
    echo "brokerIP2=127.0.0.1"
    echo "listenPort=$bport"
    echo "namesrvAddr=127.0.0.1:$nport"
    echo "storePathRootDir=$store"
    echo "storePathCommitLog=$store/commitlog"
    echo "autoCreateTopicEnable=true"
    echo "autoCreateSubscriptionGroup=true"
    # Never delete test data because the machine's disk is fuller than Java's default 75 %.
    echo "diskMaxUsedSpaceRatio=95"
    printf '%s\n' "${sets[@]+"${sets[@]}"}"
  } >"$dir/broker.conf"

  local jvm=($SERVER_HEAP "${JAVA17_OPENS[@]}" "-Duser.home=$dir/home" "-Drocketmq.home.dir=$dir/home")
  local cp
  cp=$(servers_cp)
  if [ "$namesrv" = 1 ]; then
    (cd "$dir" && ROCKETMQ_HOME="$dir/home" exec java "${jvm[@]}" -cp "$cp" \
      org.apache.rocketmq.namesrv.NamesrvStartup -c "$dir/namesrv.conf" \
      >"$dir/namesrv.out" 2>&1 </dev/null) &
    echo $! >"$dir/namesrv.pid"
    wait_ready namesrv "$dir/namesrv.pid" "$dir/namesrv.out" "$nport" "boot success" || { cmd_stop --dir "$dir" >/dev/null 2>&1; exit 1; }
  fi

  (cd "$dir" && ROCKETMQ_HOME="$dir/home" exec java "${jvm[@]}" -cp "$cp" \
    org.apache.rocketmq.broker.BrokerStartup -c "$dir/broker.conf" \
    >"$dir/broker.out" 2>&1 </dev/null) &
  echo $! >"$dir/broker.pid"
  wait_ready broker "$dir/broker.pid" "$dir/broker.out" "$bport" "boot success" || { cmd_stop --dir "$dir" >/dev/null 2>&1; exit 1; }

  local nsaddr=""
  [ "$namesrv" = 1 ] && nsaddr=127.0.0.1:$nport
  {
    echo "NAMESRV_ADDR=$nsaddr"
    echo "BROKER_ADDR=127.0.0.1:$bport"
    echo "STORE_ROOT=$store"
    echo "NAMESRV_PID=$(cat "$dir/namesrv.pid" 2>/dev/null || echo 0)"
    echo "BROKER_PID=$(cat "$dir/broker.pid")"
  } >"$dir/env"
  cat "$dir/env"
}

# stop_one NAME PIDFILE SIGNAL
stop_one() {
  local name=$1 pidf=$2 sig=$3 pid deadline
  [ -f "$pidf" ] || return 0
  pid=$(cat "$pidf")
  if kill -0 "$pid" 2>/dev/null; then
    kill "-$sig" "$pid" 2>/dev/null || true
    deadline=$((SECONDS + 60))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "javaservers.sh: $name ($pid) did not stop after 60 s; SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$pidf"
}

cmd_stop() {
  local dir=""
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  [ -n "$dir" ] || die "stop needs --dir"
  stop_one broker "$dir/broker.pid" TERM
  stop_one namesrv "$dir/namesrv.pid" TERM
}

cmd_stop_broker() {
  local dir=""
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  [ -n "$dir" ] || die "stop-broker needs --dir"
  stop_one broker "$dir/broker.pid" TERM
}

cmd_kill() {
  local dir=""
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  [ -n "$dir" ] || die "kill needs --dir"
  stop_one broker "$dir/broker.pid" KILL
  stop_one namesrv "$dir/namesrv.pid" KILL
}

cmd_status() {
  local dir=""
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  alive "$dir/broker.pid" && { [ ! -f "$dir/namesrv.pid" ] || alive "$dir/namesrv.pid"; }
}

case ${1:-} in
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  stop-broker) shift; cmd_stop_broker "$@" ;;
  kill) shift; cmd_kill "$@" ;;
  status) shift; cmd_status "$@" ;;
  free-ports) free_ports ;;
  *) sed -n '2,28p' "$0"; exit 2 ;;
esac
