#!/usr/bin/env bash
# Runs every fuzz target in the module for the given time each (default 3s).
set -euo pipefail
t=${1:-3s}
cd "$(dirname "$0")/.."
fail=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)\(' "$dir"/*_test.go 2>/dev/null | sed -E 's/func (Fuzz[A-Za-z0-9_]+)\(/\1/' | sort -u); do
    echo "== fuzz $pkg $f ($t)"
    if ! go test -run '^$' -fuzz "^${f}\$" -fuzztime "$t" "$pkg"; then fail=1; fi
  done
done
exit $fail
