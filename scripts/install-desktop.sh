#!/usr/bin/env bash
# Installs the Relay desktop for the current user, started through the recovery launcher:
#   ~/.local/bin/relay-launcher                          the launcher (0755)
#   $XDG_DATA_HOME/relay/runtimes/<build-id>/            the first runtime (`relay-launcher install`)
#   $XDG_DATA_HOME/applications/relay.desktop            the desktop entry (0644)
#   $XDG_DATA_HOME/applications/relay-recovery.desktop   "Relay (recovery)": the launcher's
#                                                        recovery entry, which starts the newest
#                                                        retained build first (0644)
# ($XDG_DATA_HOME defaults to ~/.local/share.) Without --desktop/--launcher it builds both in
# release mode (ui/dist must exist: cd ui && npm ci && npm run build). The runtime is installed
# with the workspace version and `git rev-parse HEAD`; a dirty tree is refused unless --commit is
# given. Run again, it refreshes the launcher and the desktop entry and leaves an existing
# installation alone (updates come through the app).
#
# Usage: scripts/install-desktop.sh [--desktop PATH --launcher PATH] [--commit <40 hex>]
#                                   [--data-dir <absolute path>]
# --data-dir is the desktop's data directory, given to the launcher in the desktop entry
# (default: $XDG_DATA_HOME/relay-desktop).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

die() { echo "install-desktop: $*" >&2; exit 1; }
usage() { sed -n '12,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

desktop="" launcher="" commit="" data_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --desktop) [ $# -ge 2 ] || usage; desktop="$2"; shift 2 ;;
    --launcher) [ $# -ge 2 ] || usage; launcher="$2"; shift 2 ;;
    --commit) [ $# -ge 2 ] || usage; commit="$2"; shift 2 ;;
    --data-dir) [ $# -ge 2 ] || usage; data_dir="$2"; shift 2 ;;
    *) usage ;;
  esac
done
if { [ -n "$desktop" ] && [ -z "$launcher" ]; } || { [ -z "$desktop" ] && [ -n "$launcher" ]; }; then
  die "give both --desktop and --launcher, or neither (then both are built)"
fi

case "${HOME:-}" in /*) ;; *) die "HOME must be an absolute path" ;; esac
case "${XDG_DATA_HOME:-}" in /*) data_home="$XDG_DATA_HOME" ;; *) data_home="$HOME/.local/share" ;; esac
data_dir="${data_dir:-$data_home/relay-desktop}"
case "$data_dir" in /*) ;; *) die "--data-dir must be an absolute path" ;; esac
bin_dir="$HOME/.local/bin"
apps_dir="$data_home/applications"
# The desktop entry quotes its arguments; refuse what would need escaping there.
for path in "$bin_dir" "$data_dir"; do
  case "$path" in *[\"\`\$\\%]* | *$'\n'*) die "unsupported character in $path" ;; esac
done

version="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n1)"
[ -n "$version" ] || die "cannot read the workspace version from Cargo.toml"
if [ -z "$commit" ]; then
  git -C "$ROOT" diff --quiet HEAD -- || die "the work tree has uncommitted changes; commit them or pass --commit"
  commit="$(git -C "$ROOT" rev-parse HEAD)"
fi

if [ -z "$desktop" ]; then
  [ -f "$ROOT/ui/dist/index.html" ] || die "ui/dist missing: run (cd ui && npm ci && npm run build)"
  echo "==> cargo build --release (relay-desktop, relay-launcher)"
  (cd "$ROOT" && cargo build --release --locked -p relay-desktop --bin relay-desktop -p relay-launcher)
  desktop="$TARGET_DIR/release/relay-desktop"
  launcher="$TARGET_DIR/release/relay-launcher"
fi
[ -f "$desktop" ] || die "no relay-desktop at $desktop"
[ -f "$launcher" ] || die "no relay-launcher at $launcher"

# Writes stdin to $1 with mode $2 through a temp file in the same directory, then renames it.
install_file() {
  local target="$1" mode="$2" tmp
  tmp="$(mktemp "$(dirname "$target")/.$(basename "$target").tmp-XXXXXXXX")"
  if ! { cat >"$tmp" && chmod "$mode" "$tmp" && sync "$tmp" && mv -f "$tmp" "$target"; }; then
    rm -f "$tmp"
    die "cannot write $target"
  fi
}

echo "==> $bin_dir/relay-launcher"
mkdir -p "$bin_dir"
install_file "$bin_dir/relay-launcher" 0755 <"$launcher"

echo "==> relay-launcher install (v$version, $commit)"
errors="$(mktemp)"
trap 'rm -f "$errors"' EXIT
if build="$("$bin_dir/relay-launcher" install --runtime "$desktop" --version "$version" --commit "$commit" 2>"$errors")"; then
  echo "    runtime $build installed under $data_home/relay/runtimes"
elif grep -q '(already_installed)' "$errors"; then
  echo "    already installed: the launcher keeps its current runtime; updates come through the app"
else
  cat "$errors" >&2
  die "relay-launcher install failed"
fi

echo "==> $apps_dir/relay.desktop"
mkdir -p "$apps_dir"
install_file "$apps_dir/relay.desktop" 0644 <<EOF
[Desktop Entry]
Type=Application
Name=Relay
Comment=Relay desktop
Exec="$bin_dir/relay-launcher" --data-dir "$data_dir"
Terminal=false
Categories=Network;
EOF
echo "==> $apps_dir/relay-recovery.desktop"
install_file "$apps_dir/relay-recovery.desktop" 0644 <<EOF
[Desktop Entry]
Type=Application
Name=Relay (recovery)
Comment=Start the Relay build that ran before, to roll back or repair from Administration
Exec="$bin_dir/relay-launcher" recovery --data-dir "$data_dir"
Terminal=false
Categories=Network;
EOF
echo "done: start Relay from the applications menu, or run $bin_dir/relay-launcher --data-dir $data_dir"
