#!/usr/bin/env bash
# Stop every server infra/up.sh started (SIGTERM, or SIGINT for postgres' fast shutdown; SIGKILL after a
# grace period). Data in .infra/ is kept: `rm -rf .infra/<name>` afterwards resets one server.
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
load_endpoints

COMPONENTS=(registry sqs kafka kafka-cluster postgres) # the cluster's script stops only nodes it started
declare -A job
for c in "${COMPONENTS[@]}"; do
  bash "$INFRA_SRC/$c.sh" down &
  job[$c]=$!
done
rc=0
for c in "${COMPONENTS[@]}"; do
  wait "${job[$c]}" || { say "$c: stop failed"; rc=1; }
done
((rc == 0)) && say "all stopped"
exit "$rc"
