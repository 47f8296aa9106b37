#!/usr/bin/env bash
# The project's test command (README, .ci/run): typecheck, lint (ESLint), the format
# check (Prettier), unit tests, then the integration tests on the embedded PostgreSQL 18
# (started here, nothing to install) and, when one answers on 127.0.0.1:5432, on that
# server too (under CI=true one must answer there: no answer counts as a failure).
# Ends with the plain line "N passed, N failed, N skipped" summed from jest's JSON reports
# (skipped = pending + todo tests); typecheck, lint and format check count as one failure
# each when they fail, as does a test server that does not start.
set -uo pipefail
cd "$(dirname "$0")/../.."
reports=$(mktemp -d)
opensearch_pid=
kafka_state=
# Stops the OpenSearch node and the Kafka broker (if this script started them) however the script ends.
trap 'rm -rf "$reports"; if [ -n "$opensearch_pid" ]; then infra/opensearch/opensearch.sh stop "$opensearch_pid"; fi; if [ -n "$kafka_state" ]; then infra/kafka/broker.sh stop "$kafka_state"; fi' EXIT
status=0
failures_outside_jest=0

echo "== typecheck"
# The Node program, then the console's browser code (DOM types, Preact JSX: services/console/tsconfig.json).
if ! npm run --silent typecheck; then failures_outside_jest=$((failures_outside_jest + 1)); status=1; fi

echo "== lint"
if ! npm run --silent lint; then
  echo "lint failed (counted as 1 failure)"
  failures_outside_jest=$((failures_outside_jest + 1)); status=1
fi

echo "== format check"
if ! npm run --silent format:check; then
  echo "format check failed: run npm run format (counted as 1 failure)"
  failures_outside_jest=$((failures_outside_jest + 1)); status=1
fi

echo "== unit tests"
npx jest --selectProjects unit --json --outputFile="$reports/unit.json" "$@" || status=1

# ONE real OpenSearch node (from Maven Central, infra/opensearch) for both integration
# legs; its specs are selected only when OPENSEARCH_URL is set. A node that does not
# start counts as a failure. An OPENSEARCH_URL given by the caller is used as is.
if [ -z "${OPENSEARCH_URL:-}" ]; then
  echo "== starting an OpenSearch node for the integration tests"
  if opensearch_env=$(OPENSEARCH_OWNER_PID=$$ infra/opensearch/opensearch.sh start); then
    eval "$opensearch_env"
    opensearch_pid=$OPENSEARCH_PID
    export OPENSEARCH_URL
  else
    echo "OpenSearch did not start: its integration specs are not selected (counted as 1 failure)"
    failures_outside_jest=$((failures_outside_jest + 1)); status=1
  fi
fi

# ONE real Kafka broker (Apache Kafka from Maven Central, infra/kafka) for both integration
# legs; the Kafka specs are selected only when KAFKA_BROKERS is set. A broker that does not
# start counts as a failure. A KAFKA_BROKERS given by the caller is used as is.
if [ -z "${KAFKA_BROKERS:-}" ]; then
  echo "== starting a Kafka broker for the integration tests"
  kafka_state=$(mktemp -d)
  if KAFKA_BROKERS=$(KAFKA_OWNER_PID=$$ infra/kafka/broker.sh start "$kafka_state"); then
    export KAFKA_BROKERS
  else
    echo "the Kafka broker did not start: its integration specs are not selected (counted as 1 failure)"
    failures_outside_jest=$((failures_outside_jest + 1)); status=1
  fi
fi

echo "== integration tests on embedded PostgreSQL 18"
npx tsx infra/scripts/with-embedded-pg.ts -- npx jest --selectProjects int --runInBand --json --outputFile="$reports/int-embedded.json" "$@" || status=1

system_pg=${SYSTEM_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
if node -e "const {Client}=require('pg');const c=new Client({connectionString:process.argv[1],connectionTimeoutMillis:2000});c.connect().then(()=>c.end()).then(()=>process.exit(0),()=>process.exit(1))" "$system_pg"; then
  echo "== integration tests on the PostgreSQL at $system_pg"
  ran_system=1
  DATABASE_URL="$system_pg" npx jest --selectProjects int --runInBand --json --outputFile="$reports/int-system.json" "$@" || status=1
elif [ "${CI:-}" = true ]; then
  # In CI the second leg is part of the run: a server that is not there is a failure, not a note.
  echo "== no PostgreSQL answers at $system_pg (SYSTEM_DATABASE_URL): the integration tests on that server did not run (CI=true: counted as 1 failure)"
  failures_outside_jest=$((failures_outside_jest + 1)); status=1
else
  echo "== no PostgreSQL answers at $system_pg: integration tests ran on the embedded server only"
fi

# A jest run that crashed before writing its report counts as one failure.
expected_reports=(unit.json int-embedded.json)
[ -n "${ran_system:-}" ] && expected_reports+=(int-system.json)
for report in "${expected_reports[@]}"; do
  [ -f "$reports/$report" ] || { echo "no report from $report: the run crashed"; failures_outside_jest=$((failures_outside_jest + 1)); status=1; }
done

node -e '
const fs = require("fs");
let passed = 0, failed = Number(process.argv[2]), skipped = 0;
for (const f of fs.readdirSync(process.argv[1])) {
  const r = JSON.parse(fs.readFileSync(process.argv[1] + "/" + f, "utf8"));
  passed += r.numPassedTests;
  failed += r.numFailedTests + r.numRuntimeErrorTestSuites;
  skipped += (r.numPendingTests || 0) + (r.numTodoTests || 0);
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
' "$reports" "$failures_outside_jest"
exit $status
