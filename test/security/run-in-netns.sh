#!/usr/bin/env bash
# Runs node test files inside a network (and mount) namespace of their own (threat model, "Testing
# it safely"): only `lo` exists there, so a broken egress guard fails the test instead of sending a
# packet anywhere. /etc/resolv.conf is bind-mounted (inside the namespace only) to point at
# 127.0.0.1, where a test's own DNS server may listen on port 53; so even the system resolver path
# never leaves the namespace. Tests add the extra loopback addresses they need themselves
# (lib/netns.ts), after checking that they are isolated.
#
#   test/security/run-in-netns.sh test/security/battery.test.ts [more files or node --test flags]
#
# Needs root (or user namespaces) and util-linux unshare and iproute2 ip.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "${EGRESS_NETNS:-}" != 1 ]; then
  [ "$#" -ge 1 ] || { echo "usage: $0 test-file... [node --test options]" >&2; exit 2; }
  exec unshare --net --mount --propagation private -- env EGRESS_NETNS=1 bash "$0" "$@"
fi

ip link set lo up
resolv="$(mktemp)"
trap 'rm -f "$resolv"' EXIT
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' > "$resolv"
mount --bind "$resolv" /etc/resolv.conf
node --import tsx --test --test-concurrency=1 "$@"
