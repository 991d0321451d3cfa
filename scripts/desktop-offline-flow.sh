#!/usr/bin/env bash
# Runs tests/desktop/webdriver_offline.py (relay-desktop's offline client mode: cached data while
# `relay serve` is down, offline edits queued through the UI, the replay on reconnect and a
# conflict resolved in the review dialog) the way desktop-client-flow.sh runs the client flow:
# a private D-Bus session with a throwaway gnome-keyring, under Xvfb.
# Usage: scripts/desktop-offline-flow.sh DESKTOP_BIN RELAY_BIN
# (DESKTOP_OFFLINE_SCREENSHOT=FILE saves the conflict review; TAURI_DRIVER_PORT moves tauri-driver.)
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/desktop-client-flow.sh" "$1" "$2" webdriver_offline.py
