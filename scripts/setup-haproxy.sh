#!/usr/bin/env bash
# Finds (and on Debian as root, installs) HAProxy, the load balancer of `npm run cluster`, of the
# cluster tests (test/cluster) and of compose.yaml. Prints the binary on stdout's last line.
# HAPROXY_PATH overrides the search. Needs HAProxy 2.2+ (l7 retries, `http-error`).
set -euo pipefail

find_haproxy() {
  if [ -n "${HAPROXY_PATH:-}" ]; then
    [ -x "$HAPROXY_PATH" ] && { echo "$HAPROXY_PATH"; return 0; }
    echo "setup-haproxy: HAPROXY_PATH=$HAPROXY_PATH is not an executable file" >&2
    exit 1
  fi
  local c
  for c in "$(command -v haproxy 2>/dev/null || true)" /usr/sbin/haproxy /usr/local/sbin/haproxy; do
    [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
  done
  return 1
}

if ! find_haproxy >/dev/null; then
  if [ -f /etc/debian_version ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup-haproxy: installing haproxy with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    # The package's own service (an haproxy on /etc/haproxy/haproxy.cfg) is not wanted here: the
    # cluster runs its own haproxy on a generated config. A policy-rc.d answering 101 ("action
    # forbidden") keeps the package scripts from starting it; it is removed right after.
    policy=/usr/sbin/policy-rc.d
    added_policy=0
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && added_policy=1
    fi
    apt-get update -q >&2 || true
    status=0
    apt-get install -y -q --no-install-recommends haproxy >&2 || status=$?
    [ "$added_policy" = 1 ] && rm -f "$policy"
    [ "$status" = 0 ] || { echo "setup-haproxy: apt-get install haproxy failed" >&2; exit 1; }
  else
    cat >&2 <<MSG
setup-haproxy: no HAProxy found, and this is not Debian as root.
Install it, then run again (or set HAPROXY_PATH to the binary):
  Debian/Ubuntu: apt-get install haproxy
  elsewhere:     HAProxy 2.2 or newer from your package manager
MSG
    exit 1
  fi
fi

find_haproxy || { echo "setup-haproxy: install finished but no haproxy found" >&2; exit 1; }
