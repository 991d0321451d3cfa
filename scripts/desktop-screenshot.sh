#!/usr/bin/env bash
# Starts relay-desktop in server mode (temporary data dir, free port) under Xvfb, screenshots the
# whole screen after ~6 s into target/screenshots/desktop.png (or $DESKTOP_SCREENSHOT), and fails
# when the app does not stay up, exit by itself (RELAY_DESKTOP_EXIT_AFTER_SECS) or the PNG is
# missing or blank. With RELAY_UPDATE_SCREENSHOTS=1 a good one is copied to docs/screenshots/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
. "$ROOT/scripts/lib/screenshots.sh"
# Builds the workspace (one feature set for every command, see the toolchain notes) unless a
# binary is given in RELAY_DESKTOP_BIN.
if [ -z "${RELAY_DESKTOP_BIN:-}" ]; then
  cargo build --workspace --locked
fi
BIN="${RELAY_DESKTOP_BIN:-$TARGET_DIR/debug/relay-desktop}"
OUT="${DESKTOP_SCREENSHOT:-$SHOTS_DIR/desktop.png}"
[ -x "$BIN" ] || { echo "no relay-desktop binary at $BIN" >&2; exit 1; }
[ -f ui/dist/index.html ] || { echo "ui/dist missing: run (cd ui && npm ci && npm run build)" >&2; exit 1; }
mkdir -p "$(dirname "$OUT")"
rm -f "$OUT"
DATA="$(mktemp -d)"
LOG="$DATA/desktop.log"
trap 'rm -rf "$DATA"' EXIT

export RELAY_DESKTOP_EXIT_AFTER_SECS=8
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  "$0" --data-dir "$1/data" --server-mode --bind 127.0.0.1 --no-mdns --port 0 >"$2" 2>&1 & p=$!
  sleep 6
  import -window root "$3"
  # Under heavy load the first paint can be late: one more try before the app exits at 8 s.
  sd=$(convert "$3" -format "%[fx:standard_deviation]" info: 2>/dev/null || echo 0)
  if awk -v sd="$sd" "BEGIN { exit !(sd <= 0.01) }"; then sleep 1; import -window root "$3"; fi
  # The app exits by itself after RELAY_DESKTOP_EXIT_AFTER_SECS; kill it only if it does not.
  for _ in $(seq 1 20); do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$p" 2>/dev/null; then echo "relay-desktop did not exit by itself" >&2; kill "$p"; wait "$p" || true; exit 1; fi
  wait "$p"
' "$BIN" "$DATA" "$LOG" "$OUT" || { echo "--- relay-desktop log"; cat "$LOG"; exit 1; }

[ -s "$OUT" ] || { echo "no screenshot at $OUT" >&2; cat "$LOG"; exit 1; }
sd="$(convert "$OUT" -format '%[fx:standard_deviation]' info:)"
echo "screenshot $OUT (standard deviation $sd)"
awk -v sd="$sd" 'BEGIN { exit !(sd > 0.01) }' || { echo "screenshot is blank" >&2; cat "$LOG"; exit 1; }
if grep -q "panic" "$LOG"; then echo "relay-desktop panicked" >&2; cat "$LOG"; exit 1; fi
publish_screenshot "$OUT" desktop.png
echo "desktop screenshot ok"
