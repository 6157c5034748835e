#!/usr/bin/env bash
# The mqadmin matrix (run.sh mqadmin): starts a NameServer + Broker, runs every sub-command of
# Java's mqadmin 4.9.8 against it (MatrixMain, one JVM), stops the servers by PID, and compares
# the result with conformance/mqadmin-matrix.md.
#
#   matrix.sh            against Skyrocket (go build ./cmd/skyrocket, loopback ports, temp data)
#   matrix.sh -java      against Java's 4.9.7 NameServer + Broker (javaservers.sh): the baseline
#   matrix.sh -dump      also print every invocation's output
#
# Exit status non-zero when a sub-command's result differs from what its spec records (see
# MatrixMain). With MQADMIN_MATRIX_WRITE=1 the Skyrocket run rewrites conformance/mqadmin-matrix.md;
# otherwise a difference in the file is printed and left to review.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

target=skyrocket
dump=()
for a in "$@"; do
  case $a in
    -java) target=java ;;
    -dump) dump=(-dump) ;;
    *) echo "usage: matrix.sh [-java] [-dump]" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ "$target" = java ]; then
    "$JAVA_DIR/javaservers.sh" stop --dir "$work/js" >/dev/null 2>&1 || true
  elif [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# mqadmin configures logback from $ROCKETMQ_HOME/conf/logback_tools.xml on every command.
mkdir -p "$work/home/conf"
cp "$JAVA_DIR/mqadmin/src/main/resources/logback.xml" "$work/home/conf/logback_tools.xml"

# The broker runs with aclEnable=true; its plain_acl.yml whitelists 127.0.0.1, so every command
# (unsigned: the tools' home has no conf/tools.yml) passes the ACL, and the ACL commands work.
write_acl() {
  mkdir -p "$(dirname "$1")"
  printf 'globalWhiteRemoteAddresses:\n  - 127.0.0.1\naccounts:\n  - accessKey: MatrixAdmin\n    secretKey: MatrixAdminSecret\n    admin: true\n' >"$1"
}

if [ "$target" = java ]; then
  acl_file="$work/js/home/conf/plain_acl.yml"
  write_acl "$acl_file"
  "$JAVA_DIR/javaservers.sh" start --dir "$work/js" --set aclEnable=true >/dev/null
  source "$work/js/env"
  ns=$NAMESRV_ADDR broker=$BROKER_ADDR server="Java 4.9.7 NameServer + Broker (baseline)"
else
  (cd "$REPO_ROOT" && go build -o "$work/skyrocket" ./cmd/skyrocket)
  read -r nport bport < <("$JAVA_DIR/javaservers.sh" free-ports)
  acl_file="$work/brokerhome/conf/plain_acl.yml"
  write_acl "$acl_file"
  printf 'aclEnable=true\nrocketmqHome=%s\n' "$work/brokerhome" >"$work/broker-acl.conf"
  "$work/skyrocket" -data "$work/data" -c "$work/broker-acl.conf" -namesrv-port "$nport" -port "$bport" -bind 127.0.0.1 -log-level warn \
    >"$work/skyrocket.log" 2>&1 &
  server_pid=$!
  ns=127.0.0.1:$nport broker=127.0.0.1:$bport server="Skyrocket"
  for _ in $(seq 1 100); do
    if (echo >"/dev/tcp/127.0.0.1/$bport") 2>/dev/null && (echo >"/dev/tcp/127.0.0.1/$nport") 2>/dev/null; then break; fi
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/skyrocket.log" >&2; exit 1; }
    sleep 0.1
  done
fi

rc=0
# consumerStatus writes its report under the current directory.
mkdir -p "$work/run"
cd "$work/run"
java "${TOOL_JVM[@]}" -Drocketmq.home.dir="$work/home" -Duser.home="$work/home" \
  -cp "$(module_cp mqadmin)" org.skyrocket.mqadmin.MatrixMain \
  -namesrv "$ns" -broker "$broker" -cluster DefaultCluster -broker-name broker-a \
  -work "$work/run" -acl-file "$acl_file" -out "$work/matrix.md" -server "$server" "${dump[@]}" || rc=$?

checked_in="$REPO_ROOT/conformance/mqadmin-matrix.md"
if [ "$target" = skyrocket ] && [ -f "$work/matrix.md" ]; then
  if [ "${MQADMIN_MATRIX_WRITE:-}" = 1 ]; then
    cp "$work/matrix.md" "$checked_in"
    echo "mqadmin matrix: wrote $checked_in"
  elif ! diff -u "$checked_in" "$work/matrix.md" >"$work/matrix.diff" 2>&1; then
    echo "mqadmin matrix: the run differs from conformance/mqadmin-matrix.md (rerun with MQADMIN_MATRIX_WRITE=1 to update):"
    cat "$work/matrix.diff"
  fi
fi
if [ "$target" = java ] && [ -f "$work/matrix.md" ]; then
  cp "$work/matrix.md" "${MQADMIN_MATRIX_JAVA_OUT:-/dev/stdout}"
fi
if [ $rc -ne 0 ] && [ -f "$work/skyrocket.log" ]; then
  echo "mqadmin matrix: last lines of the Skyrocket log:"
  tail -20 "$work/skyrocket.log"
fi
exit $rc
