#!/usr/bin/env bash
# The container engine of the image tests (test/image, `npm run test:image`): finds (and on Debian
# as root, installs) podman with runc, and mmdebstrap (scripts/image/local-base.sh makes the base
# image with it, since no registry is reachable here), then writes the engine's settings into a
# file of the project's own cache instead of the system's /etc/containers. Idempotent.
#
#   eval "$(bash scripts/setup-podman.sh)"   # exports CONTAINERS_CONF and IMAGE_CACHE_DIR
#
# Prints shell `export` lines on stdout; everything else goes to stderr.
# Settings, each forced by these machines (a VM with hybrid cgroups v1, root, no registry):
#   runtime runc           crun refuses hybrid cgroups ("cgroups in hybrid mode not supported")
#   cgroup_manager cgroupfs  no systemd running as PID 1 to hand cgroups to
#   default_ulimits []     podman's default RLIMIT_NOFILE is refused ("setrlimit: Operation not
#                          permitted"); the containers inherit the engine's limits instead
#   events_logger file     no journald
#   netns host             the tests' containers reach only loopback fixtures, as the host does
set -euo pipefail

log() { echo "setup-podman: $*" >&2; }

cache=${IMAGE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/screenshot-service/image}
mkdir -p "$cache"

missing=()
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
command -v catatonit >/dev/null || [ -x /usr/libexec/podman/catatonit ] || missing+=(catatonit)
if [ ${#missing[@]} -gt 0 ]; then
  if [ -f /etc/debian_version ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing ${missing[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2 || true
    # runc (not crun, see above); catatonit is the pause process of `podman kube play`'s pods.
    apt-get install -y -q --no-install-recommends podman runc catatonit mmdebstrap >&2
  else
    log "missing: ${missing[*]}, and this is not Debian as root."
    log "Install podman 4.3+ with runc (and mmdebstrap to make the base image), then run again."
    exit 1
  fi
fi

conf="$cache/containers.conf"
cat > "$conf.tmp" <<'CONF'
# Written by scripts/setup-podman.sh (the image tests' engine settings; read through CONTAINERS_CONF).
[containers]
default_ulimits = []
netns = "host"
log_driver = "k8s-file"

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
mv "$conf.tmp" "$conf"

CONTAINERS_CONF=$conf podman info --format '{{.Host.OCIRuntime.Name}} {{.Host.CgroupManager}} {{.Store.GraphDriverName}}' >&2 \
  || { log "podman does not start with $conf"; exit 1; }
log "podman $(podman --version | awk '{print $3}'), settings in $conf"
echo "export CONTAINERS_CONF=$conf"
echo "export IMAGE_CACHE_DIR=$cache"
