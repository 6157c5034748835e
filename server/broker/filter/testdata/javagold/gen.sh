#!/bin/sh
# Regenerates the Java goldens of server/broker/filter and server/broker/consumerfilter:
#   1. go test ./server/broker/filter -run TestCorpus_Write -corpus   (writes testdata/corpus.jsonl)
#   2. sh server/broker/filter/testdata/javagold/gen.sh              (runs Java over it)
# Needs a JDK and Maven (Maven Central reachable, or the artifacts in ~/.m2).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
mvn -q dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
mkdir -p target/classes
javac -d target/classes -cp "$(cat target/classpath.txt)" src/main/java/skyrocket/*.java
mkdir -p ../../../consumerfilter/testdata
java -cp "target/classes:$(cat target/classpath.txt)" skyrocket.GoldenGen ../corpus.jsonl ../propsets.json ../golden.jsonl ../../../consumerfilter/testdata/consumer_filter_golden.json
