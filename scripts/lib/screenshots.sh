# Screenshot policy of the test scripts (sourced, not run; needs ROOT): a run writes its
# screenshots into the ignored target/screenshots/, so it changes no tracked file; with
# RELAY_UPDATE_SCREENSHOTS=1 a screenshot whose checks passed is also copied into
# docs/screenshots/, the tracked copies the README shows. tests/e2e/harness.mjs does the same.
SHOTS_DIR="$ROOT/target/screenshots"
DOC_SHOTS_DIR="$ROOT/docs/screenshots"
mkdir -p "$SHOTS_DIR"

# publish_screenshot FILE [NAME]: copies FILE to docs/screenshots/NAME (default: FILE's name)
# when RELAY_UPDATE_SCREENSHOTS=1; otherwise does nothing.
publish_screenshot() {
  local name="${2:-$(basename "$1")}"
  if [ "${RELAY_UPDATE_SCREENSHOTS:-}" = 1 ]; then
    cp "$1" "$DOC_SHOTS_DIR/$name"
    echo "updated docs/screenshots/$name"
  fi
}
