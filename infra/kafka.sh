#!/usr/bin/env bash
# Apache Kafka 3.9 (Maven Central jars, no distribution tarball), one KRaft node on loopback.
# Usage: infra/kafka.sh up|down|restart|status
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
load_endpoints

COMPONENT=kafka
HOST="$KAFKA_HOST"
PORT="$KAFKA_PORT"
HOME_DIR="$INFRA_DIR/kafka"
DATA_DIR="$HOME_DIR/data"
CONFIG="$HOME_DIR/server.properties"
MARKER="-Dfaultline.infra=kafka"
START_TIMEOUT=90
STOP_GRACE=30 # controlled shutdown takes a few seconds
STOP_SIGNAL=TERM

prepare() {
  require_java; require_mvn
  fetch_classpath kafka "$INFRA_SRC/kafka/pom.xml"
  mkdir -p "$DATA_DIR"
  sed -e "s|@KAFKA_HOST@|$KAFKA_HOST|g" -e "s|@KAFKA_PORT@|$KAFKA_PORT|g" \
      -e "s|@KAFKA_CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" -e "s|@DATA_DIR@|$DATA_DIR|g" \
      "$INFRA_SRC/kafka/server.properties" >"$CONFIG"
  # Format once. The cluster id is kept so a re-format of the same dir (after a crash mid-format) agrees;
  # a fresh cluster is `infra/kafka.sh down && rm -rf .infra/kafka/data .infra/kafka/cluster-id`.
  if [[ ! -f "$DATA_DIR/meta.properties" ]]; then
    [[ -f "$HOME_DIR/cluster-id" ]] \
      || node -e "console.log(require('crypto').randomBytes(16).toString('base64url'))" >"$HOME_DIR/cluster-id"
    say "kafka: formatting storage (cluster id $(<"$HOME_DIR/cluster-id"))"
    java -Xmx256m -Dlog4j.configuration="file:$INFRA_SRC/kafka/log4j.properties" -cp "$HOME_DIR/libs/*" \
      kafka.tools.StorageTool format -t "$(<"$HOME_DIR/cluster-id")" -c "$CONFIG" --ignore-formatted \
      >>"$(log_file kafka)" 2>&1 || { log_tail kafka; die "kafka: storage format failed"; }
  fi
}

launch() {
  start_daemon kafka java -Xms256m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 "$MARKER" \
    -Djava.awt.headless=true -Dlog4j.configuration="file:$INFRA_SRC/kafka/log4j.properties" \
    -cp "$HOME_DIR/libs/*" kafka.Kafka "$CONFIG"
}

component_main "$@"
