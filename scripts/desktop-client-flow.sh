#!/usr/bin/env bash
# Runs tests/desktop/webdriver_client.py (relay-desktop in client mode against a real `relay
# serve`), or another client-mode flow from tests/desktop named by SCRIPT, inside a private D-Bus
# session with its own unlocked gnome-keyring (keyring files in a temporary XDG_DATA_HOME; the
# machine's own keyring is never touched), under Xvfb.
# Usage: scripts/desktop-client-flow.sh DESKTOP_BIN RELAY_BIN [SCRIPT]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KEYRING_HOME="$(mktemp -d)"
trap 'rm -rf "$KEYRING_HOME"' EXIT
DESKTOP_BIN="$(realpath "$1")"; RELAY_BIN="$(realpath "$2")"; FLOW="${3:-webdriver_client.py}"
export KEYRING_HOME ROOT FLOW
dbus-run-session -- bash -c '
  set -euo pipefail
  mkdir -p "$KEYRING_HOME/run" "$KEYRING_HOME/data" && chmod 700 "$KEYRING_HOME/run"
  export XDG_RUNTIME_DIR="$KEYRING_HOME/run" XDG_DATA_HOME="$KEYRING_HOME/data"
  eval "$(printf "relay-test-keyring" | gnome-keyring-daemon --unlock --components=secrets)"
  cd "$ROOT/tests/desktop"
  xvfb-run -a -s "-screen 0 1280x800x24" python3 "$FLOW" "$0" "$1"
' "$DESKTOP_BIN" "$RELAY_BIN"
