#!/usr/bin/env bash
# System packages the full test suite needs (CI runs this as root on a fresh Debian machine):
# Chromium for the Web UI screenshot test, bubblewrap and Docker for the isolated sandbox
# backends, git for the mcp-server-git tests. Tests that need one of these skip with a clear
# reason where it is missing.
set -euo pipefail
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v bwrap >/dev/null || missing+=(bubblewrap)
command -v dockerd >/dev/null || missing+=(docker.io)
command -v git >/dev/null || missing+=(git)
if [ ${#missing[@]} -eq 0 ]; then
  echo "ci-deps: ok (nothing to install)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ci-deps: need root to install ${missing[*]} (apt-get); skipping" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "ci-deps: installed ${missing[*]}"
