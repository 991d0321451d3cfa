#!/usr/bin/env python3
"""The recovery launcher end to end with real binaries: `relay-launcher` starts real
`relay-desktop` runtimes under Xvfb, driven over WebDriver (tauri-driver + WebKitWebDriver), with
a temporary HOME, XDG_DATA_HOME and data directory, against the fake GitHub on 127.0.0.1 of
webdriver_update.py (fake_github.py: its wire format, throwaway minisign key and signed zips).

Each session's application is a wrapper that execs `relay-launcher --data-dir DATA`; the runtime
the launcher starts inherits WebKitWebDriver's environment, so the session attaches to it. The
data directory's saved setup is server mode on loopback, so every runtime serves on 127.0.0.1:8090.

1. fixture: the first runtime installed by hand, `runtimes/v0-1-0-<commit>/relay-desktop` (the
   debug desktop with its debug info stripped) and its marker (SHA-512, v0.1.0, dataEpochs 1/1;
   dirs 0700, exe 0700, marker 0600), no catalog;
2. session 1: the launcher bootstraps the catalog from it (that build current, nothing else) and
   starts it: the runtime is the launcher's child running from that directory; signed in, a
   contact is created over the API; Check → Download → Prepare in the Update dialog offers and
   stages v0.2.0 (the same desktop, released as v0.2.0); Restart answers `handedOff: true`, the
   app exits 75 (the launcher's log: handed off) and the catalog has the v0.2.0 candidate bound
   to the first build; the launcher takes the data snapshot and starts the candidate on
   probation, where WebKitWebDriver cannot follow: this launcher is killed (its candidate goes
   with it, PR_SET_PDEATHSIG), one of the two attempts used;
3. session 2 (time scale 2): a new launcher runs the candidate's second attempt; signed in, the
   shell mounts and the heartbeats make it healthy: the launcher promotes it (current v0.2.0,
   predecessors [v0.1.0], no candidate, the v0.1.0 runtime kept) and keeps it running; the
   contact is still there (API and People);
4. rollback: v0.3.0 is released with /bin/false as its executable; from the promoted runtime
   Check → Download → Prepare → Restart hands it off (75); it exits at once twice and the launcher
   rolls back: current v0.2.0 again, no candidate, `v0.3.0@<commit>` quarantined, its runtime gone,
   the v0.2.0 runtime running again as the launcher's child and serving the contact;
5. session 3: the launcher starts v0.2.0 (no candidate); signed in, the Update dialog says the
   v0.3.0 release failed its trial start and offers no download;
6. data restore: v0.4.0 (the real desktop again) is handed off the same way and left on
   probation without signing in, so it never reports `mounted`; a contact created over its API
   meanwhile is gone after the launcher rolls it back when it can no longer become healthy in
   time (the snapshot restored), the first contact is kept, both failed releases are quarantined
   and only the v0.1.0 and v0.2.0 runtimes remain;
and the launcher's log names builds and reasons, never a path or a transaction id; every
process started is killed (process groups) and the temporary directory removed
(KEEP_FAILED=1 keeps it after a failure).

Run under Xvfb: xvfb-run -a -s "-screen 0 1280x800x24" python3 tests/desktop/webdriver_launcher_update.py DESKTOP_BIN [RELAY_BIN]
(RELAY_BIN is accepted like the other flows' and not needed; relay-launcher is taken from beside
DESKTOP_BIN, or from RELAY_LAUNCHER_BIN.)
"""
import hashlib
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

WORK = tempfile.mkdtemp(prefix="relay-launcher-update-")
os.environ.setdefault("DESKTOP_WEBDRIVER_LOG", os.path.join(WORK, "webdriver.log"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webdriver_bridge import (api, call, click, close_session, element, invoke, log_text,  # noqa: E402
                              open_session, start_driver, stop_process, texts, wait_for)
from fake_github import FakeGitHub, Publisher, Release  # noqa: E402

COMMITS = {"0.1.0": "a1b2c3d4" * 5, "0.2.0": "deadbeef" * 5,
           "0.3.0": "fedcba9876543210fedcba9876543210fedcba98", "0.4.0": "facade00" * 5}
BUILDS = {v: f"v{v.replace('.', '-')}-{c[:8]}" for v, c in COMMITS.items()}  # infra::recovery::install::build_id_for
PORT = 8090  # relay-desktop's default: the launcher passes no arguments
CONTACT = {"name": "Launcher Lovelace", "email": "launcher@example.com", "title": "Survivor"}
EPHEMERAL = {"name": "Probation Pascal", "email": "probation@example.com", "title": "Rolled back"}
XDG = os.path.join(WORK, "xdg-data")
ROOT = os.path.join(XDG, "relay")
DATA = os.path.join(WORK, "data")


def catalog():
    with open(os.path.join(ROOT, "recovery", "catalog.json"), encoding="utf-8") as f:
        return json.load(f)


def runtime_dirs():
    return sorted(n for n in os.listdir(os.path.join(ROOT, "runtimes")) if not n.startswith("."))


def install_first_runtime(desktop):
    """The black-box fixture: one runtime directory and its marker, no catalog."""
    build = BUILDS["0.1.0"]
    for path in (XDG, ROOT, os.path.join(ROOT, "runtimes"), os.path.join(ROOT, "runtimes", build)):
        os.makedirs(path, mode=0o700, exist_ok=True)
        os.chmod(path, 0o700)
    exe = os.path.join(ROOT, "runtimes", build, "relay-desktop")
    subprocess.run(["objcopy", "--strip-debug", desktop, exe], check=True)
    os.chmod(exe, 0o700)
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True, timeout=30).stdout
    assert version.strip() == "relay-desktop 0.1.0", version
    with open(exe, "rb") as f:
        executable = f.read()
    marker = {"protocol": 1, "buildId": build, "version": "0.1.0", "commit": COMMITS["0.1.0"],
              "executableSha512": hashlib.sha512(executable).hexdigest(), "dataEpochs": {"server": 1, "client": 1}}
    path = os.path.join(ROOT, "runtimes", build, "marker.json")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(marker, f, indent=2)
    os.makedirs(DATA, mode=0o700)
    fd = os.open(os.path.join(DATA, "desktop.json"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write('{"mode":"server","lanAccess":false}')
    print(f"ok   fixture: runtimes/{build}/relay-desktop ({len(executable) >> 20} MiB, stripped, runs: {version.strip()!r}) "
          "and its marker; no catalog")
    return executable


def runtime_pids(build=None):
    """Processes running from a managed runtime directory (of `build`, if given): {pid: build}."""
    found = {}
    prefix = os.path.join(ROOT, "runtimes") + "/"
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue
        if exe.startswith(prefix):
            name = exe[len(prefix):].split("/")[0]
            if build in (None, name):
                found[int(pid)] = name
    return found


def parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None  # gone


def read_pid(path):
    try:
        with open(path, encoding="ascii") as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


def launcher_lines(name):
    """The launcher's own lines in a session's log (the runtimes write to the same stderr)."""
    path = os.path.join(WORK, f"{name}-launcher.log")
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line for line in f if "relay::launcher" in line]


class Session:
    """One WebDriver session whose application is `relay-launcher` (through a wrapper script)."""

    def __init__(self, launcher, name, time_scale=None):
        self.name, self.sid, self.pid = name, None, None
        log = os.path.join(WORK, f"{name}-launcher.log")
        self.pidfile = os.path.join(WORK, f"{name}.pid")
        self.wrapper = os.path.join(WORK, f"{name}.sh")
        scale = f"RELAY_TEST_LAUNCHER_TIME_SCALE={time_scale} " if time_scale else ""
        with open(self.wrapper, "w", encoding="utf-8") as f:
            f.write("#!/bin/sh\n"
                    f"echo $$ > '{self.pidfile}'\n"
                    f"{scale}exec '{launcher}' \"$@\" 2>>'{log}'\n")
        os.chmod(self.wrapper, stat.S_IRWXU)

    def open(self):
        self.sid = open_session(self.wrapper, ["--data-dir", DATA])
        self.pid = wait_for("the launcher's pid", lambda: read_pid(self.pidfile))
        return self.sid

    def launcher_lines(self):
        return launcher_lines(self.name)

    def wait_log(self, what, *words, timeout=60):
        """The last launcher line holding all `words`."""
        return wait_for(f"the launcher's log: {what}", lambda: [ln for ln in self.launcher_lines()
                                                                if all(w in ln for w in words)], timeout=timeout)[-1]

    def child(self, build, timeout=60):
        """The launcher's running child from runtimes/<build>/."""
        return wait_for(f"the launcher's {build} runtime", lambda: next(
            (p for p in runtime_pids(build) if parent_of(p) == self.pid), None), timeout=timeout)

    def close(self):
        """Kills the launcher (its runtime goes with it: PR_SET_PDEATHSIG) and ends the session."""
        pid = self.pid or read_pid(self.pidfile)
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            wait_for("no runtime left", lambda: not runtime_pids(), timeout=30)
            self.pid = None
        close_session(self.sid)
        self.sid = None


def sign_in(sid):
    with open(os.path.join(DATA, "secrets", "passphrase"), encoding="utf-8") as f:
        secret = f.read().strip()
    wait_for("the sign-in screen", lambda: texts(sid, "[data-testid=signin-passphrase]"), timeout=60)
    call("POST", f"/session/{sid}/element/{element(sid, '[data-testid=signin-passphrase]')}/value", {"text": secret})
    click(sid, "button[type=submit]")
    wait_for('status bar "Connected"', lambda: "Connected" in " ".join(texts(sid, "[data-testid=status-connection]")),
             timeout=60)
    return secret


def server_token(secret):
    server = f"http://127.0.0.1:{PORT}"
    token = api(server, "POST", "/api/collections/users/auth-with-password", {"identity": "relay", "password": secret})
    return server, token["token"]


def contact_names(secret):
    server, token = server_token(secret)
    return [r["name"] for r in api(server, "GET", "/api/collections/contacts/records?perPage=200", token=token)["items"]]


def people_shows_the_contact(sid):
    click(sid, "[data-testid=nav-people]")
    wait_for("the contact in People", lambda: [t for t in texts(sid, "[data-testid=contact-row]") if CONTACT["name"] in t],
             timeout=30)


def state_text(sid):
    return " ".join(texts(sid, "[data-testid=update-state]"))


def enabled(sid):
    script = ("return [...document.querySelectorAll('[data-testid=update-dialog] button[data-testid^=update-]')]"
              ".filter(b => !b.disabled).map(b => b.dataset.testid.slice(7));")
    return call("POST", f"/session/{sid}/execute/sync", {"script": script, "args": []})["value"]


def open_update_dialog(sid):
    click(sid, "[data-testid=nav-settings]")
    wait_for("Settings → About", lambda: texts(sid, "[data-testid=about-version]"), timeout=30)
    click(sid, "[data-testid=about-updates]")
    wait_for("the Update dialog", lambda: texts(sid, "[data-testid=update-dialog]"))


def check(sid, expected):
    """The offer (the updater's own check at start may have found it already; else Check)."""
    wait_for("the updater idle", lambda: "check" in enabled(sid), timeout=60)
    if expected not in state_text(sid):
        click(sid, "[data-testid=update-check]")
    return wait_for(f"{expected!r}", lambda: expected in state_text(sid) and state_text(sid), timeout=60)


def update_and_hand_off(session, version, dialog_open=False):
    """Check → Download → Prepare in the dialog, then Restart (`update_restart`, the button's command)."""
    sid = session.sid
    if not dialog_open:
        open_update_dialog(sid)
    offered = check(sid, f"Relay v{version} is available")
    wait_for("Download enabled", lambda: "download" in enabled(sid))
    click(sid, "[data-testid=update-download]")
    wait_for("the verified download", lambda: "downloaded and verified" in state_text(sid), timeout=180)
    click(sid, "[data-testid=update-prepare]")
    wait_for("prepared", lambda: "is prepared" in state_text(sid), timeout=180)
    assert enabled(sid) == ["check", "restart"], enabled(sid)
    before = len([ln for ln in session.launcher_lines() if "handed off" in ln])
    answer = invoke(sid, "update_restart")
    got = answer.get("ok") or {}
    assert got.get("handedOff") is True and got["version"] == version and got["commit"] == COMMITS[version], answer
    assert "executable" not in got and "transaction" not in got, answer
    wait_for("the launcher's log: the runtime handed off (exit 75)",
             lambda: len([ln for ln in session.launcher_lines() if "handed off" in ln]) > before)
    print(f"ok   {offered!r}; downloaded, verified, prepared; Restart answered handedOff: true for "
          f"v{version} ({got['commit'][:12]}) and the app exited 75")


def step_bootstrap_and_hand_off(launcher, fake, releases):
    session = Session(launcher, "session1")
    try:
        sid = session.open()
        cat = catalog()
        assert cat["current"]["build"] == BUILDS["0.1.0"] and cat["predecessors"] == [] and cat["candidate"] is None \
            and cat["quarantine"] == [], cat
        pid = session.child(BUILDS["0.1.0"])
        assert invoke(sid, "connection_info")["ok"]["mode"] == "server"
        session.wait_log("the catalog bootstrapped", "recovery catalog created")
        print(f"ok   session 1: the launcher bootstrapped the catalog (current {cat['current']['build']}, nothing else) "
              f"and started it (pid {pid}, its child)")
        secret = sign_in(sid)
        server, token = server_token(secret)
        api(server, "POST", "/api/collections/contacts/records", CONTACT, token)
        people_shows_the_contact(sid)
        print(f"ok   signed in; contact {CONTACT['name']!r} created over the API and shown in People")
        update_and_hand_off(session, "0.2.0")
        fake.publish(releases["0.3.0"])  # what the next runtimes' updater finds
        candidate = wait_for("the candidate's first attempt recorded",
                             lambda: (c := catalog()["candidate"]) and c["attempts"] == 1 and c["snapshot"] and c,
                             timeout=120)
        assert candidate["build"] == BUILDS["0.2.0"] and candidate["sourceBuild"] == BUILDS["0.1.0"], candidate
        assert candidate["release"] == f"v0.2.0@{COMMITS['0.2.0']}", candidate
        assert runtime_dirs() == sorted([BUILDS["0.1.0"], BUILDS["0.2.0"]]), runtime_dirs()
        session.wait_log("the candidate started", "starting the candidate on probation")
        session.child(BUILDS["0.2.0"])
        print(f"ok   the catalog's candidate is {candidate['build']} ({candidate['release'][:18]}…) from "
              f"{candidate['sourceBuild']}; snapshot taken, started on probation (attempt 1)")
        return secret, [candidate["transaction"]]
    finally:
        session.close()


def step_probation_and_promotion(launcher, secret):
    session = Session(launcher, "session2", time_scale=2)
    sid = session.open()
    candidate = catalog()["candidate"]
    assert candidate and candidate["attempts"] == 2, candidate
    pid = session.child(BUILDS["0.2.0"])
    sign_in(sid)
    print("ok   session 2: the launcher started the candidate's second attempt; signed in (the shell mounted)")
    session.wait_log("the candidate promoted", "candidate promoted", timeout=180)
    cat = catalog()
    assert cat["current"]["build"] == BUILDS["0.2.0"], cat
    assert [p["build"] for p in cat["predecessors"]] == [BUILDS["0.1.0"]], cat
    assert cat["candidate"] is None and cat["quarantine"] == [], cat
    assert runtime_dirs() == sorted([BUILDS["0.1.0"], BUILDS["0.2.0"]]), runtime_dirs()
    assert session.child(BUILDS["0.2.0"]) == pid, "the promoted candidate is not the process on probation"
    assert CONTACT["name"] in contact_names(secret)
    people_shows_the_contact(sid)
    print(f"ok   promoted: current {BUILDS['0.2.0']}, predecessors [{BUILDS['0.1.0']}], no candidate, both runtimes "
          f"kept; the same process still runs (pid {pid}); the contact is still there (API, People)")
    return session


def step_rollback(session, secret):
    update_and_hand_off(session, "0.3.0")
    session.wait_log("the v0.3.0 candidate started", "starting the candidate on probation", BUILDS["0.3.0"])
    line = session.wait_log("the rollback", "candidate failed probation; rolling back", timeout=180)
    assert BUILDS["0.3.0"] in line and "AttemptsExhausted" in line, line
    pid = session.child(BUILDS["0.2.0"], timeout=120)
    cat = catalog()
    assert cat["current"]["build"] == BUILDS["0.2.0"], cat
    assert [p["build"] for p in cat["predecessors"]] == [BUILDS["0.1.0"]], cat
    assert cat["candidate"] is None and cat["quarantine"] == [f"v0.3.0@{COMMITS['0.3.0']}"], cat
    assert runtime_dirs() == sorted([BUILDS["0.1.0"], BUILDS["0.2.0"]]), runtime_dirs()
    assert not os.listdir(os.path.join(ROOT, "recovery", "snapshots")), "a snapshot was left"
    names = wait_for("the restarted server", lambda: _names_or_none(secret), timeout=90)
    assert CONTACT["name"] in names, names
    print(f"ok   v0.3.0 (/bin/false) exited twice; rolled back: current {BUILDS['0.2.0']}, no candidate, "
          f"quarantine {cat['quarantine'][0][:14]}…, its runtime removed; {BUILDS['0.2.0']} runs again "
          f"(pid {pid}, the launcher's child) and serves the contact")


def _names_or_none(secret):
    try:
        return contact_names(secret)
    except OSError:
        return None


def step_quarantine_and_restore(launcher, fake, releases, secret):
    session = Session(launcher, "session3", time_scale=2)
    try:
        sid = session.open()
        session.child(BUILDS["0.2.0"])
        sign_in(sid)
        people_shows_the_contact(sid)
        open_update_dialog(sid)
        refused = "This release failed its trial start on this PC before, so Relay will not install it again."
        shown = wait_for("the quarantine refusal", lambda: refused in state_text(sid) and state_text(sid), timeout=60)
        assert "download" not in enabled(sid), enabled(sid)
        print(f"ok   session 3: {BUILDS['0.2.0']} started as current; the contact in People; the Update dialog: "
              f"{shown!r}, no Download")

        fake.publish(releases["0.4.0"])
        update_and_hand_off(session, "0.4.0", dialog_open=True)
        session.wait_log("the v0.4.0 candidate started", "starting the candidate on probation", BUILDS["0.4.0"])
        session.child(BUILDS["0.4.0"])
        transaction = catalog()["candidate"]["transaction"]
        wait_for("the candidate's server", lambda: _names_or_none(secret), timeout=90)
        server, token = server_token(secret)
        api(server, "POST", "/api/collections/contacts/records", EPHEMERAL, token)
        assert EPHEMERAL["name"] in contact_names(secret)
        assert not [ln for ln in session.launcher_lines() if "rolling back" in ln and BUILDS["0.4.0"] in ln]
        print(f"ok   v0.4.0 on probation, never signed in (no `mounted`); {EPHEMERAL['name']!r} created over its API")
        line = session.wait_log("the rollback at the deadline", "candidate failed probation; rolling back",
                                BUILDS["0.4.0"], timeout=180)
        assert "reason=CannotBecomeHealthyInTime" in line, line
        session.child(BUILDS["0.2.0"], timeout=120)
        names = wait_for("the restarted server", lambda: _names_or_none(secret), timeout=90)
        assert CONTACT["name"] in names and EPHEMERAL["name"] not in names, names
        cat = catalog()
        assert cat["current"]["build"] == BUILDS["0.2.0"] and cat["candidate"] is None, cat
        assert sorted(cat["quarantine"]) == sorted(f"v{v}@{COMMITS[v]}" for v in ("0.3.0", "0.4.0")), cat
        assert runtime_dirs() == sorted([BUILDS["0.1.0"], BUILDS["0.2.0"]]), runtime_dirs()
        print(f"ok   rolled back ({line.split('reason=')[-1].strip()}): the data snapshot restored "
              f"({EPHEMERAL['name']!r} gone, {CONTACT['name']!r} kept), v0.4.0 quarantined and removed")
        return [transaction]
    finally:
        session.close()


def check_launcher_log(transactions):
    lines = [ln for name in ("session1", "session2", "session3") for ln in launcher_lines(name)]
    text = "".join(lines)
    for words in (("recovery catalog created", BUILDS["0.1.0"]), ("candidate promoted", BUILDS["0.2.0"]),
                  ("rolling back", BUILDS["0.3.0"], "reason=AttemptsExhausted"),
                  ("rolling back", BUILDS["0.4.0"], "reason=CannotBecomeHealthyInTime")):
        assert [ln for ln in lines if all(w in ln for w in words)], f"no launcher line with {words}"
    assert WORK not in text and "/proc/self/fd" not in text, "the launcher's log names a path"
    assert not [t for t in transactions if t in text], "the launcher's log names a transaction"
    print(f"ok   the launcher's log: {len(lines)} lines naming builds and reasons, no path, no transaction id")


def free_port(port):
    """Nothing listens on the port (client sockets in TIME_WAIT do not count: the server reuses the address)."""
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def main():
    desktop = os.path.abspath(sys.argv[1])
    launcher = os.environ.get("RELAY_LAUNCHER_BIN") or os.path.join(os.path.dirname(desktop), "relay-launcher")
    assert os.access(launcher, os.X_OK), f"no relay-launcher at {launcher}"
    assert free_port(PORT), f"127.0.0.1:{PORT} is in use; the launcher's runtimes need it"
    started = time.monotonic()
    # tauri-driver is found before HOME moves; everything the runtimes write stays under WORK.
    os.environ["PATH"] += os.pathsep + os.path.expanduser("~/.cargo/bin")
    os.environ["HOME"] = os.path.join(WORK, "home")
    os.makedirs(os.environ["HOME"], mode=0o700)
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")):
        os.environ[var] = os.path.join(WORK, "home", sub)
    os.environ["XDG_DATA_HOME"] = XDG
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/relay-no-bus"
    for var in ("RELAY_DATA_DIR", "RELAY_TEST_LAUNCHER_TIME_SCALE", "RELAY_LAUNCHER_FD", "RELAY_LAUNCHER_TRANSACTION"):
        os.environ.pop(var, None)
    executable = install_first_runtime(desktop)
    publisher = Publisher()
    with open("/bin/false", "rb") as f:
        releases = {"0.2.0": Release(publisher, "0.2.0", COMMITS["0.2.0"], executable, first_id=9001),
                    "0.3.0": Release(publisher, "0.3.0", COMMITS["0.3.0"], f.read(), first_id=9101),
                    "0.4.0": Release(publisher, "0.4.0", COMMITS["0.4.0"], executable, first_id=9201)}
    del executable
    fake = FakeGitHub(releases["0.2.0"])
    os.environ["RELAY_TEST_UPSTREAM_GITHUB_API"] = fake.origin(fake.api)
    os.environ["RELAY_TEST_UPSTREAM_GITHUB_RELEASE_ASSETS"] = fake.origin(fake.storage)
    os.environ["RELAY_TEST_UPDATER_PUBLISHER_KEY"] = publisher.pub
    driver = start_driver()
    session2 = None
    ok = False
    try:
        secret, transactions = step_bootstrap_and_hand_off(launcher, fake, releases)
        session2 = step_probation_and_promotion(launcher, secret)
        step_rollback(session2, secret)
        session2.close()
        session2 = None
        transactions += step_quarantine_and_restore(launcher, fake, releases, secret)
        check_launcher_log(transactions)
        assert publisher.pub not in log_text(), "the test key reached the log"
        ok = True
    finally:
        try:
            if not ok:
                for name in ("session1", "session2", "session3"):
                    print(f"---- {name} launcher log (tail) ----\n" + "".join(launcher_lines(name)[-15:]), file=sys.stderr)
            if session2:
                session2.close()
        finally:
            for pid in runtime_pids():
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            stop_process(driver)
        fake.close()
        if ok or not os.environ.get("KEEP_FAILED"):
            shutil.rmtree(WORK, ignore_errors=True)
    print(f"desktop launcher update flow ok ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
