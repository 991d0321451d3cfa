#!/usr/bin/env python3
"""Drives the desktop updater's dialog in the real relay-desktop window over WebDriver
(tauri-driver + WebKitWebDriver), against a fake GitHub on 127.0.0.1 that speaks the real wire
format (the "latest release" JSON of `infra::updater::test_support`, each asset API URL
answering `302` to the release-assets host, which streams the bytes slowly enough to watch),
with a throwaway minisign publisher key made here (Ed25519 over BLAKE2b-512, trusted comment
bound to version, commit and archive name):

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
import hashlib
import io
import json
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

WORK = tempfile.mkdtemp(prefix="relay-desktop-update-")
os.environ.setdefault("DESKTOP_WEBDRIVER_LOG", os.path.join(WORK, "webdriver.log"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webdriver_bridge import (call, click, close_session, invoke, log_text, open_session,  # noqa: E402
                              start_driver, stop_process, texts, wait_for)

VERSION = "0.2.0"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
ARCHIVE = f"relay-v{VERSION}-linux-x86_64.zip"
IDS = {ARCHIVE: 9001, ARCHIVE + ".sha256": 9002, ARCHIVE + ".minisig": 9003}
LATEST = "/repos/CrimsonSoul/Relay/releases/latest"
HISTORY = "/repos/CrimsonSoul/Relay/releases?per_page=20"
UNMANAGED = ("This installation is not managed by the Relay launcher, so it cannot restart into the new "
             "version; install it from the releases page.")
CHUNK = 64 * 1024
# The first archive download is slow enough to watch and cancel (~12 s); later ones are quick.
SLOW_DELAY, QUICK_DELAY = 0.25, 0.02


class Publisher:
    """A throwaway minisign key: `pub` is the base64 line of its minisign.pub."""

    def __init__(self):
        self.key = Ed25519PrivateKey.generate()
        self.key_id = secrets.token_bytes(8)
        raw = self.key.public_key().public_bytes_raw()
        self.pub = base64.b64encode(b"Ed" + self.key_id + raw).decode()

    def sign(self, data, trusted_comment):
        """minisign's prehashed (`ED`) signature file."""
        signature = self.key.sign(hashlib.blake2b(data, digest_size=64).digest())
        global_signature = self.key.sign(signature + trusted_comment.encode())
        return (f"untrusted comment: signature from a throwaway test key\n"
                f"{base64.b64encode(b'ED' + self.key_id + signature).decode()}\n"
                f"trusted comment: {trusted_comment}\n"
                f"{base64.b64encode(global_signature).decode()}\n").encode()


def release_zip():
    """One deflated, 0755 `relay-desktop`: an x86-64 ELF header and 3 MiB of incompressible bytes."""
    elf = bytearray(64)
    elf[:7] = b"\x7fELF\x02\x01\x01"
    elf[16:20] = (2).to_bytes(2, "little") + (62).to_bytes(2, "little")
    member = zipfile.ZipInfo("relay-desktop", date_time=(1980, 1, 1, 0, 0, 0))
    member.create_system = 3
    member.external_attr = 0o100755 << 16
    member.compress_type = zipfile.ZIP_DEFLATED
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr(member, bytes(elf) + secrets.token_bytes(3 * 1024 * 1024 - 64))
    return out.getvalue()


def release_files(publisher):
    archive = release_zip()
    checksum = f"{hashlib.sha256(archive).hexdigest()}  {ARCHIVE}\n".encode()
    signature = publisher.sign(archive, f"relay-release v{VERSION} {COMMIT} {ARCHIVE}")
    return {ARCHIVE: archive, ARCHIVE + ".sha256": checksum, ARCHIVE + ".minisig": signature}


def release_json(files):
    """GitHub's "latest release" object (the field names and shape of the real API)."""
    def asset(name, content_type):
        aid, data = IDS[name], files[name]
        return {
            "url": f"https://api.github.com/repos/CrimsonSoul/Relay/releases/assets/{aid}", "id": aid,
            "node_id": "RA_kwDOtest", "name": name, "label": "",
            "uploader": {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"},
            "content_type": content_type, "state": "uploaded", "size": len(data),
            "digest": f"sha256:{hashlib.sha256(data).hexdigest()}", "download_count": 0,
            "created_at": "2026-03-01T10:00:00Z", "updated_at": "2026-03-01T10:00:01Z",
            "browser_download_url": f"https://github.com/CrimsonSoul/Relay/releases/download/v{VERSION}/{name}",
        }
    return {
        "url": "https://api.github.com/repos/CrimsonSoul/Relay/releases/200000001",
        "assets_url": "https://api.github.com/repos/CrimsonSoul/Relay/releases/200000001/assets",
        "upload_url": "https://uploads.github.com/repos/CrimsonSoul/Relay/releases/200000001/assets{?name,label}",
        "html_url": f"https://github.com/CrimsonSoul/Relay/releases/tag/v{VERSION}", "id": 200000001,
        "author": {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}, "node_id": "RE_kwDOtest",
        "tag_name": f"v{VERSION}", "target_commitish": COMMIT, "name": f"Relay {VERSION}",
        "draft": False, "immutable": True, "prerelease": False,
        "created_at": "2026-03-01T09:59:00Z", "updated_at": "2026-03-01T10:00:02Z",
        "published_at": "2026-03-01T10:00:02Z",
        "assets": [asset(ARCHIVE, "application/zip"), asset(ARCHIVE + ".sha256", "text/plain"),
                   asset(ARCHIVE + ".minisig", "application/octet-stream")],
        "tarball_url": f"https://api.github.com/repos/CrimsonSoul/Relay/tarball/v{VERSION}",
        "zipball_url": f"https://api.github.com/repos/CrimsonSoul/Relay/zipball/v{VERSION}",
        "body": "## Fixes\n- the updater",
    }


def history_json(files):
    """GitHub's release-history answer: a draft, the offered release and the running one."""
    draft = dict(release_json(files), tag_name="v0.3.0", name="Relay 0.3.0", draft=True, published_at=None)
    running = dict(release_json(files), tag_name="v0.1.0", name="Relay 0.1.0", published_at="2026-02-01T09:00:00Z",
                   body="## First\r\n- notes &amp; <b>tags</b>\u0007")
    return [draft, release_json(files), running]


class FakeGitHub:
    """GitHub's API host and release-assets host, each on its own loopback port."""

    def __init__(self, files):
        self.files = files
        self.requests = []
        self.by_id = {aid: files[name] for name, aid in IDS.items()}
        self.api = self._serve(self._api)
        self.storage = self._serve(self._storage)

    def origin(self, server):
        return f"http://127.0.0.1:{server.server_address[1]}"

    def _serve(self, handle):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802 (http.server's name)
                fake.requests.append(self.path)
                handle(self)

            def log_message(self, *args):
                pass
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    def _api(self, req):
        if req.path in (LATEST, HISTORY):
            answer = release_json(self.files) if req.path == LATEST else history_json(self.files)
            body = json.dumps(answer).encode()
            req.send_response(200)
            req.send_header("Content-Type", "application/json; charset=utf-8")
            req.send_header("Content-Length", str(len(body)))
            req.end_headers()
            req.wfile.write(body)
            return
        m = re.fullmatch(r"/repos/CrimsonSoul/Relay/releases/assets/(\d+)", req.path)
        if m and int(m.group(1)) in self.by_id:
            req.send_response(302)
            req.send_header("Location", f"{self.origin(self.storage)}/github-production-release-asset/{m.group(1)}?sp=r&sig=x")
            req.send_header("Content-Length", "0")
            req.end_headers()
            return
        req.send_error(404)

    def _storage(self, req):
        m = re.fullmatch(r"/github-production-release-asset/(\d+)\?sp=r&sig=x", req.path)
        data = self.by_id.get(int(m.group(1))) if m else None
        if data is None:
            req.send_error(404)
            return
        req.send_response(200)
        req.send_header("Content-Type", "application/octet-stream")
        req.send_header("Content-Length", str(len(data)))
        req.end_headers()
        delay = SLOW_DELAY if self.archive_requests() <= 1 else QUICK_DELAY
        try:
            for at in range(0, len(data), CHUNK):
                req.wfile.write(data[at:at + CHUNK])
                req.wfile.flush()
                if len(data) > CHUNK:
                    time.sleep(delay)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client cancelled

    def archive_requests(self):
        return sum(1 for p in self.requests if p.startswith(f"/github-production-release-asset/{IDS[ARCHIVE]}"))

    def close(self):
        for server in (self.api, self.storage):
            server.shutdown()


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
    fake = FakeGitHub(release_files(publisher))
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
