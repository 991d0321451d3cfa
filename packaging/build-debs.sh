#!/usr/bin/env bash
# Builds Relay's two Debian packages from prebuilt binaries with dpkg's own tools (dpkg-deb,
# dpkg-shlibdeps, dpkg-gencontrol), driven by the checked-in files beside this script:
#   OUT/relay-server_X.Y.Z_amd64.deb   /usr/bin/relay, the web UI (/usr/share/relay/ui),
#       relay.service (/lib/systemd/system), the relay user (/usr/lib/sysusers.d/relay.conf),
#       /etc/relay/relay.env (conffile), maintainer scripts (relay-server/)
#   OUT/relay-desktop_X.Y.Z_amd64.deb  /usr/bin/relay-launcher, the seed build
#       /usr/lib/relay-desktop/relay-desktop with its manifest seed.json (version, commit,
#       SHA-256), the menu entries Relay and Relay (recovery), the icon (relay-desktop/)
# plus each package's copyright, changelog, README.Debian and manual page (debian/, man/).
# Binaries are copied byte for byte: release builds are stripped by Cargo's release profile, and
# the seed must stay the very executable of the signed update archive (the updater's Repair
# compares a retained build with its release). --strip strips copies as dh_strip does (the test
# run's debug binaries). Depends comes from dpkg-shlibdeps (what the binaries link),
# Installed-Size from dpkg-gencontrol, md5sums as dh_md5sums writes them;
# files are root-owned (--root-owner-group) with their modification times clamped to
# SOURCE_DATE_EPOCH (default: the commit's time), so the same inputs give the same packages.
# scripts/release.sh calls it with the release's packaged binaries, scripts/test-packages.sh
# with the test run's debug binaries (--strip, and --fast: gzip -1 instead of xz). An existing output file is
# never replaced. Prints the two package paths.
# Why this and not cargo-deb: the test run packages the debug binaries it already built, with no
# packaging tool to compile first (CI has two cores), and dpkg's tools are the ones cargo-deb
# drives anyway; the control data stays in plain checked-in Debian files.
#
# usage: packaging/build-debs.sh --relay PATH --desktop PATH --launcher PATH --ui-dir DIR
#                                --version X.Y.Z --commit SHA --out-dir DIR [--strip] [--fast]
set -euo pipefail
umask 022
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"

die() { echo "build-debs: $*" >&2; exit 1; }

relay="" desktop="" launcher="" ui_dir="" version="" commit="" out_dir="" fast=0 strip=0
while [ "$#" -gt 0 ]; do
  case "$1" in
    --fast) fast=1; shift; continue ;;
    --strip) strip=1; shift; continue ;;
  esac
  [ "$#" -ge 2 ] || die "$1 needs a value"
  case "$1" in
    --relay) relay="$2" ;;
    --desktop) desktop="$2" ;;
    --launcher) launcher="$2" ;;
    --ui-dir) ui_dir="$2" ;;
    --version) version="$2" ;;
    --commit) commit="$2" ;;
    --out-dir) out_dir="$2" ;;
    *) die "unknown argument $1" ;;
  esac
  shift 2
done
for name in relay desktop launcher ui_dir version commit out_dir; do
  [ -n "${!name}" ] || die "--${name//_/-} is required"
done
[[ "$version" =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] || die "--version must be X.Y.Z"
[[ "$commit" =~ ^[0-9a-f]{40}$ ]] || die "--commit must be 40 lowercase hex characters"
for file in "$relay" "$desktop" "$launcher"; do
  [ -f "$file" ] || die "no file at $file"
  [ "$(head -c 4 "$file" | od -An -c | tr -d ' ')" = '177ELF' ] || die "$file is not an ELF executable"
done
[ -f "$ui_dir/index.html" ] || die "no built web UI at $ui_dir (cd ui && npm ci && npm run build)"
for tool in dpkg-deb dpkg-shlibdeps dpkg-gencontrol strip gzip sha256sum md5sum; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (apt-get install dpkg-dev binutils)"
done
arch="$(sed -n 's/^Architecture: //p' "$HERE/debian/control" | head -n1)"
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
server_deb="$out_dir/relay-server_${version}_${arch}.deb"
desktop_deb="$out_dir/relay-desktop_${version}_${arch}.deb"
for deb in "$server_deb" "$desktop_deb"; do
  [ ! -e "$deb" ] || die "$deb exists; outputs are never replaced"
done

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH="$(git -C "$ROOT" log -1 --format=%ct "$commit" 2>/dev/null || date +%s)"
fi
export SOURCE_DATE_EPOCH
maintainer="$(sed -n 's/^Maintainer: //p' "$HERE/debian/control" | head -n1)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
cp "$HERE/debian/control" "$work/debian/control"
cat >"$work/debian/changelog" <<EOF
relay ($version) unstable; urgency=medium

  * Relay $version, built from commit $commit.

 -- $maintainer  $(date -R -u -d "@$SOURCE_DATE_EPOCH")
EOF

# A copy of an executable (with --strip: stripped as dh_strip strips executables).
install_binary() {
  install -D -m 0755 "$1" "$2"
  if [ "$strip" = 1 ]; then strip --remove-section=.comment --remove-section=.note "$2"; fi
}

# copyright, changelog.gz and README.Debian under /usr/share/doc/<package>; the manual page
# of the package's command (packaging/man).
install_docs() {
  local package="$1" page="$2" doc="$work/debian/$1/usr/share/doc/$1" man="$work/debian/$1/usr/share/man/man1"
  install -D -m 0644 "$HERE/debian/copyright" "$doc/copyright"
  gzip -9n <"$work/debian/changelog" >"$doc/changelog.gz"
  install -m 0644 "$HERE/$package/README.Debian" "$doc/README.Debian"
  install -d -m 0755 "$man"
  gzip -9n <"$HERE/man/$page" >"$man/$page.gz"
  chmod 0644 "$doc/changelog.gz" "$man/$page.gz"
}

# DEBIAN/control (Depends from the binaries' shared libraries), md5sums, clamped times, the .deb.
finish() {
  local package="$1" deb="$2"
  shift 2
  local dir="$work/debian/$package" binaries=() binary
  for binary in "$@"; do binaries+=("-edebian/$package/$binary"); done
  mkdir -p "$dir/DEBIAN"
  (cd "$work" && dpkg-shlibdeps -T"debian/$package.substvars" "${binaries[@]}")
  local conffiles="$dir/DEBIAN/conffiles"
  (cd "$dir" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort | while read -r path; do
    if [ -f "$conffiles" ] && grep -qxF "/$path" "$conffiles"; then continue; fi
    md5sum "$path"
  done) >"$dir/DEBIAN/md5sums"
  chmod 0644 "$dir/DEBIAN/md5sums"
  (cd "$work" && dpkg-gencontrol -p"$package" -ldebian/changelog -cdebian/control \
    -T"debian/$package.substvars" -P"$dir")
  find "$dir" -depth -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  local compression=(-Zxz)
  [ "$fast" = 1 ] && compression=(-Zgzip -z1)
  dpkg-deb --root-owner-group "${compression[@]}" --build "$dir" "$deb" >/dev/null
  echo "$deb"
}

# relay-server
server="$work/debian/relay-server"
install_binary "$relay" "$server/usr/bin/relay"
mkdir -p "$server/usr/share/relay/ui"
cp -R "$ui_dir/." "$server/usr/share/relay/ui/"
find "$server/usr/share/relay/ui" -type d -exec chmod 0755 {} + -o -type f -exec chmod 0644 {} +
install -D -m 0644 "$HERE/relay-server/relay.service" "$server/lib/systemd/system/relay.service"
install -D -m 0644 "$HERE/relay-server/relay.sysusers" "$server/usr/lib/sysusers.d/relay.conf"
install -D -m 0644 "$HERE/relay-server/relay.env" "$server/etc/relay/relay.env"
install_docs relay-server relay.1
install -d -m 0755 "$server/DEBIAN"
for script in postinst prerm postrm; do
  install -m 0755 "$HERE/relay-server/$script" "$server/DEBIAN/$script"
done
install -m 0644 "$HERE/relay-server/conffiles" "$server/DEBIAN/conffiles"
finish relay-server "$server_deb" usr/bin/relay

# relay-desktop
desktop_dir="$work/debian/relay-desktop"
install_binary "$launcher" "$desktop_dir/usr/bin/relay-launcher"
install_binary "$desktop" "$desktop_dir/usr/lib/relay-desktop/relay-desktop"
seed_sha256="$(sha256sum "$desktop_dir/usr/lib/relay-desktop/relay-desktop" | cut -d' ' -f1)"
printf '{"version": "%s", "commit": "%s", "sha256": "%s"}\n' "$version" "$commit" "$seed_sha256" \
  >"$desktop_dir/usr/lib/relay-desktop/seed.json"
chmod 0644 "$desktop_dir/usr/lib/relay-desktop/seed.json"
for entry in relay.desktop relay-recovery.desktop; do
  install -D -m 0644 "$HERE/relay-desktop/$entry" "$desktop_dir/usr/share/applications/$entry"
done
install -D -m 0644 "$ROOT/app/desktop/icons/icon.png" "$desktop_dir/usr/share/icons/hicolor/64x64/apps/relay.png"
install_docs relay-desktop relay-launcher.1
finish relay-desktop "$desktop_deb" usr/bin/relay-launcher usr/lib/relay-desktop/relay-desktop
