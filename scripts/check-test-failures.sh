#!/usr/bin/env bash
# Proves that the test command can go red: each case below must make vitest exit non-zero, for
# the reason named (a run that fails for another reason, such as finding no test, proves nothing).
# .ci/run calls this before the real run, so a change that lets failures exit 0 stops CI.
set -uo pipefail
cd "$(dirname "$0")/.."

log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=0

expect_failure() {
  local name=$1 evidence=$2
  shift 2
  if "$@" >"$log" 2>&1; then
    echo "self-check FAILED: $name: vitest exited 0"
    failed=1
  elif ! grep -q -- "$evidence" "$log"; then
    echo "self-check FAILED: $name: vitest failed, but not with \"$evidence\":"
    tail -n 30 "$log"
    failed=1
  else
    echo "self-check: $name exits non-zero, as it must"
  fi
}

export SVC_SELF_CHECK=1
expect_failure 'a failing unit test' 'a failing unit test fails the run' npx vitest run --project unit
expect_failure 'a failing integration test' 'a failing integration test fails the run' \
  npx vitest run --project integration test/self-check/fails.integration.ts
expect_failure 'an unhandled rejection' 'self-check: unhandled rejection' \
  npx vitest run --project integration test/self-check/unhandled.integration.ts
# A global setup that cannot start Temporal (its binary exits at once), with and without a
# Postgres server named: without one the setup also starts the embedded server.
expect_failure 'a failing global setup' 'the embedded Temporal exited with code 1 before it was ready' env TEMPORAL_CLI=/bin/false npx vitest run --project integration test/self-check/fails.integration.ts
expect_failure 'a failing global setup with embedded Postgres' 'the embedded Temporal exited with code 1 before it was ready' env -u DATABASE_URL TEMPORAL_CLI=/bin/false \
  npx vitest run --project integration test/self-check/fails.integration.ts

exit $failed
