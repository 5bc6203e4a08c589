#!/bin/sh
# One-shot (temporalio/admin-tools): wait for the server, create the namespace and Rath's
# search attributes (the list is rath.runtime.devserver.DEFAULT_SEARCH_ATTRIBUTES).
# Idempotent: what exists is left alone.
set -eu
NS=${TEMPORAL_NAMESPACE:-default}
# Retry "$@" every 2 s, 60 times at most (the server starts; a new namespace propagates).
retry() {
  tries=0
  until "$@"; do
    tries=$((tries + 1))
    [ "$tries" -lt 60 ] || { echo "giving up on: $* (Temporal at $TEMPORAL_ADDRESS)"; return 1; }
    sleep 2
  done
}
retry temporal operator cluster health >/dev/null
temporal operator namespace describe -n "$NS" >/dev/null 2>&1 \
  || temporal operator namespace create -n "$NS" --retention "${TEMPORAL_RETENTION:-168h}"
retry temporal operator search-attribute list -n "$NS" >/dev/null 2>&1
existing=$(temporal operator search-attribute list -n "$NS")
for name in RathSessionId RathRootSessionId RathAgent; do
  if echo "$existing" | grep -qw "$name"; then
    echo "search attribute $name exists"
  else
    temporal operator search-attribute create -n "$NS" --name "$name" --type Keyword
  fi
done
echo "namespace $NS and Rath's search attributes: ok"
