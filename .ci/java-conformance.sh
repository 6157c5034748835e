#!/usr/bin/env bash
# Java client and mqadmin conformance (conformance/java). Filled in by the Java conformance work.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f conformance/java/pom.xml ]; then
  echo "conformance/java not present yet; skipping"
  exit 0
fi
exec conformance/java/run.sh
