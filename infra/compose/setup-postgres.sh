#!/bin/sh
# One-shot (temporalio/admin-tools): create Temporal's two databases and bring their schemas
# to this image's version. Idempotent: later runs (and server upgrades) only apply updates.
set -eu
: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
tool() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "${DB_PORT:-5432}" "$@"; }
for db in temporal temporal_visibility; do
  case $db in temporal) dir=temporal ;; *) dir=visibility ;; esac
  tool --db "$db" create 2>/dev/null || echo "database $db exists"
  if ! tool --db "$db" update-schema -d "/etc/temporal/schema/postgresql/v12/$dir/versioned"; then
    tool --db "$db" setup-schema -v 0.0
    tool --db "$db" update-schema -d "/etc/temporal/schema/postgresql/v12/$dir/versioned"
  fi
done
echo "postgres schemas: ok"
