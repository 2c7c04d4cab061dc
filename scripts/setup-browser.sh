#!/usr/bin/env bash
# Finds (and on Debian as root, installs) the browser and fonts the server renders with.
# Used by `npm start` and `npm test`. Prints the binary it found on stdout's last line.
# CHROMIUM_PATH overrides the search. Order of preference: chromium-headless-shell (a fresh
# isolated context costs about a quarter of the CPU it costs in full chromium), then chromium.
# --headless-shell-only (the Dockerfile): install chromium-headless-shell without the full
# chromium kept beside it as a fallback elsewhere; the image is about 400 MB smaller.
set -euo pipefail

candidates=(/usr/lib/chromium/chromium-headless-shell /usr/lib/chromium/chromium)
fonts=(fonts-liberation fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji)
browsers=(chromium-headless-shell chromium)
[ "${1:-}" = --headless-shell-only ] && browsers=(chromium-headless-shell)

find_browser() {
  if [ -n "${CHROMIUM_PATH:-}" ]; then
    [ -x "$CHROMIUM_PATH" ] && { echo "$CHROMIUM_PATH"; return 0; }
    echo "setup-browser: CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file" >&2
    exit 1
  fi
  for c in "${candidates[@]}"; do [ -x "$c" ] && { echo "$c"; return 0; }; done
  return 1
}

missing_fonts() {
  command -v dpkg-query >/dev/null || return 1
  for f in "${fonts[@]}"; do
    dpkg-query -W -f='${Status}' "$f" 2>/dev/null | grep -q 'install ok installed' || echo "$f"
  done
}

need_install=0
find_browser >/dev/null || need_install=1
[ -n "$(missing_fonts || true)" ] && need_install=1

if [ "$need_install" = 1 ]; then
  if [ -f /etc/debian_version ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup-browser: installing ${browsers[*]} and fonts with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q --no-install-recommends "${browsers[@]}" "${fonts[@]}" >&2
  else
    cat >&2 <<MSG
setup-browser: no usable Chromium (or fonts) found, and this is not Debian as root.
Install one of these, then run again (or set CHROMIUM_PATH to the binary):
  Debian/Ubuntu: apt-get install chromium-headless-shell chromium ${fonts[*]}
  elsewhere:     any Chromium/Chrome 120+ build; set CHROMIUM_PATH=/path/to/chrome-headless-shell
MSG
    find_browser >/dev/null && exit 0
    exit 1
  fi
fi

find_browser || { echo "setup-browser: install finished but no browser found" >&2; exit 1; }
