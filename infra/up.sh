#!/usr/bin/env bash
# Start Kafka, the schema registry, the SQS server and PostgreSQL on loopback (ports: infra/endpoints.ts),
# in parallel, and wait until each answers a real client call. Idempotent: a healthy server is left alone,
# a dead or unhealthy one is (re)started. Exit 0 only when all four are healthy; otherwise non-zero,
# with the failing component's log tail on stderr.
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
load_endpoints # once here; exported to the component scripts

COMPONENTS=(postgres sqs kafka registry)
t0=$SECONDS
declare -A job
for c in "${COMPONENTS[@]}"; do
  bash "$INFRA_SRC/$c.sh" up &
  job[$c]=$!
done

failed=()
for c in "${COMPONENTS[@]}"; do
  wait "${job[$c]}" || failed+=("$c")
done

if ((${#failed[@]})); then
  say "FAILED: ${failed[*]} (logs: $LOG_DIR/<name>.log)"
  exit 1
fi
say "all up in $((SECONDS - t0))s: kafka $KAFKA_BROKERS, registry $SCHEMA_REGISTRY_URL, sqs $SQS_ENDPOINT, postgres $PG_HOST:$PG_PORT"
