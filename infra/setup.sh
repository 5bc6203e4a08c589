#!/usr/bin/env bash
# Create .venv and install Rath with its development tools (idempotent), and the optional
# system packages some tests use when this shell may install them (infra/system-deps.sh;
# RATH_SYSTEM_DEPS=0 skips that step).
# The editable install is "strict" (a link tree) so type checkers resolve the
# rath.workflows / rath.activities / rath.worker mapping; re-run after adding modules.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${RATH_SYSTEM_DEPS:-1}" != 0 ]; then
  bash infra/system-deps.sh --if-able
fi
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# One install at a time: several shells (or a developer's tools) may run this at once.
exec 9>.venv/.setup.lock
flock 9
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]' --config-settings editable_mode=strict
echo "setup: ok ($(.venv/bin/python -c 'import rath, temporalio; print("temporalio", temporalio.__version__)'))"
