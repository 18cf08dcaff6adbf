#!/usr/bin/env bash
# ElasticMQ (SQS-compatible, in memory) from Maven Central jars, on loopback, with the app's queue and its
# dead-letter queue pre-created from infra/sqs/elasticmq.conf.
# Usage: infra/sqs.sh up|down|restart|status
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
load_endpoints

COMPONENT=sqs
HOST="$SQS_HOST"
PORT="$SQS_PORT"
HOME_DIR="$INFRA_DIR/sqs"
MARKER="-Dfaultline.infra=sqs"
START_TIMEOUT=60
STOP_GRACE=15
STOP_SIGNAL=TERM
# On a failed bind ElasticMQ logs this and keeps the JVM running; lib.sh gives up as soon as it appears.
FATAL_LOG_PATTERN='Uncaught exception in thread: main'

prepare() {
  require_java; require_mvn
  fetch_classpath sqs "$INFRA_SRC/sqs/pom.xml"
}

launch() {
  # elasticmq.conf reads SQS_HOST, SQS_PORT and SQS_ACCOUNT from the environment (exported by lib.sh).
  start_daemon sqs java -Xms32m -Xmx192m -XX:+UseSerialGC "$MARKER" \
    -Dconfig.file="$INFRA_SRC/sqs/elasticmq.conf" -cp "$HOME_DIR/libs/*" org.elasticmq.server.Main
}

component_main "$@"
