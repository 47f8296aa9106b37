#!/usr/bin/env bash
# One command produced with kcat (Debian package `kafkacat`) and applied by MemoTrace
# (issue 3). Needs MemoTrace running with Kafka on, e.g.
#   infra/kafka/broker.sh start /tmp/kafka            # prints 127.0.0.1:PORT
#   KAFKA_BROKERS=127.0.0.1:PORT npm start            # in another terminal
#   KAFKA_BROKERS=127.0.0.1:PORT infra/kafka/kcat-demo.sh
#
# Environment: KAFKA_BROKERS (required), MEMOTRACE_URL (http://127.0.0.1:8080),
# MEMORY_ID (kcat-demo), COMMAND_ID (kcat-<time>), MEMOTRACE_API_KEY (sent as the
# authorization header when set), KAFKA_COMMANDS_TOPIC / KAFKA_RESULTS_TOPIC (defaults).
set -euo pipefail
: "${KAFKA_BROKERS:?set KAFKA_BROKERS=host:port}"
kcat=$(command -v kcat || command -v kafkacat || true)
[ -n "$kcat" ] || { echo "kcat not found: apt-get install -y kafkacat" >&2; exit 1; }
url=${MEMOTRACE_URL:-http://127.0.0.1:8080}
memory=${MEMORY_ID:-kcat-demo}
command_id=${COMMAND_ID:-kcat-$(date +%s)}
commands=${KAFKA_COMMANDS_TOPIC:-memotrace.commands}
results=${KAFKA_RESULTS_TOPIC:-memotrace.command-results}
headers=()
[ -n "${MEMOTRACE_API_KEY:-}" ] && headers=(-H "authorization=Bearer $MEMOTRACE_API_KEY")

value="{\"op\":\"UPSERT_ENTITY\",\"commandId\":\"$command_id\",\"entityId\":\"ada\",\"name\":\"Ada Lovelace\",\"types\":[\"person\"]}"
echo "\$ kcat -P -b $KAFKA_BROKERS -t $commands -K '|' -X topic.partitioner=murmur2_random ${headers:+-H 'authorization=Bearer …'}"
echo "$memory|$value"
# Key = memoryId (before the '|'); murmur2 puts it on the same partition as MemoTrace's own (Java-compatible) clients.
printf '%s|%s\n' "$memory" "$value" | "$kcat" -P -b "$KAFKA_BROKERS" -t "$commands" -K '|' -X topic.partitioner=murmur2_random "${headers[@]}"

echo
echo "\$ kcat -C -b $KAFKA_BROKERS -t $results -o beginning -e -f '%k %s\\n' | grep $command_id"
result=""
for _ in $(seq 1 60); do
  result=$("$kcat" -C -b "$KAFKA_BROKERS" -t "$results" -o beginning -e -q -f '%k %s\n' 2>/dev/null | grep -F "\"commandId\":\"$command_id\"" | head -n 1 || true)
  [ -n "$result" ] && break
  sleep 0.5
done
[ -n "$result" ] || { echo "no result for $command_id on $results after 30 s" >&2; exit 1; }
echo "$result"

echo
echo "\$ curl -s $url/v1/memories/$memory/entities/ada"
auth=()
[ -n "${MEMOTRACE_API_KEY:-}" ] && auth=(-H "authorization: Bearer $MEMOTRACE_API_KEY")
# The read model follows the log within milliseconds; retry briefly rather than race it.
for _ in $(seq 1 40); do
  if entity=$(curl -sf "${auth[@]}" "$url/v1/memories/$memory/entities/ada"); then echo "$entity"; exit 0; fi
  sleep 0.25
done
echo "entity ada not readable at $url" >&2
exit 1
