#!/usr/bin/env bash
# The opendnp3 master for the interop test: yadnp3 from PyPI in a cached venv under .infra/ (idempotent).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
venv="$root/.infra/dnp3-venv"
if ! "$venv/bin/python" -c 'import opendnp3' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet 'yadnp3==3.2.1.4'
fi
echo "$venv/bin/python"
