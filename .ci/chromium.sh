#!/usr/bin/env bash
# Install Debian's Chromium and its chromedriver for the install page's browser tests
# (tests/test_install_browser.py), which under CI=true fail rather than skip without them.
# Idempotent: installs only what is missing. Source it or run it.

_paperbot_chromium() (
    set -euo pipefail
    if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
        return 0
    fi
    echo "chromium.sh: installing Debian's chromium and chromium-driver packages" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium chromium-driver >/dev/null
)

_paperbot_chromium || return 1 2>/dev/null || exit 1
