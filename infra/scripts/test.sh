#!/usr/bin/env bash
# The project's test command (README, .ci/run): typecheck, unit tests, then the
# integration tests on the embedded PostgreSQL 18 (started here, nothing to
# install) and, when one answers on 127.0.0.1:5432, on that server too.
# Ends with the plain line "N passed, N failed" summed from jest's JSON reports.
set -uo pipefail
cd "$(dirname "$0")/../.."
reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
status=0
failures_outside_jest=0

echo "== typecheck"
if ! npx tsc -p tsconfig.base.json --noEmit; then failures_outside_jest=1; status=1; fi

echo "== unit tests"
npx jest --selectProjects unit --json --outputFile="$reports/unit.json" "$@" || status=1

echo "== integration tests on embedded PostgreSQL 18"
npx tsx infra/scripts/with-embedded-pg.ts -- npx jest --selectProjects int --runInBand --json --outputFile="$reports/int-embedded.json" "$@" || status=1

system_pg=${SYSTEM_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
if node -e "const {Client}=require('pg');const c=new Client({connectionString:process.argv[1],connectionTimeoutMillis:2000});c.connect().then(()=>c.end()).then(()=>process.exit(0),()=>process.exit(1))" "$system_pg"; then
  echo "== integration tests on the PostgreSQL at $system_pg"
  ran_system=1
  DATABASE_URL="$system_pg" npx jest --selectProjects int --runInBand --json --outputFile="$reports/int-system.json" "$@" || status=1
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
let passed = 0, failed = Number(process.argv[2]);
for (const f of fs.readdirSync(process.argv[1])) {
  const r = JSON.parse(fs.readFileSync(process.argv[1] + "/" + f, "utf8"));
  passed += r.numPassedTests;
  failed += r.numFailedTests + r.numRuntimeErrorTestSuites;
}
console.log(`${passed} passed, ${failed} failed`);
' "$reports" "$failures_outside_jest"
exit $status
