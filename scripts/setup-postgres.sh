#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests of the PostgreSQL ledger (server/accounts).
#
#   eval "$(bash scripts/setup-postgres.sh start)"   # exports TEST_DATABASE_URL and PG_TEST_DIR
#   bash scripts/setup-postgres.sh stop "$PG_TEST_DIR"
#   bash scripts/setup-postgres.sh pause "$PG_TEST_DIR"    # the server stops (fast), the data stays
#   bash scripts/setup-postgres.sh resume "$PG_TEST_DIR"   # and starts again on the same port
#
# start: finds the PostgreSQL server binaries (on Debian as root, installs `postgresql` with
# apt-get when they are missing), runs initdb in a new temporary directory (as the `postgres`
# user when run as root, since initdb refuses root), and starts the server on a free loopback
# port with trust authentication (loopback only, the cluster lives for one test run). Prints
# shell `export` lines on stdout; everything else goes to stderr.
# stop: stops that cluster and deletes its directory.
set -euo pipefail

log() { echo "setup-postgres: $*" >&2; }

find_bindir() {
  if [ -n "${PG_BINDIR:-}" ] && [ -x "$PG_BINDIR/initdb" ]; then echo "$PG_BINDIR"; return 0; fi
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -V -r); do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
  done
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then dirname "$(command -v initdb)"; return 0; fi
  return 1
}

install_postgres() {
  if [ -f /etc/debian_version ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing postgresql with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q --no-install-recommends postgresql >&2
  else
    log "no PostgreSQL server binaries found and this is not Debian as root."
    log "Install PostgreSQL 13+ (Debian/Ubuntu: apt-get install postgresql), or set PG_BINDIR to the directory holding initdb and pg_ctl."
    exit 1
  fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Runs a command as the cluster owner: `postgres` (or a created system user) when we are root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u "$owner" -- "$@"
  else
    "$@"
  fi
}

# Starts the server of the cluster in $2 on port $3. fsync off: a throwaway cluster; the tests
# check logic, not the disk.
run_server() {
  as_owner "$1/pg_ctl" -D "$2/data" -l "$2/server.log" -w -t 30 \
    -o "-p $3 -k $2/sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >&2
}

start() {
  local bindir
  bindir=$(find_bindir) || { install_postgres; bindir=$(find_bindir) || { log "install finished but initdb was not found"; exit 1; }; }
  owner=$(id -un)
  if [ "$(id -u)" = 0 ]; then
    owner=postgres
    if ! id postgres >/dev/null 2>&1; then
      useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    fi
  fi
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/pgtest.XXXXXX")
  mkdir -p "$dir/data" "$dir/sock"
  [ "$(id -u)" = 0 ] && chown -R "$owner" "$dir"
  chmod 700 "$dir"
  [ "$(id -u)" = 0 ] && chown "$owner" "$dir"
  as_owner "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; log "initdb failed"; exit 1; }
  local port attempt
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    if run_server "$bindir" "$dir" "$port"; then
      echo "$port" >"$dir/port"
      log "PostgreSQL ($bindir) running on 127.0.0.1:$port, data in $dir"
      echo "export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/postgres"
      echo "export PG_TEST_DIR=$dir"
      return 0
    fi
    log "start on port $port failed (attempt $attempt)"; tail -n 5 "$dir/server.log" >&2 || true
  done
  log "could not start PostgreSQL"; exit 1
}

stop() {
  local dir=${1:-${PG_TEST_DIR:-}}
  [ -n "$dir" ] && [ -d "$dir/data" ] || { log "stop: no cluster directory given (argument or PG_TEST_DIR)"; exit 1; }
  local bindir
  bindir=$(find_bindir) || { log "stop: initdb/pg_ctl not found"; exit 1; }
  owner=$(stat -c %U "$dir/data")
  as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
  rm -rf "$dir"
}

# pause/resume: an outage of the server (the tests of what the service does while its store is
# away), on the same data and port.
pause() {
  local dir=${1:-${PG_TEST_DIR:-}} bindir
  [ -n "$dir" ] && [ -f "$dir/port" ] || { log "pause: no cluster directory given (argument or PG_TEST_DIR)"; exit 1; }
  bindir=$(find_bindir) || { log "pause: pg_ctl not found"; exit 1; }
  owner=$(stat -c %U "$dir/data")
  as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >&2
}

resume() {
  local dir=${1:-${PG_TEST_DIR:-}} bindir
  [ -n "$dir" ] && [ -f "$dir/port" ] || { log "resume: no cluster directory given (argument or PG_TEST_DIR)"; exit 1; }
  bindir=$(find_bindir) || { log "resume: pg_ctl not found"; exit 1; }
  owner=$(stat -c %U "$dir/data")
  run_server "$bindir" "$dir" "$(cat "$dir/port")"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  pause) pause "${2:-}" ;;
  resume) resume "${2:-}" ;;
  *) echo "usage: $0 start | stop <dir> | pause <dir> | resume <dir>" >&2; exit 2 ;;
esac
