#!/usr/bin/env bash
# Runs Relay in server mode on this machine: builds the web UI (first time, or when missing),
# then starts `relay serve` with the embedded SQLite store in ./data, bound to 127.0.0.1:8090.
# RELAY_BIND (e.g. 0.0.0.0 for direct LAN access), RELAY_PORT and RELAY_DATA_DIR override the
# defaults; any other arguments are passed to `relay serve` (e.g. --web).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ ! -f ui/dist/index.html ]; then
  (cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run build)
fi
cargo build --release -p relay --locked
echo "Connection passphrase: ./target/release/relay connection-info --data-dir ${RELAY_DATA_DIR:-./data} (after first start)"
exec "${CARGO_TARGET_DIR:-$ROOT/target}/release/relay" serve \
  --data-dir "${RELAY_DATA_DIR:-./data}" --bind "${RELAY_BIND:-127.0.0.1}" --port "${RELAY_PORT:-8090}" \
  --ui-dir ./ui/dist "$@"
