#!/usr/bin/env bash
# The packaging stage of scripts/test.sh (issue #43): both Debian packages built by
# packaging/build-debs.sh from the test run's debug binaries (no release build; stripped copies,
# gzip -1), then
#   - lintian: no errors;
#   - relay.service: `systemd-analyze security --offline` exposure at most 2.0 and equal to the
#     figure docs/operations.md records, `systemd-analyze verify` clean;
#   - both installed with `dpkg --root` into a throwaway root (a copy of this machine's dpkg
#     status only, so Depends must be satisfiable here; maintainer scripts chrootless with
#     DPKG_ROOT, never touching this machine's /usr, /etc or systemd): files, owners and modes,
#     the relay user, the enabled unit, the seed's manifest;
#   - relay serve started exactly as the installed unit's ExecStart (tests/packaging/installed_server.py);
#   - the desktop started from the installed menu entry through the installed launcher under
#     Xvfb, the seed installed on first start, the window up (tests/desktop/webdriver_packaged.py);
#   - purge: the packages' files and the conffile gone, /var/lib/relay and the relay user kept.
# Needs root (dpkg --root), dpkg-dev, lintian, systemd, xvfb, tauri-driver and the built ui/dist.
#
# usage: scripts/test-packages.sh [--relay PATH --desktop PATH --launcher PATH]
#        (default: the debug binaries in $CARGO_TARGET_DIR/debug)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

die() { echo "test-packages: $*" >&2; exit 1; }

relay="$TARGET_DIR/debug/relay" desktop="$TARGET_DIR/debug/relay-desktop" launcher="$TARGET_DIR/debug/relay-launcher"
while [ "$#" -gt 0 ]; do
  [ "$#" -ge 2 ] || die "$1 needs a value"
  case "$1" in
    --relay) relay="$2" ;;
    --desktop) desktop="$2" ;;
    --launcher) launcher="$2" ;;
    *) die "unknown argument $1" ;;
  esac
  shift 2
done
[ "$(id -u)" = 0 ] || die "run as root: dpkg --root installs root-owned files into the scratch root"
started=$SECONDS

version="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n1)"
commit="$(git rev-parse HEAD)"
WORK="$(mktemp -d /tmp/relay-packages-XXXXXX)"
chmod 0755 "$WORK" # the relay user's server reaches the scratch root below it
cleanup() {
  local code=$?
  if [ "$code" = 0 ] || [ -z "${KEEP_FAILED:-}" ]; then rm -rf "$WORK"; else echo "kept $WORK" >&2; fi
}
trap cleanup EXIT

echo "--- build: relay-server and relay-desktop $version from the debug binaries"
packaging/build-debs.sh --relay "$relay" --desktop "$desktop" --launcher "$launcher" --ui-dir ui/dist \
  --version "$version" --commit "$commit" --out-dir "$WORK/debs" --strip --fast
server_deb="$WORK/debs/relay-server_${version}_amd64.deb"
desktop_deb="$WORK/debs/relay-desktop_${version}_amd64.deb"

echo "--- lintian (errors fail)"
lintian --fail-on error "$server_deb" "$desktop_deb" 2>&1 | { grep -v 'running with root privileges' || true; }
echo "ok   lintian: no errors"

echo "--- relay.service: systemd-analyze security --offline, verify"
unit="$WORK/unit/relay.service"
mkdir -p "$WORK/unit"
dpkg-deb --fsys-tarfile "$server_deb" | tar -xO ./lib/systemd/system/relay.service >"$unit"
exposure="$(systemd-analyze security --offline=true "$unit" | sed -n 's/.*Overall exposure level for relay.service: \([0-9.]*\).*/\1/p')"
[ -n "$exposure" ] || die "no exposure level from systemd-analyze security"
awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' || die "relay.service exposure $exposure is above 2.0"
grep -qF "exposure level **$exposure**" docs/operations.md \
  || die "docs/operations.md must record the measured exposure level **$exposure**"
echo "ok   exposure level $exposure (at most 2.0; recorded in docs/operations.md)"

echo "--- dpkg --root: install both into a throwaway root"
R="$WORK/root"
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers" "$R/lib/systemd/system"
# This machine's package list only (no files): Depends are checked against what is installed here.
cp /var/lib/dpkg/status "$R/var/lib/dpkg/status"
touch "$R/var/lib/dpkg/available"
dpkg-query -W -f='${binary:Package}\n' | while read -r package; do : >"$R/var/lib/dpkg/info/$package.list"; done
dpkg_root() { dpkg --root="$R" --force-script-chrootless --log=/dev/null "$@"; }
dpkg_root -i "$server_deb" "$desktop_deb"
python3 tests/packaging/installed_files.py "$R"
# The system's own units (targets) beside the installed one, so verify resolves its dependencies.
cp -a -n /lib/systemd/system/. "$R/lib/systemd/system/"
systemd-analyze verify --root="$R" relay.service
echo "ok   systemd-analyze verify relay.service (installed)"

echo "--- relay serve exactly as relay.service starts it"
python3 tests/packaging/installed_server.py "$R"

echo "--- the desktop from its installed menu entry, through the launcher, under Xvfb"
command -v tauri-driver >/dev/null 2>&1 || export PATH="$PATH:${CARGO_HOME:-$HOME/.cargo}/bin"
xvfb-run -a -s "-screen 0 1280x800x24" python3 tests/desktop/webdriver_packaged.py "$R"

echo "--- dpkg --purge: package files and the conffile gone, data and the relay user kept"
dpkg_root --purge relay-desktop relay-server
for gone in usr/bin/relay usr/bin/relay-launcher usr/lib/relay-desktop usr/share/relay etc/relay/relay.env \
  lib/systemd/system/relay.service usr/lib/sysusers.d/relay.conf usr/share/applications/relay.desktop \
  etc/systemd/system/multi-user.target.wants/relay.service; do
  [ ! -e "$R/$gone" ] && [ ! -L "$R/$gone" ] || die "$gone is still there after purge"
done
[ -f "$R/var/lib/relay/store/relay.db" ] && [ -f "$R/var/lib/relay/secrets/passphrase" ] \
  || die "purge must leave /var/lib/relay (database, secrets)"
ls "$R/var/lib/relay/backups/"backup_*.zip >/dev/null || die "purge must leave the backups"
grep -q '^relay:' "$R/etc/passwd" || die "purge must leave the relay user"
echo "ok   purged: binaries, unit, enablement and /etc/relay/relay.env gone; /var/lib/relay and the relay user kept"
echo "packages ok ($((SECONDS - started)) s)"
