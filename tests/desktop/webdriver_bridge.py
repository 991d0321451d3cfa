#!/usr/bin/env python3
"""Drives the real relay-desktop window over WebDriver (tauri-driver + WebKitWebDriver) and
checks the typed bridge from inside the renderer: the sign-in screen renders, connection_info
carries the in-process server URL but no passphrase, health comes from the health actor,
open_external refuses an off-allowlist link and open_aux_window refuses an unknown route.
The enforced CSP's connect-src is narrowed to the server origin. Then the desktop sign-in end to end: the passphrase (from reveal_passphrase) typed into the
sign-in screen reaches the in-process server cross-origin (tauri://localhost → the server's
CORS rule), the status bar reads "Connected", People lists a contact seeded over the API, and a
contact created afterwards arrives over the realtime SSE stream.
Run under Xvfb: xvfb-run -a python3 tests/desktop/webdriver_bridge.py BIN
"""
import base64
import http.client
import json
import os
import shutil
import stat
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import sys
import tempfile
import time
import urllib.error
import urllib.request

PORT = int(os.environ.get("TAURI_DRIVER_PORT", "4444"))
BASE = f"http://127.0.0.1:{PORT}"
# tauri-driver and the app's own log (the app inherits tauri-driver's output); read back by
# checks that look for the app's security log lines.
LOG_PATH = os.environ.get("DESKTOP_WEBDRIVER_LOG") or tempfile.mkstemp(prefix="relay-desktop-wd-", suffix=".log")[1]
LOG = open(LOG_PATH, "ab")


def log_text():
    LOG.flush()
    with open(LOG_PATH, "rb") as f:
        return f.read().decode("utf-8", "replace")


def call(method, path, body=None, timeout=60, attempts=3):
    data = None if body is None else json.dumps(body).encode()
    for attempt in range(attempts):
        req = urllib.request.Request(BASE + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as res:
                return json.loads(res.read() or b"{}")
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"{method} {path}: {e.code} {e.read()[:500]!r}") from None
        except (http.client.RemoteDisconnected, ConnectionResetError) as e:
            # tauri-driver proxies over pooled keep-alive connections to WebKitWebDriver; when it
            # reuses one WebKitWebDriver has just closed, the request fails without an answer
            # ("client error (SendRequest)" in its log). The session itself is fine: send again.
            if attempt + 1 == attempts:
                raise
            print(f"warn: {method} {path}: {e!r}; retrying", file=sys.stderr)
            time.sleep(0.5)


def invoke(sid, command, args=None):
    script = (
        "const done = arguments[arguments.length - 1];"
        "window.__TAURI__.core.invoke(arguments[0], arguments[1])"
        ".then(ok => done({ok}), err => done({err}));"
    )
    return call("POST", f"/session/{sid}/execute/async", {"script": script, "args": [command, args or {}]})["value"]


def driver_ready():
    try:
        return call("GET", "/status", timeout=2, attempts=1) is not None
    except Exception:  # noqa: BLE001 (not listening yet)
        return False


def start_driver():
    """tauri-driver on PORT (WebKitWebDriver on PORT + 1), ready to take a session."""
    driver = shutil.which("tauri-driver") or os.path.expanduser("~/.cargo/bin/tauri-driver")
    proc = subprocess.Popen([driver, "--port", str(PORT), "--native-port", str(PORT + 1)],
                            stdout=LOG, stderr=subprocess.STDOUT)
    wait_for("tauri-driver", driver_ready, timeout=15)
    return proc


def open_session(app, args):
    """A WebDriver session that launches `app` with `args` (30 s scripts, 10 s implicit waits)."""
    caps = {"capabilities": {"alwaysMatch": {"tauri:options": {"application": app, "args": args}}}}
    # A stale pooled connection inside tauri-driver fails the request before it reaches
    # WebKitWebDriver (see `call`), so one more attempt cannot start a second app.
    sid = call("POST", "/session", caps, attempts=2)["value"]["sessionId"]
    call("POST", f"/session/{sid}/timeouts", {"script": 30000, "implicit": 10000})
    return sid


def close_session(sid):
    """Ends a WebDriver session (closing its app); failures are only reported."""
    if not sid:
        return
    try:
        call("DELETE", f"/session/{sid}", timeout=20)
    except Exception as e:  # noqa: BLE001
        print(f"warn: closing the session: {e}", file=sys.stderr)


def stop_process(proc):
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def element(sid, css):
    return list(call("POST", f"/session/{sid}/element", {"using": "css selector", "value": css})["value"].values())[0]


def click(sid, css):
    call("POST", f"/session/{sid}/element/{element(sid, css)}/click", {})


def click_that_restarts(sid, css):
    """Clicks a control whose action restarts the app (saving the setup): the app may exit
    before WebKitWebDriver answers, so a lost reply is expected; the caller checks the effect."""
    try:
        click(sid, css)
    except RuntimeError as e:
        print(f"note the click's reply was lost to the app restart ({str(e)[:80]})")


def texts(sid, css):
    """textContent of all elements matching css right now (no implicit wait)."""
    script = "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent.trim());"
    return call("POST", f"/session/{sid}/execute/sync", {"script": script, "args": [css]})["value"]


def wait_for(what, check, timeout=30):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.3)
    raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")


def api(server, method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = token
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=20) as res:
        return json.loads(res.read() or b"{}")


def check_connect_src(sid, server):
    """The window's CSP (as enforced) allows the server origin and nothing else off-app."""
    script = (
        "const done = arguments[arguments.length - 1];"
        "document.addEventListener('securitypolicyviolation', e => done({"
        " directive: e.effectiveDirective, blocked: e.blockedURI, policy: e.originalPolicy}), {once: true});"
        "fetch('http://127.0.0.1:9/csp-probe').catch(() => {});"
        "setTimeout(() => done({directive: null}), 5000);"
    )
    v = call("POST", f"/session/{sid}/execute/async", {"script": script, "args": []})["value"]
    assert v.get("directive") == "connect-src", f"a fetch to another port was not refused by the CSP: {v}"
    connect = next(d for d in v["policy"].split(";") if d.strip().startswith("connect-src")).split()[1:]
    assert server in connect and "http://127.0.0.1:*" not in connect, connect
    print(f"ok   CSP connect-src is {' '.join(connect)} (another port refused)")


def check_window_open_handler(sid):
    """window.open from a real click (a user gesture, so WebKit asks the app instead of dropping
    it as an unrequested popup) reaches the shell's new-window handler, which refuses it and logs
    the target's origin only."""
    before = len(call("GET", f"/session/{sid}/window/handles")["value"])
    probe = ("const b = document.createElement('button'); b.id = 'window-open-probe'; b.textContent = 'probe';"
             "b.onclick = () => { window.__probe = window.open('https://evil.example/popup?token=wo-secret-123'); };"
             "document.body.appendChild(b); return true;")
    call("POST", f"/session/{sid}/execute/sync", {"script": probe, "args": []})
    click(sid, '#window-open-probe')
    line = wait_for("the new-window refusal in the app log",
                    lambda: [ln for ln in log_text().splitlines() if "new window blocked" in ln], timeout=10)[-1]
    assert "https://evil.example" in line and "wo-secret-123" not in log_text() and "/popup" not in line, line
    assert len(call("GET", f"/session/{sid}/window/handles")["value"]) == before, "window.open created a window"
    call("POST", f"/session/{sid}/execute/sync",
         {"script": "document.getElementById('window-open-probe').remove(); return true;", "args": []})
    print(f"ok   window.open from a click refused by the new-window handler (log: origin only)")


def sign_in_flow(sid, server, secret):
    revealed = invoke(sid, "reveal_passphrase")
    assert revealed.get("ok") == secret, "reveal_passphrase did not return the data-dir passphrase"
    token = api(server, "POST", "/api/collections/users/auth-with-password",
                {"identity": "relay", "password": secret})["token"]
    api(server, "POST", "/api/collections/contacts/records",
        {"name": "Ada Lovelace", "email": "ada@example.com", "title": "Engineer"}, token)

    call("POST", f"/session/{sid}/element/{element(sid, '[data-testid=signin-passphrase]')}/value",
         {"text": secret})
    click(sid, 'button[type=submit]')
    state = wait_for('status bar "Connected"',
                     lambda: "Connected" in texts(sid, "[data-testid=status-connection]"), timeout=30)
    assert state
    print("ok   signed in from the desktop window (status bar: Connected)")

    click(sid, '[data-testid=nav-people]')
    rows = wait_for("the seeded contact in People",
                    lambda: [t for t in texts(sid, "[data-testid=contact-row]") if "Ada Lovelace" in t], timeout=20)
    count = texts(sid, "[data-testid=people-count]")
    assert count == ["1 of 1"], count
    print(f"ok   People lists the seeded contact ({count[0]}: {rows[0]!r})")

    api(server, "POST", "/api/collections/contacts/records",
        {"name": "Grace Hopper", "email": "grace@example.com", "title": "Admiral"}, token)
    wait_for("the new contact over realtime",
             lambda: [t for t in texts(sid, "[data-testid=contact-row]") if "Grace Hopper" in t], timeout=20)
    wait_for('"2 of 2"', lambda: texts(sid, "[data-testid=people-count]") == ["2 of 2"], timeout=10)
    assert "Connected" in texts(sid, "[data-testid=status-connection]")
    print("ok   a contact created over the API arrived in the window via realtime (2 of 2)")


def check_reload_keeps_the_session(sid):
    """A reload of the signed-in main window signs in again with the shell's passphrase (#19)."""
    call("POST", f"/session/{sid}/refresh", {})
    wait_for('status bar "Connected" after a reload',
             lambda: "Connected" in texts(sid, "[data-testid=status-connection]"), timeout=30)
    assert not texts(sid, "[data-testid=signin-passphrase]"), "the reload asked for the passphrase again"
    click(sid, '[data-testid=nav-people]')
    wait_for("People after the reload", lambda: texts(sid, "[data-testid=people-count]") == ["2 of 2"], timeout=20)
    print("ok   a reload of the main window signed in again without asking for the passphrase (People 2 of 2)")


def open_window(sid, command, args, label, what):
    """Invokes a window-opening command from the current (main) window and waits for the new
    window; returns the main window's handle, the handles before, and the new one."""
    main_handle = call("GET", f"/session/{sid}/window")["value"]
    before = set(call("GET", f"/session/{sid}/window/handles")["value"])
    opened = invoke(sid, command, args)
    assert opened.get("ok") == label, opened
    new = wait_for(what, lambda: set(call("GET", f"/session/{sid}/window/handles")["value"]) - before, timeout=15)
    return main_handle, before, new.pop()


def check_popout_borrows_the_session(sid):
    """After the main window signed in, a popout opens signed in with the borrowed session
    (aux_session): the read-only board renders and no sign-in screen is shown."""
    main_handle, _, popout = open_window(sid, "open_aux_window", {"route": "popout/board"}, "aux-popout-board",
                                         "the popout window")
    call("POST", f"/session/{sid}/window", {"handle": popout})
    wait_for("the read-only board in the popout", lambda: texts(sid, "[data-testid=board-week]"), timeout=20)
    assert not texts(sid, "[data-testid=signin-submit]"), "the popout asked for the passphrase"
    shared = invoke(sid, "share_session", {"token": None})
    assert shared.get("err", {}).get("code") == "forbidden", shared
    call("POST", f"/session/{sid}/window", {"handle": main_handle})
    assert invoke(sid, "aux_session").get("err", {}).get("code") == "forbidden", "main window borrowed"
    print("ok   popout opened signed in with the main window's session; share_session is main-only, "
          "aux_session aux-only")


def probe_results(after):
    """The probe reports the popout's results as the origin of a navigation the Dynatrace rule
    blocks (lockdown::DYNATRACE_PROBE); the log names origins only. Returns the results after
    `after` log lines."""
    def found():
        lines = log_text().splitlines()[after:]
        return [l for l in lines if "dynatrace popout navigation blocked" in l and "probe-" in l]
    line = wait_for("the popout probe's report in the app log", found, timeout=20)[-1]
    report = line.split("probe-", 1)[1].split(".evil.example", 1)[0]
    ipc, held, perm, popup = report.split("-")
    return {"ipc": ipc, "held": held, "perm": perm, "popup": popup}


def check_dynatrace_popout(sid, data_dir):
    """The Dynatrace popout runs in its own WebKit context and store, which WebDriver (one
    automated context) cannot see: open_dynatrace answers, but no window joins the app's
    handles. The debug-only probe in the popout (RELAY_TEST_DYNATRACE_PROBE=1) reports through a
    blocked navigation: no IPC, window.open refused, the permission request not granted, and
    its data kept in DATA/webviews/dynatrace-0 (0700) across a re-navigation; the
    navigation rule's own log line names the origin only. "Clear Dynatrace session" closes it,
    deletes that store, and the next popout starts empty in dynatrace-1."""
    url = "https://abc12345.live.dynatrace.com/ui/dashboards?dt=dt-query-777"
    before = set(call("GET", f"/session/{sid}/window/handles")["value"])
    mark = len(log_text().splitlines())
    opened = invoke(sid, "open_dynatrace", {"url": url})
    assert opened.get("ok") == "dynatrace", opened
    first = probe_results(mark)
    assert first["ipc"] in ("absent", "refused"), f"the Dynatrace popout must have no IPC: {first}"
    assert (first["perm"], first["popup"]) == ("denied", "refused"), first
    # Without network the popout shows WebKit's error page, whose opaque origin has no storage;
    # with storage (a reachable page) the store must start empty.
    storage = first["held"] != "nostorage"
    assert first["held"] in ("empty", "nostorage"), first
    time.sleep(1)
    assert set(call("GET", f"/session/{sid}/window/handles")["value"]) == before, \
        "the popout joined the app's browser context"
    store = os.path.join(data_dir, "webviews", "dynatrace-0")
    assert os.path.isdir(store) and stat.S_IMODE(os.stat(store).st_mode) == 0o700, store
    wait_for("WebKit writing the popout's data into its own store", lambda: os.listdir(store), timeout=15)
    # The same popout re-navigated: its store kept what it stored.
    mark = len(log_text().splitlines())
    assert invoke(sid, "open_dynatrace", {"url": url}).get("ok") == "dynatrace"
    again = probe_results(mark)
    assert again["held"] == ("kept" if storage else "nostorage"), again
    app_storage = call("POST", f"/session/{sid}/execute/sync", {
        "script": "return localStorage.getItem('relay-probe');", "args": []})["value"]
    assert app_storage is None, f"the app's storage holds the popout's data: {app_storage}"
    assert "dt-query-777" not in log_text(), "full URLs logged"
    states = invoke(sid, "dynatrace_popouts").get("ok")
    assert states == {"": "blocked"}, f"the probe's blocked navigation is the popout's state: {states}"
    # A dashboard's own popout, closed by key (a removed dashboard).
    keyed = invoke(sid, "open_dynatrace", {"url": url, "key": "dt_webdriver-1"})
    assert keyed.get("ok") == "dynatrace-dt_webdriver-1", keyed
    assert invoke(sid, "open_dynatrace", {"url": url, "key": "../main"}).get("err", {}).get("code") == "invalid"
    assert "ok" in invoke(sid, "close_dynatrace", {"key": "dt_webdriver-1"})
    wait_for("the keyed popout closed", lambda: invoke(sid, "dynatrace_popouts").get("ok", {}).get("dt_webdriver-1") == "closed",
             timeout=10)
    # Clear: the popout closes, the store is deleted, the next popout starts empty.
    assert "ok" in invoke(sid, "clear_dynatrace_session")
    wait_for("the clear in the log", lambda: "the Dynatrace session was cleared" in log_text(), timeout=10)
    assert not os.path.exists(store), "the old store survived the clear"
    wait_for("the cleared popout closed", lambda: invoke(sid, "dynatrace_popouts").get("ok", {}).get("") == "closed", timeout=10)
    mark = len(log_text().splitlines())
    assert invoke(sid, "open_dynatrace", {"url": url}).get("ok") == "dynatrace"
    fresh = probe_results(mark)
    assert fresh["held"] == ("empty" if storage else "nostorage"), fresh
    assert os.path.isdir(os.path.join(data_dir, "webviews", "dynatrace-1"))
    invoke(sid, "clear_dynatrace_session")
    kept = "page storage kept, then emptied by the clear" if storage else "no page storage on the offline error page"
    print(f"ok   Dynatrace popout: own context and 0700 store (not in the app's handles), {first}, {kept}; "
          f"states blocked/closed read by dynatrace_popouts; a keyed popout closed by close_dynatrace; cleared to dynatrace-1")


RADAR_COOKIE = ".ASPXAUTH=wd-radar-session-7f3a"
RADAR_PATH = "/CWDashboard/Home/Radar"


class FakeRadar(BaseHTTPRequestHandler):
    """The CW Dashboard's Radar page on 127.0.0.1: without the session cookie a sign-in page
    that sets it (as the SSO round trip ends), with it the recorded board."""
    seen = []

    def do_GET(self):
        cookie = self.headers.get("Cookie") or ""
        FakeRadar.seen.append((self.path, cookie))
        if self.path == RADAR_PATH and RADAR_COOKIE in cookie:
            root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            with open(os.path.join(root, "vectors", "radar", "board.html"), "rb") as f:
                body = f.read()
            self.send_response(200)
        else:
            body = b"<html><body><form id='login'><input type='password' name='p'></form></body></html>"
            self.send_response(200)
            self.send_header("Set-Cookie", f"{RADAR_COOKIE}; Path=/; HttpOnly")
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def start_fake_radar():
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeRadar)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def check_radar_sign_in(sid, data_dir):
    """Settings-free Radar sign-in from the desktop server PC: open_radar_sign_in opens the
    isolated sign-in window on the (test-overridden) Radar page, whose sign-in sets the session
    cookie in that window's own store; finish_radar_sign_in hands it to the server's Radar
    reader inside the shell (the answer carries no cookie) and closes the window; the reader
    then reads the board with it. The cookie is in no log, not in the app's own cookies, and kept
    owner-only in DATA/secrets/radar-session."""
    opened = invoke(sid, "open_radar_sign_in")
    assert opened.get("ok") == "radar-sign-in", opened
    wait_for("the sign-in window loading the Radar page",
             lambda: [p for p, c in FakeRadar.seen if p == RADAR_PATH and RADAR_COOKIE not in c], timeout=20)
    finished = wait_for("the session handed over", lambda: (lambda r: r if "ok" in r else None)(
        invoke(sid, "finish_radar_sign_in")), timeout=15)
    assert finished["ok"] == {"signInRequired": False, "error": None}, finished
    assert "wd-radar-session" not in json.dumps(finished)
    assert [p for p, c in FakeRadar.seen if RADAR_COOKIE in c], "the reader never sent the session"
    again = invoke(sid, "finish_radar_sign_in")
    assert again.get("err", {}).get("code") == "invalid", f"the window was not closed: {again}"
    secret = os.path.join(data_dir, "secrets", "radar-session")
    assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600, oct(os.stat(secret).st_mode)
    app_cookies = call("POST", f"/session/{sid}/execute/sync", {"script": "return document.cookie;", "args": []})["value"]
    assert "wd-radar-session" not in (app_cookies or ""), app_cookies
    assert "wd-radar-session" not in log_text(), "the Radar cookie reached the log"
    print("ok   Radar sign-in window: isolated store, cookie handed to the server's reader inside the shell, "
          "board read with it, window closed, nothing logged or returned")


def check_data_administration(sid, data_dir):
    """Settings → Data administration in the real server-mode window: "Backup now" writes and
    verifies a backup through the in-process backup actor and the real worker process, the
    panel shows it as the verified restore point, and the archive is in DATA/backups."""
    click(sid, '[data-testid=nav-settings]')
    wait_for("the Data administration panel", lambda: texts(sid, "[data-testid=data-administration]"), timeout=20)
    click(sid, '[data-testid=backup-now]')
    message = wait_for("the backup result",
                       lambda: [t for t in texts(sid, "[data-testid=backup-message]") if "verified" in t], timeout=60)
    assert "written and verified" in message[0], message
    wait_for("the verified restore point in the list",
             lambda: [t for t in texts(sid, "[data-testid=backup-archives]") if "Verified restore point" in t], timeout=10)
    assert "Allowed" in " ".join(texts(sid, "[data-testid=backup-retention]"))
    archives = [n for n in os.listdir(os.path.join(data_dir, "backups")) if n.endswith(".zip")]
    assert len(archives) == 1 and archives[0] in message[0], (archives, message)
    assert not [n for n in os.listdir(data_dir) if n.startswith(".relay-backup-verify-")], "verification dir left"
    out = os.environ.get("DESKTOP_BACKUP_SCREENSHOT")
    if out:
        with open(out, "wb") as f:
            f.write(base64.b64decode(call("GET", f"/session/{sid}/screenshot")["value"]))
    print(f"ok   Data administration: Backup now wrote and verified {archives[0]} in the real worker")
    return archives[0]


def check_restore(sid, data_dir, server, secret, archive):
    """Restore… in the real window on the running in-process server: a contact written after the
    backup is gone once the server restarted on the restored data (same port), the panel reports
    the outcome only after that, a verified safety backup exists, and the window reconnects."""
    token = api(server, "POST", "/api/collections/users/auth-with-password",
                {"identity": "relay", "password": secret})["token"]
    api(server, "POST", "/api/collections/contacts/records",
        {"name": "Katherine Johnson", "email": "katherine@example.com"}, token)
    click(sid, '[data-testid=backup-restore]')
    wait_for("the restore confirmation", lambda: texts(sid, "[data-testid=restore-confirm]"), timeout=10)
    assert archive in " ".join(texts(sid, "[data-testid=restore-confirm]"))
    disabled = call("GET", f"/session/{sid}/element/{element(sid, '[data-testid=restore-confirm-go]')}/enabled")["value"]
    assert disabled is False, "Restore is disabled until the word is typed"
    call("POST", f"/session/{sid}/element/{element(sid, '[data-testid=restore-confirm-word]')}/value", {"text": "RESTORE"})
    click(sid, '[data-testid=restore-confirm-go]')
    message = wait_for("the restore outcome",
                       lambda: [t for t in texts(sid, "[data-testid=backup-message]") if "serves it" in t or "fail" in t],
                       timeout=120)
    assert "serves it" in message[0], message
    token = api(server, "POST", "/api/collections/users/auth-with-password",
                {"identity": "relay", "password": secret})["token"]
    names = sorted(c["name"] for c in api(server, "GET", "/api/collections/contacts/records?perPage=50", token=token)["items"])
    assert names == ["Ada Lovelace", "Grace Hopper"], names
    safety = [n for n in os.listdir(os.path.join(data_dir, "backups")) if n.startswith("pre_restore_")]
    assert len(safety) == 1 and safety[0] in message[0], (safety, message)
    assert not [n for n in os.listdir(data_dir) if n.startswith(".relay-backup")], "restore leftovers"
    click(sid, '[data-testid=nav-people]')
    wait_for("the window reconnected to the restored data",
             lambda: "Connected" in texts(sid, "[data-testid=status-connection]")
             and texts(sid, "[data-testid=people-count]") == ["2 of 2"], timeout=60)
    print(f"ok   Restore… in the window: the server restarted on {archive} (same port), "
          f"safety backup {safety[0]}, the window reconnected (2 of 2)")


def main():
    app = os.path.abspath(sys.argv[1])
    # No session bus: the app keeps its passphrase in the data directory file (development
    # build), which this flow reads to compare with reveal_passphrase.
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/relay-no-bus"
    # Debug builds only: the Dynatrace popout reports through its log (lockdown::DYNATRACE_PROBE).
    os.environ["RELAY_TEST_DYNATRACE_PROBE"] = "1"
    radar = start_fake_radar()
    os.environ["RELAY_TEST_UPSTREAM_RADAR"] = f"http://127.0.0.1:{radar.server_address[1]}"
    data_dir = tempfile.mkdtemp(prefix="relay-desktop-wd-")
    proc = start_driver()
    sid = None
    try:
        sid = open_session(app, ["--data-dir", data_dir, "--server-mode", "--bind", "127.0.0.1", "--no-mdns",
                                 "--port", "0"])

        el = call("POST", f"/session/{sid}/element", {"using": "css selector", "value": "button[type=submit]"})["value"]
        text = call("GET", f"/session/{sid}/element/{list(el.values())[0]}/text")["value"]
        assert "Sign in" in text, text
        print(f"ok   sign-in screen rendered (button {text!r})")

        info = invoke(sid, "connection_info")
        assert "ok" in info, info
        assert info["ok"]["mode"] == "server" and info["ok"]["serverUrl"].startswith("http://127.0.0.1:"), info
        with open(os.path.join(data_dir, "secrets", "passphrase"), encoding="utf-8") as f:
            secret = f.read().strip()
        assert secret and secret not in json.dumps(info), "connection_info leaked the passphrase"
        print(f"ok   connection_info {info['ok']}")

        log = os.path.join(data_dir, "logs", "relay.log")
        assert os.path.isfile(log) and (os.stat(log).st_mode & 0o777) == 0o600, "owner-only file log"
        with open(log, encoding="utf-8") as f:
            assert secret not in f.read(), "the file log is redacted"
        print("ok   the desktop keeps its redacted log in DATA_DIR/logs/relay.log (0600)")

        health = invoke(sid, "health")
        assert health.get("ok", {}).get("status") in ("ok", "degraded"), health
        print(f"ok   health status={health['ok']['status']} actors={sorted(health['ok']['actors'])}")

        bad = invoke(sid, "open_external", {"url": "https://evil.example/phish"})
        assert bad.get("err", {}).get("code") == "invalid", bad
        print(f"ok   open_external refused {bad['err']}")

        aux = invoke(sid, "open_aux_window", {"route": "../settings"})
        assert aux.get("err", {}).get("code") == "invalid", aux
        print(f"ok   open_aux_window refused {aux['err']}")

        main_handle = call("GET", f"/session/{sid}/window")["value"]
        opened = invoke(sid, "open_aux_window", {"route": "oncall"})
        assert opened.get("ok") == "aux-oncall", opened
        again = invoke(sid, "open_aux_window", {"route": "oncall"})
        assert again.get("ok") == "aux-oncall", again
        handles = []
        for _ in range(50):
            handles = call("GET", f"/session/{sid}/window/handles")["value"]
            if len(handles) == 2:
                break
            time.sleep(0.2)
        assert len(handles) == 2, f"one aux window expected, handles={handles}"
        print("ok   open_aux_window opened aux-oncall once (second call focused it)")

        aux_handle = next(h for h in handles if h != main_handle)
        call("POST", f"/session/{sid}/window", {"handle": aux_handle})
        time.sleep(1)
        denied = invoke(sid, "reveal_passphrase")
        assert denied.get("err", {}).get("code") == "forbidden", denied
        aux_health = invoke(sid, "health")
        assert "ok" in aux_health, aux_health
        print(f"ok   aux window: reveal_passphrase refused {denied['err']}, health allowed")
        call("POST", f"/session/{sid}/window", {"handle": main_handle})

        nav = ("const done = arguments[arguments.length - 1];"
               "const w = window.open('https://evil.example/');"
               "location.href = 'https://evil.example/phish?x=1';"
               "setTimeout(() => done({origin: location.origin, popup: w === null ? null : 'opened'}), 1500);")
        result = call("POST", f"/session/{sid}/execute/async", {"script": nav, "args": []})["value"]
        assert result["origin"] == "tauri://localhost", result
        assert len(call("GET", f"/session/{sid}/window/handles")["value"]) == 2, "window.open created a window"
        print(f"ok   navigation to another origin blocked, window.open refused ({result})")

        check_window_open_handler(sid)
        check_dynatrace_popout(sid, data_dir)
        check_connect_src(sid, info["ok"]["serverUrl"])
        sign_in_flow(sid, info["ok"]["serverUrl"], secret)
        check_reload_keeps_the_session(sid)
        check_radar_sign_in(sid, data_dir)

        check_popout_borrows_the_session(sid)
        archive = check_data_administration(sid, data_dir)
        check_restore(sid, data_dir, info["ok"]["serverUrl"], secret, archive)

        shot = call("GET", f"/session/{sid}/screenshot")["value"]
        assert len(shot) > 1000
        out = os.environ.get("DESKTOP_SIGNED_IN_SCREENSHOT")
        if out:  # the signed-in shell on People, after the flow above (no extra timing involved)
            with open(out, "wb") as f:
                f.write(base64.b64decode(shot))
        print(f"ok   webdriver screenshot taken{' -> ' + out if out else ''}")
    finally:
        close_session(sid)
        stop_process(proc)
        shutil.rmtree(data_dir, ignore_errors=True)
    print("desktop webdriver flow ok")


if __name__ == "__main__":
    main()
