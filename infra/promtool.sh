#!/usr/bin/env bash
# Prometheus's promtool for the alert rules suite (test/integration/ops/promtool.test.ts): `promtool check rules`
# parses ops/prometheus/*.yml as Prometheus would load them, `promtool test rules` fires them on series the test
# writes. Taken from Debian's prometheus package without installing it (no service, no user, no root):
# `apt-get download` fetches the .deb and only usr/bin/promtool is extracted into .infra/promtool/. Idempotent;
# prints promtool's path. PROMTOOL=<path> uses one already installed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if [[ -n "${PROMTOOL:-}" ]]; then [[ -x "$PROMTOOL" ]] || die "PROMTOOL=$PROMTOOL is not executable"; echo "$PROMTOOL"; exit 0; fi
DIR="$INFRA_DIR/promtool"
BIN="$DIR/usr/bin/promtool"
if [[ ! -x "$BIN" ]]; then
  command -v apt-get >/dev/null || die "promtool: no apt-get here; install Prometheus's promtool and set PROMTOOL=<path>"
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
  (cd "$WORK" && apt-get download prometheus >&2) \
    || die "promtool: apt-get download prometheus failed (run apt-get update as root once, or set PROMTOOL=<path>)"
  mkdir -p "$DIR"
  dpkg-deb --fsys-tarfile "$WORK"/prometheus_*.deb | tar -x -C "$DIR" ./usr/bin/promtool
  [[ -x "$BIN" ]] || die "promtool: not found in the prometheus package"
  say "promtool: $("$BIN" --version 2>&1 | head -1)"
fi
echo "$BIN"
