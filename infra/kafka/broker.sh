#!/usr/bin/env bash
# A real Kafka broker (Apache Kafka 3.9.1 from Maven Central, KRaft combined mode)
# for tests and local runs. No Docker, no ZooKeeper.
#
#   infra/kafka/broker.sh fetch              copy the jars into infra/kafka/lib (once; cached)
#   infra/kafka/broker.sh start STATE_DIR    format storage in STATE_DIR, start the broker on a
#                                            free port, wait until it answers; prints host:port
#   infra/kafka/broker.sh stop STATE_DIR     stop it (SIGTERM, then SIGKILL after 20 s), remove STATE_DIR
#   infra/kafka/broker.sh kill STATE_DIR     SIGKILL it and keep STATE_DIR (a crash, for the fault tests)
#   infra/kafka/broker.sh restart STATE_DIR  start it again on STATE_DIR's storage and port (after kill)
#
# Environment: KAFKA_START_TIMEOUT (seconds, default 90), KAFKA_HEAP_OPTS (default -Xms256m -Xmx768m),
# KAFKA_OWNER_PID (stop the broker when that process is gone, e.g. a killed test run).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lib="$here/lib"

log() { echo "kafka: $*" >&2; }

fetch() {
  # The pom's hash marks a complete copy: a changed pom or an interrupted copy fetches again.
  local stamp="$lib/.pom-sha256" want
  want="$(sha256sum "$here/pom.xml" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && ls "$lib"/kafka_2.13-*.jar >/dev/null 2>&1; then return 0; fi
  log "fetching Apache Kafka from Maven Central into $lib"
  rm -rf "$lib"
  (cd "$here" && mvn -q -B dependency:copy-dependencies) >&2
  echo "$want" >"$stamp"
}

jvm_options() {
  # shellcheck disable=SC2086
  echo ${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m} -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true
}

free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}


start() {
  local dir="$1"
  fetch
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  local port controller_port cluster_id
  port="$(free_port)"
  controller_port="$(free_port)"
  while [ "$controller_port" = "$port" ]; do controller_port="$(free_port)"; done
  sed -e "s|@PORT@|$port|g" -e "s|@CONTROLLER_PORT@|$controller_port|g" -e "s|@DATA_DIR@|$dir/data|g" \
    "$here/server.properties.template" >"$dir/server.properties"
  # A KRaft cluster id is 16 random bytes, base64url without padding.
  cluster_id="$(node -e "console.log(require('crypto').randomBytes(16).toString('base64url'))")"
  # shellcheck disable=SC2046
  java $(jvm_options) -Dlog4j.configuration="file:$here/log4j.properties" -cp "$lib/*" \
    kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/server.properties" >"$dir/format.log" 2>&1 ||
    { log "formatting storage failed:"; cat "$dir/format.log" >&2; return 1; }
  launch "$dir"
}

# Runs the broker of an already formatted STATE_DIR and waits until it answers; prints host:port.
launch() {
  local dir="$1" port
  port="$(sed -n 's|^listeners=PLAINTEXT://127.0.0.1:\([0-9]*\),.*|\1|p' "$dir/server.properties")"
  local started=$SECONDS before
  # Each start appends to broker.log: this start's is the next "started" line.
  before="$(grep -c 'Kafka Server started' "$dir/broker.log" 2>/dev/null || true)"
  # setsid: the broker gets its own process group, so `stop` ends the JVM and nothing else.
  # shellcheck disable=SC2046
  setsid java $(jvm_options) -Dlog4j.configuration="file:$here/log4j.properties" -cp "$lib/*" \
    kafka.Kafka "$dir/server.properties" >>"$dir/broker.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$dir/pid"
  local timeout="${KAFKA_START_TIMEOUT:-90}"
  until [ "$(grep -c 'Kafka Server started' "$dir/broker.log" 2>/dev/null || true)" -gt "${before:-0}" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then log "the broker exited while starting:"; tail -n 30 "$dir/broker.log" >&2; return 1; fi
    if [ $((SECONDS - started)) -ge "$timeout" ]; then
      log "the broker did not start within ${timeout}s:"; tail -n 30 "$dir/broker.log" >&2; stop "$dir"; return 1
    fi
    sleep 0.25
  done
  log "broker up on 127.0.0.1:$port in $((SECONDS - started))s (pid $pid, state $dir)"
  if [ -n "${KAFKA_OWNER_PID:-}" ]; then
    # A watchdog: when the owner dies without stopping the broker (SIGKILL), stop it anyway; a broker
    # that crashed (or was killed to be restarted) keeps its state.
    (while kill -0 "$KAFKA_OWNER_PID" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do sleep 2; done
      kill -0 "$KAFKA_OWNER_PID" 2>/dev/null || stop "$dir") </dev/null >/dev/null 2>&1 &
    disown
  fi
  echo "127.0.0.1:$port"
}

stop() {
  local dir="$1" pid
  if [ -f "$dir/pid" ]; then
    pid="$(cat "$dir/pid")"
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 80); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      if kill -0 "$pid" 2>/dev/null; then log "broker $pid ignored SIGTERM for 20 s: killing it"; kill -KILL "$pid" 2>/dev/null || true; fi
    fi
  fi
  rm -rf "$dir"
}

crash() {
  local dir="$1" pid
  pid="$(cat "$dir/pid")"
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
}

case "${1:-}" in
  fetch) fetch ;;
  start) [ $# -eq 2 ] || { echo "usage: $0 start STATE_DIR" >&2; exit 2; }; start "$2" ;;
  stop) [ $# -eq 2 ] || { echo "usage: $0 stop STATE_DIR" >&2; exit 2; }; stop "$2" ;;
  kill) [ $# -eq 2 ] || { echo "usage: $0 kill STATE_DIR" >&2; exit 2; }; crash "$2" ;;
  restart) [ $# -eq 2 ] || { echo "usage: $0 restart STATE_DIR" >&2; exit 2; }; launch "$(cd "$2" && pwd)" ;;
  *) echo "usage: $0 fetch | start STATE_DIR | stop STATE_DIR | kill STATE_DIR | restart STATE_DIR" >&2; exit 2 ;;
esac
