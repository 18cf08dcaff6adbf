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
# KAFKA_BROKERS_COUNT=3 starts the three-broker cluster (infra/kafka-cluster.sh) as well; the single broker
# stays, and stays what KAFKA_BROKERS points at.
case "${KAFKA_BROKERS_COUNT:-1}" in
  1) ;;
  3) COMPONENTS+=(kafka-cluster) ;;
  *) die "KAFKA_BROKERS_COUNT must be 1 or 3, got '${KAFKA_BROKERS_COUNT}'" ;;
esac
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
[[ " ${COMPONENTS[*]} " == *" kafka-cluster "* ]] && say "kafka cluster: $KAFKA_CLUSTER_BROKERS"
say "all up in $((SECONDS - t0))s: kafka $KAFKA_BROKERS, registry $SCHEMA_REGISTRY_URL, sqs $SQS_ENDPOINT, postgres $PG_HOST:$PG_PORT"
