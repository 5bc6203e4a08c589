#!/usr/bin/env bash
# The OpenViking server (AGPL-3.0, about 1.3 GB, about 2 minutes) in a venv of its own,
# .venv-openviking, for the `openviking` memory backend's tests and example. The backend
# itself needs only its client (`pip install 'rath[openviking]'`, part of the dev extra).
set -euo pipefail
cd "$(dirname "$0")/.."
bash infra/server-venv.sh .venv-openviking openviking-server 'openviking==0.5.2'
