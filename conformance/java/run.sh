#!/usr/bin/env bash
# Java conformance entry point (make conformance-java -> .ci/java-conformance.sh -> here).
#
#   run.sh                 build + the default steps: golden-check smoke go-harness
#   run.sh build           compile all modules, write target/classpath.txt per module
#   run.sh golden-check    regenerate every golden into a temp dir and diff against the repo
#   run.sh golden          regenerate every golden in place (then review and commit the diff)
#   run.sh java-store      re-create store/testdata/java-store with the Java 4.9.7 servers
#   run.sh java-store-check  start a Java broker on a copy of each java-store snapshot and read
#                          every manifest message back with the Java client
#   run.sh smoke           start the Java servers (javaservers.sh), send + consume one message with
#                          the 4.9.8 and the 4.2.0 client, stop
#   run.sh go-harness      the Go wrapper's tests (package conformance/java: Start/Stop/Kill)
#   run.sh admin-compare   every DefaultMQAdminExt call the dashboard's pages and the exporter's
#                          collectors make, after one fixed workload, against Skyrocket and Java's
#                          4.9.7 servers side by side, compared field by field (admincmp/compare.sh)
#   run.sh mqadmin         every mqadmin 4.9.8 sub-command against Skyrocket (mqadmin/matrix.sh);
#                          MQADMIN_MATRIX_WRITE=1 rewrites conformance/mqadmin-matrix.md
#   run.sh clients         the Java client scenarios (4.9.8 and 4.2.0 clients, JSON and ROCKETMQ
#                          headers, SEND_MESSAGE and _V2, VIP channel, a broker restart) against a
#                          Skyrocket NameServer + Broker started from cmd/skyrocket (clients.sh)
#   run.sh clients-java    the same scenarios against Java's 4.9.7 servers (the baseline)
#   run.sh diff            differential runs (conformance/differential_test.go): the same raw-wire
#                          requests and Go-client scenarios against Java's 4.9.7 servers and
#                          Skyrocket's, differences printed; plus mixed Java/Skyrocket clusters
#                          and master/slave replication across them (conformance/ha_java_test.go);
#                          ACL: the same signed requests to a Java and a Skyrocket broker with one
#                          plain_acl.yml (diff_acl_test.go), the Java client's AclClientRPCHook
#                          against Skyrocket, the 4.2.0 client with our Acl42RPCHook against
#                          Skyrocket and Java (acl_java_test.go); the 4.9.8 Java client over TLS
#                          against Skyrocket (tls_java_test.go)
#
# Later steps (Java client scenarios, the mqadmin matrix) are added as step_<name> functions
# and, when they belong in make test, to DEFAULT_STEPS.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEFAULT_STEPS=(golden-check smoke go-harness clients mqadmin admin-compare diff)
passed=0
failed=0

# The directories GoldenMain (4.9.8 tools), ConfigGoldenMain (4.9.7 servers) and Golden42Main
# (4.2.0 client42, the v4.2.0/ subdirectories) write.
GOLDEN_DIRS=(codec/testdata/golden protocol/testdata/golden store/testdata/java)

generate_goldens() {
  local root=$1
  run_tool org.skyrocket.golden.GoldenMain "$root"
  java "${TOOL_JVM[@]}" -cp "$(module_cp servers)" org.skyrocket.golden.ConfigGoldenMain "$root"
  java "${TOOL_JVM[@]}" -cp "$(module_cp client42)" org.skyrocket.client42.Golden42Main "$root"
}

step_golden() {
  local d
  for d in "${GOLDEN_DIRS[@]}"; do
    # Keep hand-written READMEs; everything else in these directories is generated.
    find "$REPO_ROOT/$d" -type f ! -name README.md -delete 2>/dev/null || true
  done
  generate_goldens "$REPO_ROOT"
  echo "goldens regenerated under: ${GOLDEN_DIRS[*]}"
}

step_golden_check() {
  local tmp d rc=0
  tmp=$(mktemp -d)
  generate_goldens "$tmp"
  for d in "${GOLDEN_DIRS[@]}"; do
    if ! diff -r -x README.md "$tmp/$d" "$REPO_ROOT/$d" >"$tmp/diff.txt" 2>&1; then
      echo "golden-check: $d differs from what the Java classes produce now:"
      head -50 "$tmp/diff.txt"
      rc=1
    fi
  done
  local n
  n=$(find "$tmp" -type f | wc -l)
  rm -rf "$tmp"
  if [ $rc -eq 0 ]; then
    echo "golden-check: $n generated files identical to the checked-in goldens"
  fi
  return $rc
}

step_java_store() {
  "$JAVA_DIR/make-java-store.sh"
}

step_java_store_check() {
  "$JAVA_DIR/make-java-store.sh" verify
}

step_smoke() {
  "$JAVA_DIR/smoke.sh"
}

step_go_harness() {
  (cd "$REPO_ROOT" && SKYROCKET_JAVA_SERVERS=1 go test -count=1 -timeout 10m ./conformance/java/)
}

step_clients() {
  "$JAVA_DIR/clients.sh"
}

step_clients_java() {
  "$JAVA_DIR/clients.sh" --java
}

step_diff() {
  local log rc=0
  log=$(mktemp)
  (cd "$REPO_ROOT" && SKYROCKET_JAVA_SERVERS=1 go test -count=1 -timeout 25m -v -run '^(TestDifferential_|TestHAJava_|TestACLJava_|TestTLSJava_)' ./conformance/) \
    >"$log" 2>&1 || rc=$?
  grep -E '^(=== RUN|\s*--- |ok|FAIL|PASS)|DIFF|allowed|values compared|messages over|servers (up|stopped)|: java |ha_java_test|Java 4.9.8 client' "$log" || true
  if [ "$rc" -ne 0 ]; then
    # The filter above hides most test log lines: on a failure show them all (not the clients' logs).
    echo "== diff failed (exit $rc): every test log line"
    grep -E '_test\.go:[0-9]+:|^\s*--- FAIL|^panic|^FAIL' "$log" | grep -v 'level=' | tail -300 || true
    if grep -q '^panic' "$log"; then
      echo "== the panic's goroutine"
      sed -n '/^panic/,/^FAIL/p' "$log" | head -60
    fi
  fi
  rm -f "$log"
  return "$rc"
}

step_mqadmin() {
  "$JAVA_DIR/mqadmin/matrix.sh"
}

step_admin_compare() {
  "$JAVA_DIR/admincmp/compare.sh"
}

run_step() {
  local s=$1 fn
  fn="step_${s//-/_}"
  if ! declare -F "$fn" >/dev/null; then
    echo "unknown step: $s" >&2
    exit 2
  fi
  echo "== java conformance: $s"
  if "$fn"; then
    passed=$((passed + 1))
  else
    echo "FAIL: $s"
    failed=$((failed + 1))
  fi
}

command -v java >/dev/null && command -v mvn >/dev/null || { echo "java and mvn are required" >&2; exit 1; }

steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then
  steps=("${DEFAULT_STEPS[@]}")
fi
echo "== java conformance: build"
mvn_build
for s in "${steps[@]}"; do
  [ "$s" = build ] && continue
  run_step "$s"
done
echo "java conformance: $passed passed, $failed failed"
[ $failed -eq 0 ]
