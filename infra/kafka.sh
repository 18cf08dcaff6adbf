#!/usr/bin/env bash
# Apache Kafka (Maven Central jars, no distribution tarball), one KRaft node on loopback. KAFKA_VERSION picks
# the version (default 3.9.1; infra/lib.sh kafka_select_version).
# Usage: infra/kafka.sh up|down|restart|status
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
load_endpoints
kafka_select_version

COMPONENT=kafka
HOST="$KAFKA_HOST"
PORT="$KAFKA_PORT"
STATE="$STATE_DIR/kafka"
DATA_DIR="$STATE/$KAFKA_DATA_NAME"
CONFIG="$STATE/server.properties"
MARKER="-Dfaultline.infra=kafka"
START_TIMEOUT=90
STOP_GRACE=30 # controlled shutdown takes a few seconds
STOP_SIGNAL=TERM

prepare() {
  require_java; require_mvn
  kafka_fetch_classpath
  kafka_stop_other_version
  mkdir -p "$DATA_DIR"
  sed -e "s|@KAFKA_HOST@|$KAFKA_HOST|g" -e "s|@KAFKA_PORT@|$KAFKA_PORT|g" \
      -e "s|@KAFKA_CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" -e "s|@DATA_DIR@|$DATA_DIR|g" \
      "$INFRA_SRC/kafka/server.properties" >"$CONFIG"
  # Format once. The cluster id is kept so a re-format of the same dir (after a crash mid-format) agrees;
  # a fresh cluster is `infra/kafka.sh down && rm -rf .infra/kafka/data .infra/kafka/cluster-id`.
  if [[ ! -f "$DATA_DIR/meta.properties" ]]; then
    [[ -f "$STATE/cluster-id" ]] \
      || node -e "console.log(require('crypto').randomBytes(16).toString('base64url'))" >"$STATE/cluster-id"
    say "kafka: formatting storage (cluster id $(<"$STATE/cluster-id"))"
    format_storage "$CONFIG" "$(<"$STATE/cluster-id")" >>"$(log_file kafka)" 2>&1 \
      || { log_tail kafka; die "kafka: storage format failed"; }
  fi
}

# format_storage <server.properties> <cluster id>. A base64url id may begin with '-' (1 in 64), which the tool
# would read as an option in the two-word form `-t ID`: every generated value is passed as `--name=value`.
format_storage() {
  java -Xmx256m "${KAFKA_LOG_OPTS[@]}" -cp "$KAFKA_LIBS/*" \
    kafka.tools.StorageTool format --cluster-id="$2" --config="$1" --ignore-formatted
}

launch() {
  start_daemon kafka java -Xms256m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 "$MARKER" "$KAFKA_VERSION_OPT" \
    -Djava.awt.headless=true "${KAFKA_LOG_OPTS[@]}" -cp "$KAFKA_LIBS/*" kafka.Kafka "$CONFIG"
}

# `infra/kafka.sh format <config> <cluster id>`: the format step alone (test/integration/infra/kafka-format.test.ts).
if [[ "${1:-}" == format ]]; then
  [[ -f "$KAFKA_LIBS/.complete" ]] || die "kafka: classpath missing, run infra/kafka.sh up first"
  format_storage "$2" "$3"
  exit
fi

component_main "$@"
