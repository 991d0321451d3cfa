#!/usr/bin/env bash
# Drives the desktop's fatal-error path in the real window under Xvfb: a debug build started
# with RELAY_DESKTOP_TEST_FATAL=server panics on its server thread; the panic hook must show the
# Quit / Continue dialog (found by its title with xwininfo, screenshot into
# target/screenshots/desktop-fatal-dialog.png, or $DESKTOP_FATAL_SCREENSHOT; copied to
# docs/screenshots/ with RELAY_UPDATE_SCREENSHOTS=1), and answering it with Return (the default, Quit)
# must end the app with exit code 1 and a redacted one-line report in its log. Then
# RELAY_DESKTOP_TEST_FATAL=recoverable: three panics on worker threads must raise the stability
# warning without ending the app.
# Usage: scripts/desktop-fatal-dialog.sh DESKTOP_BIN
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$(realpath "$1")"
. "$ROOT/scripts/lib/screenshots.sh"
OUT="${DESKTOP_FATAL_SCREENSHOT:-$SHOTS_DIR/desktop-fatal-dialog.png}"
mkdir -p "$(dirname "$OUT")"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
LOG="$WORK/desktop.log"
TITLE="Relay — unexpected error"

set +e
RELAY_DESKTOP_TEST_FATAL=server xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  set -u
  "$0" --data-dir "$1/data" --server-mode --bind 127.0.0.1 --no-mdns --port 0 >"$2" 2>&1 & p=$!
  found=""
  for _ in $(seq 1 60); do
    found=$(xwininfo -root -tree | grep -F "\"$3\"" | awk "{print \$1}" | head -1)
    [ -n "$found" ] && break
    sleep 0.5
  done
  if [ -z "$found" ]; then echo "no fatal-error dialog appeared" >&2; kill "$p"; wait "$p"; exit 90; fi
  sleep 1
  import -window root "$4"
  xdotool windowfocus --sync "$found" key Return
  for _ in $(seq 1 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$p" 2>/dev/null; then echo "the app did not quit after the dialog" >&2; kill "$p"; wait "$p"; exit 91; fi
  wait "$p"
' "$BIN" "$WORK" "$LOG" "$TITLE" "$OUT"
rc=$?
set -e
fail() { echo "desktop fatal dialog: $*" >&2; echo "--- relay-desktop log"; cat "$LOG"; exit 1; }
[ "$rc" -eq 1 ] || fail "expected exit code 1 (Quit), got $rc"
grep -q "panic in thread actix-system: injected fatal failure" "$LOG" || fail "no panic report"
grep -q "fatal failure: quitting" "$LOG" || fail "the guard did not quit"
[ "$(grep -c "injected fatal failure" "$LOG")" -ge 1 ] || fail "no report line"
[ -s "$OUT" ] || fail "no screenshot"
publish_screenshot "$OUT" desktop-fatal-dialog.png
echo "fatal dialog shown (screenshot $OUT), Quit ended the app with code 1"

# Recoverable failures: three panics off the UI and server threads raise the stability warning
# and the app keeps running until it exits by itself.
LOG2="$WORK/desktop-recoverable.log"
set +e
RELAY_DESKTOP_TEST_FATAL=recoverable RELAY_DESKTOP_EXIT_AFTER_SECS=12 xvfb-run -a -s "-screen 0 1280x800x24" \
  "$BIN" --data-dir "$WORK/data2" --server-mode --bind 127.0.0.1 --no-mdns --port 0 >"$LOG2" 2>&1
rc=$?
set -e
LOG="$LOG2"
[ "$rc" -eq 0 ] || fail "recoverable failures ended the app (exit code $rc)"
[ "$(grep -c "injected recoverable failure" "$LOG2")" -ge 3 ] || fail "the injected failures did not happen"
grep -q "repeated failures: stability warning raised" "$LOG2" || fail "no stability warning"
! grep -q "fatal failure" "$LOG2" || fail "a recoverable failure was treated as fatal"
echo "three recoverable failures raised the stability warning; the app kept running and exited normally"
