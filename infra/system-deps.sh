#!/usr/bin/env bash
# Optional system packages, installed with apt-get where missing: Chromium (the Web UI test),
# bubblewrap and Docker (the isolated sandbox backends), git (the mcp-server-git tests).
# Rath runs without them; each test that needs one skips and names this script.
#   bash infra/system-deps.sh             install what is missing (as root, or through sudo)
#   bash infra/system-deps.sh --if-able   the same, but never fails: infra/setup.sh calls it so
#                                         (set RATH_SYSTEM_DEPS=0 to skip it there)
set -euo pipefail
best_effort=0
[ "${1:-}" = "--if-able" ] && best_effort=1
give_up() {
  echo "system-deps: $1" >&2
  if [ "$best_effort" -eq 1 ]; then
    echo "system-deps: the tests that need them will skip; run 'sudo bash infra/system-deps.sh' to enable them" >&2
    exit 0
  fi
  exit 1
}
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v bwrap >/dev/null || missing+=(bubblewrap)
command -v dockerd >/dev/null || missing+=(docker.io)
command -v git >/dev/null || missing+=(git)
if [ ${#missing[@]} -eq 0 ]; then
  echo "system-deps: ok (chromium, bubblewrap, docker.io and git are installed)"
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  give_up "not installing ${missing[*]}: that needs root or passwordless sudo"
fi
command -v apt-get >/dev/null || give_up "not installing ${missing[*]}: no apt-get here"
echo "system-deps: installing ${missing[*]} with apt-get (a minute or two)"
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get update -qq ||
  ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
  give_up "apt-get could not install ${missing[*]}"
fi
echo "system-deps: installed ${missing[*]}"
