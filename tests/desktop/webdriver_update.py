#!/usr/bin/env python3
"""Drives the desktop updater's dialog in the real relay-desktop window over WebDriver
(tauri-driver + WebKitWebDriver), against a fake GitHub on 127.0.0.1 that speaks the real wire
format (the "latest release" JSON of `infra::updater::test_support`, each asset API URL
answering `302` to the release-assets host, which streams the bytes slowly enough to watch),
with a throwaway minisign publisher key (Ed25519 over BLAKE2b-512, trusted comment bound to
version, commit and archive name; all three in fake_github.py):

1. fresh data dir and XDG_DATA_HOME, server-mode desktop; the debug build points GitHub's API
   and release-assets hosts at the fake (RELAY_TEST_UPSTREAM_GITHUB_*) and verifies with the
   test key (RELAY_TEST_UPDATER_PUBLISHER_KEY); signed in, Settings → About shows v0.1.0;
2. "Updates…" opens the Update dialog (a modal); Check for updates offers v0.2.0, and the header
   shows "Update · v0.2.0"; after the checks, `update_release_notes` answers the fake's release
   history (the draft skipped, v0.1.0 marked current, no HTML unescaped) and its cache
   `notes/release-notes.json` is 0600;
3. Download: the progressbar's aria-valuenow and the bytes ("… of 3.0 MiB") move while the
   staging directory holds the `.part` file; Cancel download returns to "available" with the
   staging directory gone;
4. Download again: it ends "downloaded and verified"; nothing was prepared; Prepare ends
   "prepared" with the executable 0700 in a `v0.2.0-<uuid>` directory;
5. Restart answers the verified version and commit with `handedOff` false and shows "This
   installation is not managed by the Relay launcher, so it cannot restart into the new version;
   install it from the releases page.": this debug build is not a runtime of a launcher-managed
   root (it stays supported only because it runs against the loopback GitHub test endpoint), so
   nothing is installed or executed and the app keeps running;
6. a backup restore (backup_create, backup_restore) ends the server's actix System generation
   and starts the next one: the updater, on its own thread, is untouched (still "prepared", the
   executable still staged and verified by Restart), and the header's "Update · v0.2.0" opens
   the dialog again.

Run under Xvfb: xvfb-run -a python3 tests/desktop/webdriver_update.py DESKTOP_BIN [RELAY_BIN]
(RELAY_BIN is accepted like the other flows' and not needed.)
(DESKTOP_UPDATE_SCREENSHOT=PATH saves a screenshot of the dialog during the download.)
"""
import base64
import os
import re
import shutil
import stat
import sys
import tempfile
import time

WORK = tempfile.mkdtemp(prefix="relay-desktop-update-")
os.environ.setdefault("DESKTOP_WEBDRIVER_LOG", os.path.join(WORK, "webdriver.log"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webdriver_bridge import (call, click, close_session, invoke, log_text, open_session,  # noqa: E402
                              start_driver, stop_process, texts, wait_for)
from fake_github import HISTORY, FakeGitHub, Publisher, Release, archive_name  # noqa: E402

VERSION = "0.2.0"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
ARCHIVE = archive_name(VERSION)
UNMANAGED = ("This installation is not managed by the Relay launcher, so it cannot restart into the new "
             "version; install it from the releases page.")
# The first archive download is slow enough to watch and cancel (~12 s); later ones are quick.
SLOW_DELAY, QUICK_DELAY = 0.25, 0.02


def state_text(sid):
    return " ".join(texts(sid, "[data-testid=update-state]"))


def enabled(sid):
    script = ("return [...document.querySelectorAll('[data-testid=update-dialog] button[data-testid^=update-]')]"
              ".filter(b => !b.disabled).map(b => b.dataset.testid.slice(7));")
    return call("POST", f"/session/{sid}/execute/sync", {"script": script, "args": []})["value"]


def progress(sid):
    script = ("const bar = document.querySelector('[data-testid=update-dialog] [role=progressbar]');"
              "const bytes = document.querySelector('[data-testid=update-bytes]');"
              "return bar && [Number(bar.getAttribute('aria-valuenow')), bytes ? bytes.textContent : ''];")
    return call("POST", f"/session/{sid}/execute/sync", {"script": script, "args": []})["value"]


def staging(updates):
    """The staging directories (the release-notes cache's `notes` directory is not one)."""
    return sorted(n for n in os.listdir(updates) if n != "notes") if os.path.isdir(updates) else []


def check_release_notes(sid, fake, updates):
    def answered():
        notes = invoke(sid, "update_release_notes").get("ok") or {}
        return notes.get("releases") and notes
    notes = wait_for("the release notes", answered, timeout=30)
    assert HISTORY in fake.requests, fake.requests
    got = [(r["version"], r["title"], r["publishedAt"], r["current"]) for r in notes["releases"]]
    assert got == [(VERSION, "Relay 0.2.0", "2026-03-01T10:00:02Z", False),
                   ("0.1.0", "Relay 0.1.0", "2026-02-01T09:00:00Z", True)], got
    assert notes["releases"][1]["body"] == "## First\n- notes &amp; <b>tags</b>", notes["releases"][1]
    assert isinstance(notes["fetchedAtMs"], int), notes
    assert sorted(notes["releases"][0]) == ["body", "current", "publishedAt", "title", "version"], notes
    cache = os.path.join(updates, "notes", "release-notes.json")
    assert stat.S_IMODE(os.lstat(cache).st_mode) == 0o600, oct(os.lstat(cache).st_mode)
    assert stat.S_IMODE(os.lstat(os.path.dirname(cache)).st_mode) == 0o700
    print(f"ok   update_release_notes: {[g[0] for g in got]} (the draft skipped, v0.1.0 current); cache 0600")


def sign_in(sid, data_dir):
    with open(os.path.join(data_dir, "secrets", "passphrase"), encoding="utf-8") as f:
        secret = f.read().strip()
    el = call("POST", f"/session/{sid}/element", {"using": "css selector", "value": "[data-testid=signin-passphrase]"})
    el = list(el["value"].values())[0]
    call("POST", f"/session/{sid}/element/{el}/value", {"text": secret})
    click(sid, "button[type=submit]")
    wait_for('status bar "Connected"', lambda: "Connected" in " ".join(texts(sid, "[data-testid=status-connection]")))


def check_about_and_check(sid):
    click(sid, "[data-testid=nav-settings]")
    version = wait_for("Settings → About", lambda: " ".join(texts(sid, "[data-testid=about-version]")), timeout=20)
    assert version == "Relay v0.1.0", version
    click(sid, "[data-testid=about-updates]")
    wait_for("the Update dialog", lambda: texts(sid, "[data-testid=update-dialog]"))
    role = call("POST", f"/session/{sid}/execute/sync", {"script": (
        "const d = document.querySelector('[data-testid=update-dialog]');"
        "return [d.getAttribute('role'), d.getAttribute('aria-modal'), d.contains(document.activeElement)];"),
        "args": []})["value"]
    assert role == ["dialog", "true", True], f"the dialog is not a focused modal: {role}"
    wait_for("Check enabled", lambda: "check" in enabled(sid))
    click(sid, "[data-testid=update-check]")
    offered = wait_for("the offer", lambda: "Relay v0.2.0 is available" in state_text(sid) and state_text(sid))
    assert enabled(sid) == ["check", "download"], enabled(sid)
    header = wait_for("the header action", lambda: texts(sid, "[data-testid=update-open]"))
    assert header == ["Update · v0.2.0"], header
    print(f"ok   About shows Relay v0.1.0; Check offers v0.2.0 ({offered!r}); header {header[0]!r}")


def check_download_and_cancel(sid, fake, updates):
    click(sid, "[data-testid=update-download]")
    first = wait_for("download progress", lambda: (p := progress(sid)) and p[0] > 0 and p)
    later = wait_for("more bytes", lambda: (p := progress(sid)) and p[0] > first[0] and p)
    assert re.fullmatch(r"\d+(\.\d)? (KiB|MiB) of 3\.0 MiB", later[1]), later
    out = os.environ.get("DESKTOP_UPDATE_SCREENSHOT")
    if out:
        with open(out, "wb") as f:
            f.write(base64.b64decode(call("GET", f"/session/{sid}/screenshot")["value"]))
        print(f"ok   screenshot of the download -> {out}")
    [dir_name] = staging(updates)
    assert re.fullmatch(r"v0\.2\.0-[0-9a-f-]{36}", dir_name), dir_name
    assert ARCHIVE + ".part" in os.listdir(os.path.join(updates, dir_name))
    assert enabled(sid) == ["check", "cancel"], enabled(sid)
    click(sid, "[data-testid=update-cancel]")
    wait_for("available again", lambda: enabled(sid) == ["check", "download"] and "is available" in state_text(sid))
    wait_for("the staging directory removed", lambda: staging(updates) == [], timeout=10)
    print(f"ok   Download showed {first} then {later} (aria-valuenow, bytes); Cancel restored 'available' "
          f"and removed {dir_name}")


def check_download_prepare_restart(sid, fake, updates):
    click(sid, "[data-testid=update-download]")
    done = wait_for("the verified download", lambda: "downloaded and verified" in state_text(sid) and state_text(sid),
                    timeout=90)
    assert fake.archive_requests() == 2, fake.requests
    assert enabled(sid) == ["check", "prepare"], enabled(sid)
    [dir_name] = staging(updates)
    assert os.listdir(os.path.join(updates, dir_name)) and "relay-desktop" not in os.listdir(os.path.join(updates, dir_name)), \
        "a download prepared by itself"
    click(sid, "[data-testid=update-prepare]")
    wait_for("prepared", lambda: "is prepared" in state_text(sid), timeout=60)
    exe = os.path.join(updates, dir_name, "relay-desktop")
    mode = stat.S_IMODE(os.lstat(exe).st_mode)
    assert mode == 0o700, oct(mode)
    assert enabled(sid) == ["check", "restart"], enabled(sid)
    click(sid, "[data-testid=update-restart]")
    message = wait_for("Restart's message", lambda: " ".join(texts(sid, "[data-testid=update-message]")))
    assert UNMANAGED in message and "Relay v0.2.0 (commit 0123456789ab)" in message, message
    answer = invoke(sid, "update_restart")
    assert answer.get("ok", {}).get("handedOff") is False and answer["ok"]["commit"] == COMMIT, answer
    assert "executable" not in answer["ok"], answer
    assert invoke(sid, "connection_info")["ok"]["mode"] == "server", "the app should still run"
    print(f"ok   Download again: {done!r}; Prepare: {exe[len(updates):]} (0700); Restart: {message!r}")


def check_restore_leaves_the_updater_alone(sid, updates):
    created = invoke(sid, "backup_create")
    assert "ok" in created, created
    staged = invoke(sid, "backup_restore", {"name": created["ok"]["name"]})
    assert "ok" in staged, staged
    safety = staged["ok"]["safety"]["name"]

    def restored():
        status = invoke(sid, "backup_status").get("ok") or {}
        last = status.get("lastRestore") or {}
        return last.get("safety") == safety and last["result"]["state"] in ("installed", "serving") and last
    last = wait_for("the server restarted on the restored data", restored, timeout=120)
    status = invoke(sid, "update_status")["ok"]
    assert status["phase"] == "prepared" and status["latestVersion"] == VERSION, status
    [dir_name] = staging(updates)
    assert "relay-desktop" in os.listdir(os.path.join(updates, dir_name)), "the prepared executable is gone"
    again = invoke(sid, "update_restart")
    assert again.get("ok", {}).get("version") == VERSION, again
    click(sid, "[data-testid=update-dialog] .modal-x")
    wait_for("the dialog closed", lambda: not texts(sid, "[data-testid=update-dialog]"))
    click(sid, "[data-testid=update-open]")
    wait_for("the dialog from the header", lambda: "is prepared" in state_text(sid))
    print(f"ok   a backup restore restarted the server ({last['result']['state']}); the updater kept "
          f"'prepared' and {dir_name}; the header action reopened the dialog")


def main():
    app = os.path.abspath(sys.argv[1])
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/relay-no-bus"
    publisher = Publisher()
    fake = FakeGitHub(Release(publisher, VERSION, COMMIT), SLOW_DELAY, QUICK_DELAY)
    xdg = os.path.join(WORK, "xdg-data")
    os.makedirs(xdg, mode=0o700)
    updates = os.path.join(xdg, "relay", "updates")
    # The app inherits the environment of tauri-driver (through WebKitWebDriver).
    os.environ["XDG_DATA_HOME"] = xdg
    os.environ["RELAY_TEST_UPSTREAM_GITHUB_API"] = fake.origin(fake.api)
    os.environ["RELAY_TEST_UPSTREAM_GITHUB_RELEASE_ASSETS"] = fake.origin(fake.storage)
    os.environ["RELAY_TEST_UPDATER_PUBLISHER_KEY"] = publisher.pub
    data_dir = os.path.join(WORK, "data")
    started = time.monotonic()
    proc = start_driver()
    sid = None
    ok = False
    try:
        sid = open_session(app, ["--data-dir", data_dir, "--server-mode", "--bind", "127.0.0.1", "--no-mdns",
                                 "--port", "0"])
        assert invoke(sid, "connection_info")["ok"]["mode"] == "server"
        sign_in(sid, data_dir)
        check_about_and_check(sid)
        check_release_notes(sid, fake, updates)
        check_download_and_cancel(sid, fake, updates)
        check_download_prepare_restart(sid, fake, updates)
        check_restore_leaves_the_updater_alone(sid, updates)
        assert publisher.pub not in log_text(), "the test key reached the log"
        ok = True
    finally:
        if not ok:
            print("---- webdriver/app log (tail) ----\n" + "\n".join(log_text().splitlines()[-40:]), file=sys.stderr)
        close_session(sid)
        stop_process(proc)
        fake.close()
        shutil.rmtree(WORK, ignore_errors=True)
    print(f"desktop update flow ok ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
