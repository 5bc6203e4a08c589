#!/usr/bin/env bash
# Install a third-party server into a venv of its own, once: server-venv.sh VENV COMMAND SPEC.
# Used by openviking.sh and opensandbox.sh; the pip log is shown only when the install fails.
set -euo pipefail
venv=$1 command=$2 spec=$3
if [ ! -x "$venv/bin/$command" ]; then
  echo "$command: installing $spec into $venv"
  log=$(mktemp)
  if ! { python3 -m venv "$venv" &&
    "$venv/bin/python" -m pip install --quiet --upgrade pip &&
    "$venv/bin/python" -m pip install --quiet "$spec"; } >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "$command: install failed (full log: $log)" >&2
    exit 1
  fi
  rm -f "$log"
fi
echo "$command: ok ($spec)"
