# Shared shell functions for conformance/java scripts (sourced, not run).
# JAVA_DIR is this directory; every function works from any current directory.

JAVA_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$JAVA_DIR/../.." && pwd)

# Java 17 runs RocketMQ 4.9.x (built for Java 8) only with these: the store's mapped-buffer
# cleaner reaches into jdk.internal.ref / java.nio / sun.nio.ch (apache/rocketmq #3321, #5097).
JAVA17_OPENS=(--add-exports java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens java.base/java.nio=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/java.util=ALL-UNNAMED)

# Options for the tool JVMs (goldens, clients): small heap, client logs through slf4j/logback
# (<module>/src/main/resources/logback.xml: warnings only) instead of ~/logs/rocketmqlogs
# (4.9.x: rocketmq.client.logUseSlf4j; 4.2.0: rocketmq.client.log.loadconfig=false).
TOOL_JVM=(-Xms64m -Xmx512m "${JAVA17_OPENS[@]}" -Drocketmq.client.logUseSlf4j=true
  -Drocketmq.client.log.loadconfig=false)

# mvn_build compiles every module and writes each module's target/classpath.txt.
# Offline first (after the first resolve nothing is downloaded); online only if that fails.
mvn_build() {
  local log
  log=$(mktemp)
  if (cd "$JAVA_DIR" && { mvn -q -B -o compile >"$log" 2>&1 || mvn -q -B compile >"$log" 2>&1; }); then
    rm -f "$log"
    return 0
  fi
  cat "$log" >&2
  rm -f "$log"
  return 1
}

# module_cp MODULE prints "MODULE/target/classes:<dependencies>".
module_cp() {
  local m=$1
  printf '%s:%s' "$JAVA_DIR/$m/target/classes" "$(cat "$JAVA_DIR/$m/target/classpath.txt")"
}

# servers_cp prints the 4.9.7 NameServer/Broker classpath (dependencies only, none of our classes).
servers_cp() {
  cat "$JAVA_DIR/servers/target/classpath.txt"
}

# run_tool MAIN ARGS... runs a class of the 4.9.8 tools module.
run_tool() {
  local main=$1
  shift
  java "${TOOL_JVM[@]}" -cp "$(module_cp tools)" "$main" "$@"
}

# run_client42 MAIN ARGS... runs a class of the client42 module (the 4.2.0 client).
run_client42() {
  local main=$1
  shift
  java "${TOOL_JVM[@]}" -cp "$(module_cp client42)" "$main" "$@"
}
