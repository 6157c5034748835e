#!/usr/bin/env bash
# Starts the Java 4.9.7 NameServer + Broker with javaservers.sh, sends one message with the
# 4.9.8 Java producer and pulls it back with the Java pull consumer, does the same with the
# 4.2.0 client, then stops both servers by PID.
#   smoke.sh              against fresh Java servers in a temp dir
#   smoke.sh NS BROKER    against already running servers (e.g. Skyrocket's)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

both() {
  run_tool org.skyrocket.fixture.SmokeMain "$1" "$2"
  java "${TOOL_JVM[@]}" -cp "$(module_cp client42)" org.skyrocket.client42.Smoke42Main "$1" "$2"
}

if [ $# -eq 2 ]; then
  both "$1" "$2"
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
both "$NAMESRV_ADDR" "$BROKER_ADDR"
