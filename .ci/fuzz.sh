#!/usr/bin/env bash
# Runs every fuzz target in the module for the given time each (default 3s).
#
# A duration -fuzztime can end with a bare "context deadline exceeded" and no failing input:
# a race in Go's fuzz coordinator at the deadline (go.dev/issue/75804, fixed in Go 1.27; a CI
# run of ours hit it on FuzzDecodeRecord under load). Such a run is retried once; a run that
# writes a failing input, panics or reports any other error fails at once, and so does the
# retry whatever it prints.
set -euo pipefail
t=${1:-3s}
cd "$(dirname "$0")/.."
fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# deadline_only: the run failed with nothing but the coordinator's deadline error.
deadline_only() {
  grep -q 'context deadline exceeded' "$log" &&
    ! grep -qE 'Failing input written|^panic:|fuzz: minimizing|_test\.go:[0-9]+:' "$log"
}

for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)\(' "$dir"/*_test.go 2>/dev/null | sed -E 's/func (Fuzz[A-Za-z0-9_]+)\(/\1/' | sort -u); do
    for attempt in 1 2; do
      echo "== fuzz $pkg $f ($t)"
      if go test -run '^$' -fuzz "^${f}\$" -fuzztime "$t" "$pkg" 2>&1 | tee "$log"; then
        break
      fi
      if [ "$attempt" = 1 ] && deadline_only; then
        echo "== $f: bare 'context deadline exceeded' with no failing input (Go's fuzz coordinator race, go.dev/issue/75804): retrying once"
        continue
      fi
      fail=1
      break
    done
  done
done
exit $fail
