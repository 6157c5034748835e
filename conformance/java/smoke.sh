#!/usr/bin/env bash
# Starts the Java 4.9.7 NameServer + Broker with javaservers.sh, sends one message with the
# 4.9.8 Java producer and pulls it back with the Java pull consumer, then stops both by PID.
#   smoke.sh              against fresh Java servers in a temp dir
#   smoke.sh NS BROKER    against already running servers (e.g. Skyrocket's)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ $# -eq 2 ]; then
  run_tool org.skyrocket.fixture.SmokeMain "$1" "$2"
  exit
fi
work=$(mktemp -d)
cleanup() {
  "$JAVA_DIR/javaservers.sh" stop --dir "$work" || true
  rm -rf "$work"
}
trap cleanup EXIT
"$JAVA_DIR/javaservers.sh" start --dir "$work" >/dev/null
source "$work/env"
run_tool org.skyrocket.fixture.SmokeMain "$NAMESRV_ADDR" "$BROKER_ADDR"
