# shellcheck shell=bash
# Shared helpers for the infra/ scripts. Source it; don't run it.
# Everything a server leaves behind lives in .infra/: logs/<name>.log, run/<name>.pid, <name>/ data and
# downloaded classpaths. `rm -rf .infra/<name>` after `infra/down.sh` resets one server.

INFRA_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$INFRA_SRC")"
INFRA_DIR="$ROOT/.infra"
# INFRA_STATE_DIR (default .infra) holds what belongs to one set of running servers: logs, pid files, data.
# A second set in the same checkout (another INFRA_PORT_OFFSET) needs its own, or its scripts would take the
# first set's servers for theirs; downloads (classpaths, runtimes) stay shared under .infra.
STATE_DIR="${INFRA_STATE_DIR:-$INFRA_DIR}"
LOG_DIR="$STATE_DIR/logs"
RUN_DIR="$STATE_DIR/run"
mkdir -p "$LOG_DIR" "$RUN_DIR"

say() { printf '[infra %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# Ports and names come from infra/endpoints.ts only. Loading them costs a Node start, so up.sh loads them
# once and exports them to the component scripts it runs.
load_endpoints() {
  [[ -n "${FAULTLINE_ENDPOINTS_LOADED:-}" ]] && return 0
  local line
  while IFS= read -r line; do
    [[ "$line" == *=* ]] && export "${line%%=*}=${line#*=}"
  done < <(cd "$ROOT" && node --import tsx infra/endpoints.ts --shell)
  [[ -n "${KAFKA_PORT:-}" ]] || die "could not read ports from infra/endpoints.ts"
  export FAULTLINE_ENDPOINTS_LOADED=1
}

pid_file() { echo "$RUN_DIR/$1.pid"; }
log_file() { echo "$LOG_DIR/$1.log"; }

# The pid recorded for <name>, if that process is alive and still is ours: its command line must contain
# <marker> (a pid file outlives a reboot, and the number may since belong to something else).
live_pid() {
  local name="$1" marker="$2" file pid
  file="$(pid_file "$name")"
  [[ -f "$file" ]] || return 1
  pid="$(<"$file")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$marker" || return 1
  echo "$pid"
}

# Start a long-running server detached from this shell: own session (so a Ctrl-C or the test runner's
# exit doesn't reach it), stdin closed and stdout/stderr to its log only (an inherited pipe would keep
# whoever runs up.sh waiting for EOF until the server dies).
start_daemon() {
  local name="$1"; shift
  local log; log="$(log_file "$name")"
  printf '\n===== %s start: %s\n' "$(date -Is)" "$*" >>"$log"
  LOG_OFFSET="$(stat -c %s "$log")"
  # Run from the server's own state dir, so anything it writes relative to its cwd stays in .infra/.
  mkdir -p "$STATE_DIR/$name"
  cd "$STATE_DIR/$name" || return 1
  # Close the component lock's fd in the child, or the server would hold the lock for its whole life.
  if [[ -n "${LOCK_FD:-}" ]]; then
    setsid "$@" </dev/null >>"$log" 2>&1 {LOCK_FD}>&- &
  else
    setsid "$@" </dev/null >>"$log" 2>&1 &
  fi
  echo $! >"$(pid_file "$name")"
  cd "$ROOT" || return 1
}

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# Fail early if something that isn't ours holds the port: the health check would otherwise talk to it.
port_free_or_die() {
  local name="$1" host="$2" port="$3"
  if port_open "$host" "$port"; then die "$name: $host:$port is already in use by another process"; fi
}

# True when the log written since the last start_daemon matches FATAL_LOG_PATTERN: some servers (ElasticMQ
# on a failed bind) log a fatal error and keep running, and would otherwise cost the whole timeout.
logged_fatal() {
  [[ -n "${FATAL_LOG_PATTERN:-}" && -n "${LOG_OFFSET:-}" ]] || return 1
  tail -c +"$((LOG_OFFSET + 1))" "$(log_file "$1")" | grep -qE -- "$FATAL_LOG_PATTERN"
}

# wait_healthy <name> <pid> <timeout s> <host> <port> <component>: the port opens, then infra/health.ts
# (a real client call) succeeds. Gives up at once if the process dies.
wait_healthy() {
  local name="$1" pid="$2" timeout="$3" host="$4" port="$5" component="$6"
  local deadline=$((SECONDS + timeout))
  until port_open "$host" "$port"; do
    kill -0 "$pid" 2>/dev/null || { say "$name: process $pid exited during start-up"; return 1; }
    if logged_fatal "$name"; then say "$name: fatal error in the log during start-up"; return 1; fi
    ((SECONDS < deadline)) || { say "$name: port $port not open after ${timeout}s"; return 1; }
    sleep 0.3
  done
  local left=$((deadline - SECONDS)); ((left > 5)) || left=5
  (cd "$ROOT" && node --import tsx infra/health.ts "$component" --wait "$left" --pid "$pid")
}

health_once() { (cd "$ROOT" && node --import tsx infra/health.ts "$1"); }

# SIGTERM (or the given signal), then SIGKILL after <grace> seconds.
stop_pid() {
  local name="$1" pid="$2" grace="${3:-20}" sig="${4:-TERM}"
  kill -"$sig" "$pid" 2>/dev/null || return 0
  local deadline=$((SECONDS + grace))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      say "$name: still running after ${grace}s, sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.2
  done
}

# stop_daemon <name> <marker> [grace] [signal]
stop_daemon() {
  local name="$1" marker="$2" pid
  if pid="$(live_pid "$name" "$marker")"; then
    say "$name: stopping pid $pid"
    stop_pid "$name" "$pid" "${3:-20}" "${4:-TERM}"
  fi
  rm -f "$(pid_file "$name")"
}

log_tail() {
  local log; log="$(log_file "$1")"
  [[ -f "$log" ]] || return 0
  echo "----- last ${2:-40} lines of $log" >&2
  tail -n "${2:-40}" "$log" >&2
  echo "-----" >&2
}

# One component up/down at a time (up.sh and a developer may race), and one Maven at a time: parallel
# Maven runs writing the same ~/.m2 can corrupt a half-downloaded artifact.
lock() { exec {LOCK_FD}>"$RUN_DIR/$1.lock"; flock "$LOCK_FD"; }
mvn_locked() {
  (
    exec {fd}>"$RUN_DIR/maven.lock"
    flock "$fd"
    mvn -B -q -Dstyle.color=never "$@" >>"$(log_file maven)" 2>&1 || { log_tail maven; exit 1; }
  )
}

# fetch_classpath <name> <pom>: copy a pom's runtime dependencies into .infra/<name>/libs once. The marker
# holds the pom's hash, so editing the pom (a version bump) fetches again; ~/.m2 caches the jars.
fetch_classpath() {
  local name="$1" pom="$2" libs="$INFRA_DIR/$1/libs" hash
  hash="$(sha256sum "$pom" | cut -d' ' -f1)"
  [[ -f "$libs/.complete" && "$(<"$libs/.complete")" == "$hash" ]] && return 0
  say "$name: fetching classpath with Maven (first run only)"
  rm -rf "$libs"
  mvn_locked -f "$pom" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$libs" \
    || die "$name: mvn dependency:copy-dependencies failed"
  echo "$hash" >"$libs/.complete"
}

# The Kafka broker that infra/kafka.sh and infra/kafka-cluster.sh run: KAFKA_VERSION, default 3.9.1 (the
# version every suite runs on; docs/operations.md "Supported versions" says what else was run). 4.x is
# KRaft-only and logs through log4j2 instead of reload4j, so each major line has its own pom and log config.
# Each version gets its own classpath (.infra/kafka[-<version>]/libs) and data dir: Kafka can't open metadata
# written by a newer version, so versions never share one.
KAFKA_DEFAULT_VERSION=3.9.1
kafka_select_version() {
  KAFKA_VERSION="${KAFKA_VERSION:-$KAFKA_DEFAULT_VERSION}"
  [[ "$KAFKA_VERSION" =~ ^([34])\.[0-9]+\.[0-9]+$ ]] || die "KAFKA_VERSION must be 3.x.y or 4.x.y, got '$KAFKA_VERSION'"
  local major="${BASH_REMATCH[1]}" name=kafka
  [[ "$KAFKA_VERSION" == "$KAFKA_DEFAULT_VERSION" ]] || name="kafka-$KAFKA_VERSION"
  KAFKA_LIBS="$INFRA_DIR/$name/libs"
  KAFKA_POM_TEMPLATE="$INFRA_SRC/kafka/pom-$major.xml"
  KAFKA_POM="$INFRA_DIR/$name/pom.xml"
  KAFKA_DATA_NAME=data
  [[ "$KAFKA_VERSION" == "$KAFKA_DEFAULT_VERSION" ]] || KAFKA_DATA_NAME="data-$KAFKA_VERSION"
  if ((major == 3)); then
    KAFKA_LOG_OPTS=("-Dlog4j.configuration=file:$INFRA_SRC/kafka/log4j.properties")
  else
    KAFKA_LOG_OPTS=("-Dlog4j2.configurationFile=$INFRA_SRC/kafka/log4j2.properties")
  fi
  # On every node's command line, so a broker of another version is told apart (kafka_stop_other_version).
  KAFKA_VERSION_OPT="-Dfaultline.kafka.version=$KAFKA_VERSION"
}

# The classpath of KAFKA_VERSION, once (the pom is rendered from its major line's template).
kafka_fetch_classpath() {
  mkdir -p "$(dirname "$KAFKA_POM")"
  sed -e "s|@KAFKA_VERSION@|$KAFKA_VERSION|g" "$KAFKA_POM_TEMPLATE" >"$KAFKA_POM.tmp"
  cmp -s "$KAFKA_POM.tmp" "$KAFKA_POM" 2>/dev/null && rm -f "$KAFKA_POM.tmp" || mv "$KAFKA_POM.tmp" "$KAFKA_POM"
  fetch_classpath "$(basename "$(dirname "$KAFKA_POM")")" "$KAFKA_POM"
}

# A broker of ours that runs another KAFKA_VERSION than the one asked for is stopped, so `up` after a
# switch starts the asked one instead of reporting the old one healthy.
kafka_stop_other_version() {
  local pid
  pid="$(live_pid "$COMPONENT" "$MARKER")" || return 0
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$KAFKA_VERSION_OPT " && return 0
  say "$COMPONENT: pid $pid runs another Kafka version, stopping it for $KAFKA_VERSION"
  stop_daemon "$COMPONENT" "$MARKER" "$STOP_GRACE" "$STOP_SIGNAL"
}

# The JVM's default max heap is 1/4 of RAM (6 GB here); every server gets an explicit -Xmx instead.
require_java() { command -v java >/dev/null || die "java not found (Java 17 is required)"; }
require_mvn() { command -v mvn >/dev/null || die "mvn not found (Maven is required)"; }

# A component script sets COMPONENT, MARKER (a string unique to its command line), HOST, PORT,
# START_TIMEOUT, STOP_GRACE, STOP_SIGNAL and defines prepare (downloads, config; runs on every up and must
# be cheap when nothing changed) and launch (start_daemon ...). Then it calls component_main "$@".
ensure_up() {
  prepare
  local pid
  if pid="$(live_pid "$COMPONENT" "$MARKER")"; then
    # Ours and alive: healthy means leave it; a process that never becomes healthy is replaced.
    if wait_healthy "$COMPONENT" "$pid" "$START_TIMEOUT" "$HOST" "$PORT" "$COMPONENT" >/dev/null 2>&1; then
      say "$COMPONENT: already running (pid $pid)"; return 0
    fi
    say "$COMPONENT: pid $pid is not healthy, restarting"
    stop_daemon "$COMPONENT" "$MARKER" "$STOP_GRACE" "$STOP_SIGNAL"
  elif [[ -f "$(pid_file "$COMPONENT")" ]]; then
    say "$COMPONENT: stale pid file, starting afresh"
    rm -f "$(pid_file "$COMPONENT")"
  fi
  port_free_or_die "$COMPONENT" "$HOST" "$PORT"
  local t0=$SECONDS
  launch
  pid="$(<"$(pid_file "$COMPONENT")")"
  if ! wait_healthy "$COMPONENT" "$pid" "$START_TIMEOUT" "$HOST" "$PORT" "$COMPONENT"; then
    say "$COMPONENT: failed to become healthy"
    log_tail "$COMPONENT"
    # Leave nothing half-started behind: the next up starts from a clean slate.
    stop_daemon "$COMPONENT" "$MARKER" "$STOP_GRACE" "$STOP_SIGNAL" >/dev/null 2>&1
    return 1
  fi
  say "$COMPONENT: healthy on $HOST:$PORT after $((SECONDS - t0))s (pid $pid)"
}

component_main() {
  local cmd="${1:-}" pid
  case "$cmd" in
    up) load_endpoints; lock "$COMPONENT"; ensure_up ;;
    down) load_endpoints; lock "$COMPONENT"; stop_daemon "$COMPONENT" "$MARKER" "$STOP_GRACE" "$STOP_SIGNAL" ;;
    restart) load_endpoints; lock "$COMPONENT"; stop_daemon "$COMPONENT" "$MARKER" "$STOP_GRACE" "$STOP_SIGNAL"; ensure_up ;;
    status)
      load_endpoints
      if pid="$(live_pid "$COMPONENT" "$MARKER")" && health_once "$COMPONENT" >/dev/null 2>&1; then
        echo "$COMPONENT: up (pid $pid)"
      else
        echo "$COMPONENT: down"; return 1
      fi ;;
    *) echo "usage: $0 up|down|restart|status" >&2; return 2 ;;
  esac
}
