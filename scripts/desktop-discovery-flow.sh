#!/usr/bin/env bash
# Runs tests/desktop/webdriver_discovery.py (two relay-desktop processes finding each other over
# mDNS) inside a fresh network namespace whose only interface is loopback (`unshare -n`, as
# root), under Xvfb, so the multicast never reaches a real network.
# Usage: scripts/desktop-discovery-flow.sh DESKTOP_BIN
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DESKTOP_BIN="$(realpath "$1")"
export ROOT
unshare -n -- bash -c '
  set -euo pipefail
  ip link set lo up
  ip link set lo multicast on
  cd "$ROOT/tests/desktop"
  xvfb-run -a -s "-screen 0 1280x800x24" python3 webdriver_discovery.py "$0"
' "$DESKTOP_BIN"
