#!/usr/bin/env bash
# The IEC 104 controlling station for the interop test: c104 from PyPI (Python over lib60870-C, GPL: run as a
# test peer only) in a cached venv under .infra/ (idempotent). Prints the venv's python. 2.1.1, not 2.2.x: the
# mbedtls 3.6.3+ that 2.2 bundles refuses to verify a server without a host name, which c104 cannot set.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
venv="$root/.infra/iec104-venv"
if ! "$venv/bin/python" -c 'import importlib.metadata as m; assert m.version("c104") == "2.1.1"' 2>/dev/null; then
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet 'c104==2.1.1' >&2
fi
echo "$venv/bin/python"
