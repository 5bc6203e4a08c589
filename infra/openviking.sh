#!/usr/bin/env bash
# The OpenViking server (AGPL-3.0, about 1.3 GB, about 2 minutes) in a venv of its own,
# .venv-openviking, for the `openviking` memory backend's tests and example. The backend
# itself needs only its client (`pip install 'rath[openviking]'`, part of the dev extra).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv-openviking/bin/openviking-server ]; then
  echo "openviking: installing openviking-server 0.5.2 into .venv-openviking (about 2 minutes)"
  log=$(mktemp)
  if ! { python3 -m venv .venv-openviking &&
    .venv-openviking/bin/python -m pip install --quiet --upgrade pip &&
    .venv-openviking/bin/python -m pip install --quiet 'openviking==0.5.2'; } >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "openviking: install failed (full log: $log)" >&2
    exit 1
  fi
  rm -f "$log"
fi
echo "openviking: ok ($(.venv-openviking/bin/openviking-server --version 2>/dev/null | tail -1))"
