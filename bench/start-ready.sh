#!/usr/bin/env bash
# One `faultline start` of the embedded default as a whole process, for the release's start-up A/B
# (bench/results/release-start.md): launches `<node> <bin/faultline.js> start` on DATA_DIR, waits for its
# start-up list ("Ctrl-C stops it"), sends SIGTERM, and returns once it and its embedded PostgreSQL have
# exited. Time it from outside, e.g. `/usr/bin/time -v bench/start-ready.sh node bin/faultline.js`: wall time
# is launch to ready plus the drain, the peak RSS is the faultline process's. Ports and DATA_DIR come from the
# environment (defaults: a fixed loopback set and .data/bench-start).
# Usage: bench/start-ready.sh <node> <path of bin/faultline.js>
set -euo pipefail
node="$1" bin="$2"
export DATA_DIR="${DATA_DIR:-$(pwd)/.data/bench-start}" PORT="${PORT:-18441}" EMBEDDED_PG_PORT="${EMBEDDED_PG_PORT:-18442}"
export DNP3_PORT="${DNP3_PORT:-18443}" SIMULATE=0 DATABASE_URL='' KAFKA_BROKERS='' SQS_QUEUE_URL='' HOST='' LOG_LEVEL=warn
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"$node" "$bin" start >"$out" 2>&1 &
pid=$!
until grep -q 'Ctrl-C stops it' "$out"; do
  kill -0 "$pid" 2>/dev/null || { cat "$out" >&2; exit 1; }
  sleep 0.05
done
kill -TERM "$pid"
wait "$pid" || { echo "faultline exited $? on SIGTERM" >&2; cat "$out" >&2; exit 1; }
# The embedded PostgreSQL stops after it; the next start must not find it still running.
while [ -f "$DATA_DIR/postgres/postmaster.pid" ]; do sleep 0.05; done
