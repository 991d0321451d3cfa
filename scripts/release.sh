#!/usr/bin/env bash
# Builds and packages a Relay desktop release for Linux x86-64 (issue #14, docs/updater.md):
#   dist/relay-vX.Y.Z-linux-x86_64.zip          exactly one member, relay-desktop (0755, fixed timestamp)
#   dist/relay-vX.Y.Z-linux-x86_64.zip.sha256   "<sha256>  <zip name>"
#   dist/relay-vX.Y.Z-linux-x86_64.zip.minisig  minisign signature, trusted comment
#                                               "relay-release vX.Y.Z <commit> relay-vX.Y.Z-linux-x86_64.zip"
# The publisher's minisign secret key file is named by RELAY_RELEASE_MINISIGN_KEY (it never
# enters the repository); an encrypted key asks for its password on the terminal, as minisign
# does. Packaging and signing are done by the workspace's relay-release-tool, so no system
# minisign or zip is needed.
# Releases are the hardened `packaged` variant (remembered secrets, the Dynatrace token and device
# keys never fall back to plaintext files): both binaries are built with `--features packaged`
# and every binary that is packaged must say so in its version line, or nothing is signed.
#
# usage: scripts/release.sh [--binary PATH] [--version X.Y.Z] [--commit SHA] [--out-dir DIR] [--tool PATH]
#   --binary   package this relay-desktop (a packaged build) instead of building it (and relay)
#   --version  the release version (default: the workspace version in Cargo.toml)
#   --commit   the full commit the binary was built from (default: HEAD of a clean work tree)
#   --out-dir  where the assets go (default: dist/)
#   --tool     a prebuilt relay-release-tool (default: built here in release mode)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
CARGO="${CARGO:-cargo}"
# What a `packaged` build's version line says (`relay --version`, `relay-desktop --version`).
PACKAGED_MARK=" (packaged build)"

die() { echo "release.sh: $*" >&2; exit 1; }
require_packaged() {
  grep -aqF "$PACKAGED_MARK" "$1" || die "$1 is not a packaged build (cargo build --release --features packaged)"
}

binary="" version="" commit="" out_dir="$ROOT/dist" tool=""
while [ "$#" -gt 0 ]; do
  [ "$#" -ge 2 ] || die "$1 needs a value"
  case "$1" in
    --binary) binary="$2" ;;
    --version) version="$2" ;;
    --commit) commit="$2" ;;
    --out-dir) out_dir="$2" ;;
    --tool) tool="$2" ;;
    *) die "unknown argument $1" ;;
  esac
  shift 2
done

key="${RELAY_RELEASE_MINISIGN_KEY:-}"
[ -n "$key" ] || die "set RELAY_RELEASE_MINISIGN_KEY to the path of the publisher's minisign secret key file"
[ -f "$key" ] || die "RELAY_RELEASE_MINISIGN_KEY does not name a file"

if [ -z "$version" ]; then
  # The [workspace.package] version.
  version="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n1)"
  [ -n "$version" ] || die "cannot read the workspace version from Cargo.toml"
fi
if [ -z "$commit" ]; then
  git diff --quiet HEAD -- || die "the work tree has uncommitted changes; release from a clean checkout"
  commit="$(git rev-parse HEAD)"
fi

if [ -z "$binary" ]; then
  echo "==> cargo build --release --features packaged (relay-desktop, relay)"
  "$CARGO" build --release --locked -p relay-desktop --bin relay-desktop --features packaged
  "$CARGO" build --release --locked -p relay --bin relay --features packaged
  binary="$TARGET_DIR/release/relay-desktop"
  require_packaged "$TARGET_DIR/release/relay"
fi
require_packaged "$binary"
if [ -z "$tool" ]; then
  "$CARGO" build --release --locked -p relay-release-tool
  tool="$TARGET_DIR/release/relay-release-tool"
fi

echo "==> packaging relay v$version ($commit) into $out_dir"
"$tool" --binary "$binary" --version "$version" --commit "$commit" --key "$key" --out-dir "$out_dir"
