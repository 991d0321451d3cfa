#!/usr/bin/env bash
# Builds and packages a Relay release for Linux x86-64 from one commit (issues #14 and #43,
# docs/updater.md, docs/operations.md "Install from the Debian packages"):
#   dist/relay-vX.Y.Z-linux-x86_64.zip          exactly one member, relay-desktop (0755, fixed timestamp)
#   dist/relay-vX.Y.Z-linux-x86_64.zip.sha256   "<sha256>  <zip name>"
#   dist/relay-vX.Y.Z-linux-x86_64.zip.minisig  minisign signature, trusted comment
#                                               "relay-release vX.Y.Z <commit> relay-vX.Y.Z-linux-x86_64.zip"
#   dist/relay-server_X.Y.Z_amd64.deb (+ .sha256)   the server package (packaging/build-debs.sh)
#   dist/relay-desktop_X.Y.Z_amd64.deb (+ .sha256)  the desktop package; its seed build is the
#                                               very relay-desktop of the archive
# `lintian` must report no error on either package.
# The publisher's minisign secret key file is named by RELAY_RELEASE_MINISIGN_KEY (it never
# enters the repository); an encrypted key asks for its password on the terminal, as minisign
# does. Packaging and signing are done by the workspace's relay-release-tool, so no system
# minisign or zip is needed.
# Releases are the hardened `packaged` variant (remembered secrets, the Dynatrace token and device
# keys never fall back to plaintext files): both binaries are built with `--features packaged`
# and every binary that is packaged must say so in its version line, or nothing is signed.
#
# usage: scripts/release.sh [--binary PATH [--relay PATH --launcher PATH]] [--ui-dir DIR]
#                           [--version X.Y.Z] [--commit SHA] [--out-dir DIR] [--tool PATH]
#   --binary   package this relay-desktop (a packaged build) instead of building it, relay and
#              relay-launcher; alone, only the update archive is made
#   --relay, --launcher  with --binary: this relay (a packaged build) and relay-launcher, and
#              both Debian packages are made too
#   --ui-dir   the built web UI the server package ships (default: ui/dist, the one the desktop
#              embeds)
#   --version  the release version (default: the workspace version in Cargo.toml)
#   --commit   the full commit the binary was built from (default: HEAD of a clean work tree)
#   --out-dir  where the assets go (default: dist/)
#   --tool     a prebuilt relay-release-tool (default: built here in release mode)
# LINTIAN names the lintian program (default: lintian).
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

binary="" relay="" launcher="" ui_dir="$ROOT/ui/dist" version="" commit="" out_dir="$ROOT/dist" tool=""
while [ "$#" -gt 0 ]; do
  [ "$#" -ge 2 ] || die "$1 needs a value"
  case "$1" in
    --binary) binary="$2" ;;
    --relay) relay="$2" ;;
    --launcher) launcher="$2" ;;
    --ui-dir) ui_dir="$2" ;;
    --version) version="$2" ;;
    --commit) commit="$2" ;;
    --out-dir) out_dir="$2" ;;
    --tool) tool="$2" ;;
    *) die "unknown argument $1" ;;
  esac
  shift 2
done

if [ -n "$relay$launcher" ] && { [ -z "$binary" ] || [ -z "$relay" ] || [ -z "$launcher" ]; }; then
  die "--relay and --launcher go together, with --binary"
fi
# The packages are made whenever the binaries are built here, or all three are given.
debs=0
if [ -z "$binary" ] || [ -n "$relay" ]; then debs=1; fi

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

if [ "$debs" = 1 ]; then
  [ -f "$ui_dir/index.html" ] || die "no built web UI at $ui_dir (cd ui && npm ci && npm run build)"
  for deb in "relay-server_${version}_amd64.deb" "relay-desktop_${version}_amd64.deb"; do
    [ ! -e "$out_dir/$deb" ] || die "$out_dir/$deb exists; outputs are never replaced"
  done
  command -v "${LINTIAN:-lintian}" >/dev/null 2>&1 || die "lintian is missing (apt-get install lintian)"
fi

if [ -z "$binary" ]; then
  echo "==> cargo build --release --features packaged (relay-desktop, relay), cargo build --release (relay-launcher)"
  "$CARGO" build --release --locked -p relay-desktop --bin relay-desktop --features packaged
  "$CARGO" build --release --locked -p relay --bin relay --features packaged
  "$CARGO" build --release --locked -p relay-launcher --bin relay-launcher
  binary="$TARGET_DIR/release/relay-desktop"
  relay="$TARGET_DIR/release/relay"
  launcher="$TARGET_DIR/release/relay-launcher"
fi
require_packaged "$binary"
[ "$debs" = 0 ] || require_packaged "$relay"
if [ -z "$tool" ]; then
  "$CARGO" build --release --locked -p relay-release-tool
  tool="$TARGET_DIR/release/relay-release-tool"
fi

if [ "$debs" = 1 ]; then
  echo "==> Debian packages relay-server and relay-desktop $version into $out_dir"
  made="$("$ROOT/packaging/build-debs.sh" --relay "$relay" --desktop "$binary" --launcher "$launcher" \
    --ui-dir "$ui_dir" --version "$version" --commit "$commit" --out-dir "$out_dir")"
  mapfile -t packages <<<"$made"
  for deb in "${packages[@]}"; do
    (cd "$(dirname "$deb")" && sha256sum "$(basename "$deb")" >"$(basename "$deb").sha256")
    echo "    $deb"
  done
  echo "==> lintian (no errors)"
  "${LINTIAN:-lintian}" --fail-on error "${packages[@]}"
fi

echo "==> packaging relay v$version ($commit) into $out_dir"
"$tool" --binary "$binary" --version "$version" --commit "$commit" --key "$key" --out-dir "$out_dir"
