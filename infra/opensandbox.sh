#!/usr/bin/env bash
# The OpenSandbox server (opensandbox-server, Apache-2.0, about 270 MB) in a venv of its own,
# .venv-opensandbox, for the `opensandbox` sandbox backend's tests and example. The backend
# itself needs only the SDK (`pip install 'rath[opensandbox]'`, part of the dev extra).
set -euo pipefail
cd "$(dirname "$0")/.."
bash infra/server-venv.sh .venv-opensandbox opensandbox-server 'opensandbox-server==1.1.1'
