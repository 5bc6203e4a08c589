#!/bin/sh
# One-shot (minio/mc): the bucket Rath's store uses, and a user for the workers and clients
# that can read and write it (the root credentials stay with MinIO). Idempotent.
set -eu
: "${MINIO_ROOT_USER:?}" "${MINIO_ROOT_PASSWORD:?}" "${RATH_S3_ACCESS_KEY_ID:?}" "${RATH_S3_SECRET_ACCESS_KEY:?}"
tries=0
until mc alias set rath http://minio:9000 "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" >/dev/null 2>&1; do
  tries=$((tries + 1))
  [ "$tries" -lt 60 ] || { echo "MinIO at http://minio:9000 did not answer"; exit 1; }
  sleep 2
done
mc mb --ignore-existing "rath/${RATH_BUCKET:-rath}"
mc admin user add rath "$RATH_S3_ACCESS_KEY_ID" "$RATH_S3_SECRET_ACCESS_KEY"
mc admin policy attach rath readwrite --user "$RATH_S3_ACCESS_KEY_ID" 2>/dev/null \
  || echo "policy readwrite already attached"
echo "bucket ${RATH_BUCKET:-rath} and user $RATH_S3_ACCESS_KEY_ID: ok"
