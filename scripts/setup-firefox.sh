#!/usr/bin/env bash
# Finds (and on Debian as root, installs) Firefox ESR for the conformance suite's second subject
# engine (conformance/self-test/subjects/firefox/). Prints the binary on stdout's last line.
# FIREFOX_PATH overrides the search. The fonts are the ones scripts/setup-browser.sh installs for
# Chromium, so both engines render the suite's pages with the same faces.
set -euo pipefail

candidates=(/usr/bin/firefox-esr /usr/lib/firefox-esr/firefox-esr /usr/bin/firefox)
fonts=(fonts-liberation fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji)

find_firefox() {
  if [ -n "${FIREFOX_PATH:-}" ]; then
    [ -x "$FIREFOX_PATH" ] && { echo "$FIREFOX_PATH"; return 0; }
    echo "setup-firefox: FIREFOX_PATH=$FIREFOX_PATH is not an executable file" >&2
    exit 1
  fi
  for c in "${candidates[@]}"; do [ -x "$c" ] && { echo "$c"; return 0; }; done
  return 1
}

if ! find_firefox >/dev/null; then
  if [ -f /etc/debian_version ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup-firefox: installing firefox-esr and fonts with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q --no-install-recommends firefox-esr "${fonts[@]}" >&2
  else
    cat >&2 <<MSG
setup-firefox: no Firefox found, and this is not Debian as root.
Install it, then run again (or set FIREFOX_PATH to the binary):
  Debian/Ubuntu: apt-get install firefox-esr ${fonts[*]}
  elsewhere:     any Firefox 128+ (WebDriver BiDi); set FIREFOX_PATH=/path/to/firefox
MSG
    exit 1
  fi
fi

find_firefox || { echo "setup-firefox: install finished but no Firefox found" >&2; exit 1; }
