#!/usr/bin/env bash
# Runs a command where no user namespace can be created, as a container under Docker's default
# seccomp profile is: as root of a child user namespace (uids and gids 0..65534 mapped to
# themselves) whose max_user_namespaces is 0. Only that namespace is changed, never the host's
# setting. Needs root (writes the child's uid_map itself: no newuidmap needed).
#
#   test/security/lib/without-userns.sh node --import tsx some-script.ts
set -euo pipefail
case "${1:-}" in
  --inner) # in the new user namespace, unmapped until the parent writes the maps
    shift; read -r _ < "$1"; rm -f "$1"; shift
    exec setpriv --reuid=0 --regid=0 --clear-groups -- bash "$0" --as-root "$@" ;;
  --as-root)
    shift; echo 0 > /proc/sys/user/max_user_namespaces; exec "$@" ;;
esac
[ "$(id -u)" = 0 ] || { echo "$0: needs root" >&2; exit 2; }
go="$(mktemp -u)"; mkfifo "$go"
unshare --user -- bash "$0" --inner "$go" "$@" &
child=$!
until [ "$(readlink /proc/$child/ns/user)" != "$(readlink /proc/self/ns/user)" ]; do sleep 0.02; done
echo '0 0 65535' > "/proc/$child/uid_map"
echo '0 0 65535' > "/proc/$child/gid_map"
echo go > "$go"
wait "$child"
