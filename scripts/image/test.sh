#!/usr/bin/env bash
# `npm run test:image` (and a stage of `npm test`): the Dockerfile, compose.yaml,
# deploy/kubernetes and deploy/haproxy built and run for real (test/image/run.ts). Sets up what it
# needs as the other stages do: podman (scripts/setup-podman.sh), the base image
# (scripts/image/local-base.sh, cached; BASE_IMAGE=node:24-bookworm-slim where a registry is
# reachable), HAProxy, and a throwaway PostgreSQL unless TEST_DATABASE_URL is set.
# Ends with "image: N passed, N failed"; exit status 0 only when every check passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
export NODE_OPTIONS="${NODE_OPTIONS:-} --no-warnings=ExperimentalWarning"

give_up() { echo "FAIL setup: $*"; echo "image: 0 passed, 1 failed"; exit 1; }

t0=$(date +%s)
engine=$(bash scripts/setup-podman.sh) || give_up "no container engine (scripts/setup-podman.sh)"
eval "$engine"
if [ -z "${BASE_IMAGE:-}" ]; then
  BASE_IMAGE=$(bash scripts/image/local-base.sh | tail -1) || give_up "no base image (scripts/image/local-base.sh)"
fi
export BASE_IMAGE
HAPROXY_PATH=$(bash scripts/setup-haproxy.sh | tail -1) || give_up "no HAProxy (scripts/setup-haproxy.sh)"
export HAPROXY_PATH
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  pg_env=$(bash scripts/setup-postgres.sh start) || give_up "no PostgreSQL (scripts/setup-postgres.sh)"
  eval "$pg_env"
  trap 'bash scripts/setup-postgres.sh stop "$PG_TEST_DIR" >/dev/null 2>&1 || true' EXIT
fi
echo "(setup: $(( $(date +%s) - t0 )) s; base $BASE_IMAGE)"
# In the background, so that a TERM (CI's timeout) reaches the runner, which removes its containers.
node --import tsx test/image/run.ts &
runner=$!
trap 'kill -TERM "$runner" 2>/dev/null' TERM INT
status=0
wait "$runner" || status=$?
if [ "$status" -gt 128 ] && kill -0 "$runner" 2>/dev/null; then status=0; wait "$runner" || status=$?; fi
exit "$status"
