#!/usr/bin/env bash
# A three-node KRaft cluster of Apache Kafka (KAFKA_VERSION, as infra/kafka.sh), on loopback beside
# the single broker, for the suites that need a replicated cluster (test/resilience/cluster.test.ts).
# Started on request only: `infra/up.sh` starts it too when KAFKA_BROKERS_COUNT=3.
# Ports: infra/endpoints.ts (INFRA.kafkaCluster). State: $INFRA_STATE_DIR/kafka-cluster-<n>.
# Usage: infra/kafka-cluster.sh up|down|status       every node
#        infra/kafka-cluster.sh kill|start <n>        SIGKILL one node (a lost broker) / start it again
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
load_endpoints
kafka_select_version

read -r -a PORTS <<<"$KAFKA_CLUSTER_PORTS"
read -r -a CONTROLLER_PORTS <<<"$KAFKA_CLUSTER_CONTROLLER_PORTS"
START_TIMEOUT=120
STOP_GRACE=30
STOP_SIGNAL=TERM
CLUSTER_ID_FILE="$STATE_DIR/kafka-cluster.id"

voters() {
  local i out=()
  for i in "${!PORTS[@]}"; do out+=("$((i + 1))@$KAFKA_CLUSTER_HOST:${CONTROLLER_PORTS[$i]}"); done
  (IFS=,; echo "${out[*]}")
}

# select_node <n>: sets the lib.sh component variables for node n.
select_node() {
  local n="$1"
  [[ "$n" =~ ^[0-9]+$ ]] && ((n >= 1 && n <= KAFKA_CLUSTER_SIZE)) || die "kafka-cluster: node must be 1..$KAFKA_CLUSTER_SIZE, got '$n'"
  NODE="$n"
  COMPONENT="kafka-cluster-$n"
  HOST="$KAFKA_CLUSTER_HOST"
  PORT="${PORTS[$((n - 1))]}"
  STATE="$STATE_DIR/$COMPONENT"
  CONFIG="$STATE/server.properties"
  MARKER="-Dfaultline.infra=$COMPONENT@$PORT"
}

prepare() {
  require_java; require_mvn
  kafka_fetch_classpath
  kafka_stop_other_version
  mkdir -p "$STATE/$KAFKA_DATA_NAME"
  sed -e "s|@NODE_ID@|$NODE|g" -e "s|@QUORUM_VOTERS@|$(voters)|g" -e "s|@KAFKA_HOST@|$HOST|g" \
      -e "s|@KAFKA_PORT@|$PORT|g" -e "s|@KAFKA_CONTROLLER_PORT@|${CONTROLLER_PORTS[$((NODE - 1))]}|g" \
      -e "s|@DATA_DIR@|$STATE/$KAFKA_DATA_NAME|g" "$INFRA_SRC/kafka/cluster.properties" >"$CONFIG"
  if [[ ! -f "$STATE/$KAFKA_DATA_NAME/meta.properties" ]]; then
    # Every node formats with the same cluster id (a base64url id may start with '-': `--name=value`).
    java -Xmx256m "${KAFKA_LOG_OPTS[@]}" -cp "$KAFKA_LIBS/*" \
      kafka.tools.StorageTool format --cluster-id="$(<"$CLUSTER_ID_FILE")" --config="$CONFIG" --ignore-formatted \
      >>"$(log_file "$COMPONENT")" 2>&1 || { log_tail "$COMPONENT"; die "$COMPONENT: storage format failed"; }
  fi
}

launch() {
  start_daemon "$COMPONENT" java -Xms128m -Xmx384m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 "$MARKER" "$KAFKA_VERSION_OPT" \
    -Djava.awt.headless=true "${KAFKA_LOG_OPTS[@]}" -cp "$KAFKA_LIBS/*" kafka.Kafka "$CONFIG"
}

# A node's health check (infra/health.ts) needs a quorum, so the nodes start together, each in a subshell.
each_node() {
  local action="$1" n rc=0
  declare -A job
  for ((n = 1; n <= KAFKA_CLUSTER_SIZE; n++)); do
    ( select_node "$n"; lock "$COMPONENT"; "$action" ) &
    job[$n]=$!
  done
  for ((n = 1; n <= KAFKA_CLUSTER_SIZE; n++)); do wait "${job[$n]}" || rc=1; done
  return "$rc"
}

stop_node() { stop_daemon "$COMPONENT" "$MARKER" "$STOP_GRACE" "$STOP_SIGNAL"; }
status_node() {
  local pid
  if pid="$(live_pid "$COMPONENT" "$MARKER")" && health_once "$COMPONENT" >/dev/null 2>&1; then echo "$COMPONENT: up (pid $pid)"
  else echo "$COMPONENT: down"; return 1; fi
}

case "${1:-}" in
  up)
    # The classpath once, before the nodes race for it; the cluster id once for all of them.
    kafka_fetch_classpath
    [[ -f "$CLUSTER_ID_FILE" ]] || node -e "console.log(require('crypto').randomBytes(16).toString('base64url'))" >"$CLUSTER_ID_FILE"
    each_node ensure_up || die "kafka-cluster: not every node became healthy"
    say "kafka-cluster: $KAFKA_CLUSTER_SIZE nodes up ($KAFKA_CLUSTER_BROKERS)" ;;
  down) each_node stop_node ;;
  status) each_node status_node ;;
  kill)
    select_node "${2:-}"
    pid="$(live_pid "$COMPONENT" "$MARKER")" || die "$COMPONENT is not running"
    kill -KILL "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    rm -f "$(pid_file "$COMPONENT")"
    say "$COMPONENT: SIGKILL (pid $pid)" ;;
  start)
    # One node joining the two that run: its health check has a quorum already.
    select_node "${2:-}"; lock "$COMPONENT"; ensure_up ;;
  *) echo "usage: $0 up|down|status | kill <n> | start <n>" >&2; exit 2 ;;
esac
