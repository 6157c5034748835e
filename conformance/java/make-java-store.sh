#!/usr/bin/env bash
# Re-creates store/testdata/java-store: store directories written by the Java 4.9.7 broker
# (started with javaservers.sh) and filled by the 4.9.8 Java client (StoreFixtureMain):
#   clean/    copied after a clean shutdown (SIGTERM -> shutdown hook; no abort file)
#   running/  copied while the broker was still up (abort file present; checkpoint as Java last
#             flushed it), after every message was dispatched and indexed and the consumer
#             offsets were persisted
#   manifest.json  every message (topic, queue, offsets, tags, keys, body, SHA-256)
#   broker.conf    the broker settings used (paths and ports as placeholders)
#   README.md      hand-written; regeneration keeps it
# Each snapshot is a store root: commitlog/, consumequeue/, index/, checkpoint, config/.
# lock files are never copied; config keeps only *.json (not the .bak copies).
#
#   make-java-store.sh          produce the fixture (then verify both snapshots)
#   make-java-store.sh verify   start a Java broker on a copy of each snapshot and read every
#                               message of the manifest back with the Java client
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT="$REPO_ROOT/store/testdata/java-store"
# Small files so the fixture stays small: CommitLog 512 KiB (Java preallocates the next file, so a
# rollover leaves three), ConsumeQueue 300 units, a small IndexFile.
SETTINGS=(
  mappedFileSizeCommitLog=524288
  mappedFileSizeConsumeQueue=6000
  maxHashSlotNum=100
  maxIndexNum=1000
  messageIndexEnable=true
  flushConsumerOffsetInterval=1000
  flushDiskType=ASYNC_FLUSH
)

work=$(mktemp -d)
cleanup() {
  "$JAVA_DIR/javaservers.sh" stop --dir "$work/servers" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

[ -f "$JAVA_DIR/tools/target/classpath.txt" ] || mvn_build
sets=()
for s in "${SETTINGS[@]}"; do
  sets+=(--set "$s")
done

# verify_snapshot NAME: a Java broker recovers a copy of OUT/NAME and serves OUT/manifest.json.
verify_snapshot() {
  local name=$1
  rm -rf "$work/verify"
  mkdir -p "$work/verify"
  cp -r "$OUT/$name" "$work/verify/store"
  "$JAVA_DIR/javaservers.sh" start --dir "$work/servers" --store "$work/verify/store" "${sets[@]}" >/dev/null
  source "$work/servers/env"
  local rc=0
  run_tool org.skyrocket.fixture.StoreFixtureMain verify "$NAMESRV_ADDR" "$BROKER_ADDR" "$OUT/manifest.json" || rc=$?
  "$JAVA_DIR/javaservers.sh" stop --dir "$work/servers"
  echo "  ($name snapshot)"
  return $rc
}

if [ "${1:-}" = verify ]; then
  verify_snapshot clean
  verify_snapshot running
  exit 0
fi
"$JAVA_DIR/javaservers.sh" start --dir "$work/servers" --store "$work/store" "${sets[@]}" >/dev/null
source "$work/servers/env"
run_tool org.skyrocket.fixture.StoreFixtureMain produce "$NAMESRV_ADDR" "$BROKER_ADDR" "$work/store" "$work/manifest.json"

# snapshot SRC DST: the store files a Go store opens (no lock, no .bak).
snapshot() {
  local src=$1 dst=$2 f
  mkdir -p "$dst/config"
  cp -r "$src/commitlog" "$src/consumequeue" "$src/index" "$src/checkpoint" "$dst/"
  [ -f "$src/abort" ] && cp "$src/abort" "$dst/abort"
  for f in "$src"/config/*.json; do
    cp "$f" "$dst/config/"
  done
}

snapshot "$work/store" "$work/running"
[ -f "$work/running/abort" ] || { echo "make-java-store.sh: no abort file in the running snapshot" >&2; exit 1; }
"$JAVA_DIR/javaservers.sh" stop --dir "$work/servers"
[ ! -f "$work/store/abort" ] || { echo "make-java-store.sh: the broker did not shut down cleanly (abort file left)" >&2; exit 1; }
snapshot "$work/store" "$work/clean"

# The broker.conf used, with the temp paths and random ports replaced by placeholders.
sed -e "s#$work/store#<STORE>#g" -e "s#^listenPort=.*#listenPort=<BROKER_PORT>#" \
  -e "s#^namesrvAddr=.*#namesrvAddr=<NAMESRV_ADDR>#" "$work/servers/broker.conf" >"$work/broker.conf"

mkdir -p "$OUT"
find "$OUT" -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
cp -r "$work/clean" "$work/running" "$work/manifest.json" "$work/broker.conf" "$OUT/"
(cd "$REPO_ROOT" && du -s --apparent-size --block-size=1K store/testdata/java-store/*)
verify_snapshot clean
verify_snapshot running
