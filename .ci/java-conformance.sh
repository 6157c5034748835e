#!/usr/bin/env bash
# Java conformance (make conformance-java, part of make test): conformance/java/run.sh builds
# the Maven project (offline once its artifacts are in ~/.m2; online the first time), checks
# that the Java-generated goldens still match the RocketMQ classes, starts Java's own
# NameServer + Broker and runs the 4.9.8 and 4.2.0 Java clients against them, and tests the Go
# wrapper of that harness. Needs java (17) and mvn; .ci/run installs them.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f conformance/java/pom.xml ]; then
  echo "conformance/java not present yet; skipping"
  exit 0
fi
exec conformance/java/run.sh
