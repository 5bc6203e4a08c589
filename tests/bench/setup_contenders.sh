#!/usr/bin/env bash
# Create .venv-bench: Rath plus P5's contender that is not a Rath dependency, the OpenAI Agents
# SDK on Temporal (temporalio[openai-agents]). Every package .venv has is pinned to .venv's
# version, so both venvs measure the same temporalio, openai and pydantic. Idempotent.
# Then: .venv-bench/bin/python tests/bench/run.py p5
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -x .venv/bin/python ]; then
  echo "setup_contenders: no .venv here: run 'bash infra/setup.sh' first" >&2
  exit 1
fi
if [ ! -x .venv-bench/bin/python ]; then
  python3 -m venv .venv-bench
fi
pins=.venv-bench/pins.txt
.venv/bin/python -m pip freeze --exclude-editable --disable-pip-version-check | grep -v '^rath[= @]' >"$pins"
echo "setup_contenders: installing Rath and temporalio[openai-agents] into .venv-bench (pinned to .venv's versions)"
# The pip config of some machines names index folders that do not exist: drop those warnings.
.venv-bench/bin/python -m pip install --quiet --constraint "$pins" -e . 'temporalio[openai-agents]' \
  --config-settings editable_mode=strict 2>&1 | { grep -v "^WARNING: Location '.*' is ignored" || true; }
.venv-bench/bin/python -c 'import agents, temporalio.contrib.openai_agents as m, temporalio; print("setup_contenders: ok (temporalio", temporalio.__version__ + ", openai-agents", __import__("importlib.metadata").metadata.version("openai-agents") + ")")'
