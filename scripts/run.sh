#!/usr/bin/env bash
# Runs Relay in server mode on this machine: builds the web UI (first time, or when missing),
# then starts `relay serve` with the embedded SQLite store in ./data, bound to 127.0.0.1:8090.
# Extra arguments are passed to `relay serve` (e.g. --bind 0.0.0.0 for direct LAN access).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ ! -f ui/dist/index.html ]; then
  (cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run build)
fi
cargo build --release -p relay --locked
echo "Connection passphrase: ./target/release/relay connection-info --data-dir ./data (after first start)"
exec "${CARGO_TARGET_DIR:-$ROOT/target}/release/relay" serve --data-dir ./data --bind 127.0.0.1 --port 8090 --ui-dir ./ui/dist "$@"
