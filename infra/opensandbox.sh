#!/usr/bin/env bash
# The OpenSandbox server (opensandbox-server, Apache-2.0, about 270 MB) in a venv of its own,
# .venv-opensandbox, for the `opensandbox` sandbox backend's tests and example. The backend
# itself needs only the SDK (`pip install 'rath[opensandbox]'`, part of the dev extra).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv-opensandbox/bin/opensandbox-server ]; then
  echo "opensandbox: installing opensandbox-server 1.1.1 into .venv-opensandbox"
  log=$(mktemp)
  if ! { python3 -m venv .venv-opensandbox &&
    .venv-opensandbox/bin/python -m pip install --quiet --upgrade pip &&
    .venv-opensandbox/bin/python -m pip install --quiet 'opensandbox-server==1.1.1'; } >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "opensandbox: install failed (full log: $log)" >&2
    exit 1
  fi
  rm -f "$log"
fi
echo "opensandbox: ok (opensandbox-server 1.1.1)"
