#!/usr/bin/env bash
# Debian's chromium for the portal's browser tests (test/integration/portal/). Idempotent: nothing to do when
# /usr/bin/chromium exists. `npx playwright install` downloads browsers from a CDN that CI may not reach and
# that builds against Ubuntu; Debian's package is what a Debian control-room machine runs, and playwright-core
# drives it through executablePath. Needs root (or an existing install).
set -euo pipefail
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ -x "$CHROMIUM" ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "infra/chromium.sh: $CHROMIUM is missing; install it as root: apt-get install -y --no-install-recommends chromium" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
test -x "$CHROMIUM"
echo "infra/chromium.sh: installed $("$CHROMIUM" --version)"
