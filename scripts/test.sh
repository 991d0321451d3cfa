#!/usr/bin/env bash
# Installs what the tests need (Debian packages, npm packages) and runs every test suite:
# formatting and lints, the supply-chain policy (cargo deny), Rust unit and black-box tests, the
# UI's Vitest suite and build, the Node test that drives the server with the official PocketBase
# SDK, and the browser end-to-end suite (Debian Chromium via playwright-core; no browser
# download). Safe to re-run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
# Screenshots go to target/screenshots/; RELAY_UPDATE_SCREENSHOTS=1 also refreshes docs/screenshots/.
. "$ROOT/scripts/lib/screenshots.sh"

# Debian packages the suites need beyond the Rust machine image (installed only when missing).
# The desktop shell (app/desktop, Tauri) needs WebKitGTK and friends to build; its screenshot step
# needs Xvfb and ImageMagick; webkit2gtk-driver is for WebDriver runs of the window. dbus and
# gnome-keyring give the secret-store tests a private Secret Service (dbus-run-session); x11-utils
# and xdotool find and answer the fatal-error dialog; iproute2, procps and util-linux (ip, pkill,
# unshare) build the network namespaces of the mDNS tests. poppler-utils gives the Wiki extraction
# worker its cover renderer (pdftoppm). dpkg-dev, lintian and systemd build, check and install the
# Debian packages (scripts/test-packages.sh: dpkg-shlibdeps, systemd-analyze, systemd-sysusers).
APT_PACKAGES=(ca-certificates chromium
  build-essential pkg-config libwebkit2gtk-4.1-dev libsoup-3.0-dev libjavascriptcoregtk-4.1-dev
  libgtk-3-dev librsvg2-dev libayatana-appindicator3-dev libxdo-dev xvfb xauth imagemagick webkit2gtk-driver
  dbus gnome-keyring x11-utils xdotool iproute2 procps util-linux poppler-utils dpkg-dev lintian systemd)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "==> apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

echo "==> npm ci (ui, tests/node, tests/e2e)"
(cd ui && npm ci --no-audit --no-fund --loglevel=error)
(cd tests/node && npm ci --no-audit --no-fund --loglevel=error)
(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)

echo "==> ui: vitest + production build"
(cd ui && npm test && npm run build)

echo "==> cargo fmt --check"
cargo fmt --all -- --check

echo "==> cargo clippy -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "==> cargo deny: licenses, bans, sources (deny.toml; offline, no advisory fetch)"
export PATH="$PATH:${CARGO_HOME:-$HOME/.cargo}/bin"
command -v cargo-deny >/dev/null 2>&1 \
  || CARGO_TARGET_DIR="$(mktemp -d)" cargo install cargo-deny --version '^0.20' --locked --quiet
cargo deny --offline --locked check licenses bans sources

echo "==> cargo test --workspace"
cargo test --workspace --locked

echo "==> docs/openapi.json: a valid OpenAPI 3.1 document (openapi-spec-validator)"
python3 -c 'import importlib.metadata as m, sys; v = m.version("openapi-spec-validator").split("."); sys.exit(0 if (int(v[0]), int(v[1])) >= (0, 9) else 1)' 2>/dev/null \
  || python3 -m pip install --quiet --disable-pip-version-check 'openapi-spec-validator>=0.9'
python3 -m openapi_spec_validator --schema 3.1 --validation-errors all docs/openapi.json

echo "==> signed envelopes: independent Python (cryptography) vectors"
python3 -c 'import cryptography, sys; sys.exit(0 if int(cryptography.__version__.split(".")[0]) >= 43 else 1)' 2>/dev/null \
  || python3 -m pip install --quiet --disable-pip-version-check 'cryptography>=43'
python3 tests/vectors/gen_envelope_vectors.py --check
echo "==> record fingerprints: independent Python vectors"
python3 tests/vectors/gen_record_fingerprints.py --check
RELAY_VECTOR_OUT="$TARGET_DIR/rust_signed_vectors.json" \
  cargo test -p domain --lib --locked envelope::tests::vectors_rust_signed_output
python3 tests/vectors/gen_envelope_vectors.py --verify-rust-signed "$TARGET_DIR/rust_signed_vectors.json"

echo "==> node: PocketBase SDK against the real relay binary"
(cd tests/node && RELAY_BIN="$TARGET_DIR/debug/relay" npm test)

echo "==> e2e: the web UI in Debian Chromium against the real relay binary"
(cd tests/e2e && RELAY_BIN="$TARGET_DIR/debug/relay" npm test)

echo "==> desktop: relay-desktop window under Xvfb (screenshot must not be blank)"
./scripts/desktop-screenshot.sh

echo "==> desktop: the typed bridge over WebDriver (tauri-driver + WebKitWebDriver, Xvfb)"
command -v tauri-driver >/dev/null 2>&1 \
  || CARGO_TARGET_DIR="$(mktemp -d)" cargo install tauri-driver --version '^2' --locked --quiet
DESKTOP_SIGNED_IN_SCREENSHOT="$SHOTS_DIR/desktop-signed-in.png" DESKTOP_BACKUP_SCREENSHOT="$SHOTS_DIR/desktop-data-administration.png" \
  xvfb-run -a -s "-screen 0 1280x800x24" python3 tests/desktop/webdriver_bridge.py "$TARGET_DIR/debug/relay-desktop"
publish_screenshot "$SHOTS_DIR/desktop-signed-in.png"
publish_screenshot "$SHOTS_DIR/desktop-data-administration.png"

echo "==> desktop: the server PC's Administration screen over WebDriver (sign-in, accounts, pairing, roles, idle lock)"
DESKTOP_ADMIN_SCREENSHOT="$SHOTS_DIR/desktop-administration.png" \
  xvfb-run -a -s "-screen 0 1280x800x24" python3 tests/desktop/webdriver_admin.py "$TARGET_DIR/debug/relay-desktop" "$TARGET_DIR/debug/relay"
publish_screenshot "$SHOTS_DIR/desktop-administration.png"

echo "==> desktop: Wiki publishing in the Administration screen over WebDriver (upload two PDFs, one failing; publish, trash, restore)"
DESKTOP_WIKI_SCREENSHOT="$SHOTS_DIR/desktop-wiki-admin.png" \
  xvfb-run -a -s "-screen 0 1280x800x24" python3 tests/desktop/webdriver_wiki_admin.py "$TARGET_DIR/debug/relay-desktop" "$TARGET_DIR/debug/relay"
publish_screenshot "$SHOTS_DIR/desktop-wiki-admin.png"

echo "==> desktop: the Update dialog over WebDriver against a fake GitHub (check, download with progress, cancel, download, prepare, restart message; a backup restore leaves the updater alone)"
DESKTOP_UPDATE_SCREENSHOT="$SHOTS_DIR/desktop-update.png" \
  xvfb-run -a -s "-screen 0 1280x800x24" python3 tests/desktop/webdriver_update.py "$TARGET_DIR/debug/relay-desktop"
publish_screenshot "$SHOTS_DIR/desktop-update.png"

echo "==> desktop: the recovery launcher's health link over WebDriver (a real pipe on fd 3: nothing before the signed-in shell, then mounted and heartbeats; a malformed transaction writes nothing)"
xvfb-run -a -s "-screen 0 1280x800x24" python3 tests/desktop/webdriver_launcher_link.py "$TARGET_DIR/debug/relay-desktop"

echo "==> desktop: the recovery launcher end to end over WebDriver (real relay-launcher and runtimes, temporary HOME, fake GitHub: bootstrap, hand-off, promotion, two rollbacks, quarantine, data snapshot restored)"
# relay-launcher is in $TARGET_DIR/debug: `cargo test --workspace` builds it for its black-box tests.
xvfb-run -a -s "-screen 0 1280x800x24" python3 tests/desktop/webdriver_launcher_update.py "$TARGET_DIR/debug/relay-desktop"

echo "==> desktop: manual recovery over WebDriver (real relay-launcher and runtimes, fake GitHub: the Owner's Repair of a changed retained build from its release by tag, Roll back into it through the launcher)"
xvfb-run -a -s "-screen 0 1280x800x24" python3 tests/desktop/webdriver_launcher_recovery.py "$TARGET_DIR/debug/relay-desktop" "$TARGET_DIR/debug/relay"

echo "==> desktop: fatal-error dialog in the real window (injected server-thread panic, answered Quit)"
./scripts/desktop-fatal-dialog.sh "$TARGET_DIR/debug/relay-desktop"

echo "==> desktop: client mode over WebDriver with the OS secret store (private D-Bus + gnome-keyring)"
DESKTOP_SETUP_SCREENSHOT="$SHOTS_DIR/desktop-setup.png" \
  ./scripts/desktop-client-flow.sh "$TARGET_DIR/debug/relay-desktop" "$TARGET_DIR/debug/relay"
publish_screenshot "$SHOTS_DIR/desktop-setup.png"

echo "==> desktop: the paired laptop over WebDriver (client mode pairs as a Publisher's device, key in the keyring, signed command, revocation)"
./scripts/desktop-client-flow.sh "$TARGET_DIR/debug/relay-desktop" "$TARGET_DIR/debug/relay" webdriver_laptop.py

echo "==> desktop: offline client mode over WebDriver (cached data, queued edits, replay, conflict review)"
DESKTOP_OFFLINE_SCREENSHOT="$SHOTS_DIR/desktop-offline-review.png" \
  ./scripts/desktop-offline-flow.sh "$TARGET_DIR/debug/relay-desktop" "$TARGET_DIR/debug/relay"
publish_screenshot "$SHOTS_DIR/desktop-offline-review.png"

echo "==> desktop: LAN discovery between two windows inside an isolated network namespace (unshare -n)"
./scripts/desktop-discovery-flow.sh "$TARGET_DIR/debug/relay-desktop"

echo "==> packages: relay-server and relay-desktop .debs from the debug binaries (lintian, systemd-analyze, installed with dpkg --root into a scratch root, the service's ExecStart signs in, the desktop's menu entry starts the seed under Xvfb, purge keeps data)"
./scripts/test-packages.sh

echo "==> all suites passed"
