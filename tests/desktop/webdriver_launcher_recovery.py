#!/usr/bin/env python3
"""Manual recovery end to end with real binaries (issue #14: rollback and repair by the Owner):
`relay-launcher` starts real `relay-desktop` runtimes under Xvfb, driven over WebDriver
(tauri-driver + WebKitWebDriver), with a temporary HOME, XDG_DATA_HOME and data directory,
against the fake GitHub on 127.0.0.1 (fake_github.py: the release served by its tag, the
throwaway minisign key). The launcher's sessions and the hand-installed runtimes are
launcher_fixture.py's, shared with webdriver_launcher_update.py.

1. fixture: the state the launcher leaves after promoting v0.2.0 (webdriver_launcher_update.py
   proves how it gets there): the runtimes of v0.1.0 and v0.2.0 (the debug desktop, debug info
   stripped) with their markers, and the catalog (current v0.2.0, predecessors [v0.1.0]);
2. session 1: the launcher starts v0.2.0; signed in, a contact is created over the API; the
   Owner ryan gets a password and is activated with `relay admin` over the control socket and
   signs in to Settings → Administration: the Recovery section lists v0.2.0 (Running, Repair)
   and v0.1.0 (Roll back, Repair);
3. repair: Repair on the intact v0.1.0 → Confirm says it is intact and requests no release by
   tag and no asset from the fake GitHub; then v0.1.0's executable gets one byte appended, and Repair → Confirm downloads
   release v0.1.0 by its tag (immutable, its marker's commit, the three assets: the zip of the
   very bytes the marker hashes, .sha256, .minisig), says it was repaired, and the executable
   hashes to the marker's SHA-512 again (0700); the catalog and the marker are byte-identical;
4. rollback: Roll back on v0.1.0 → Confirm (a fresh-password prompt is answered if it shows)
   → the app exits 75, the same launcher applies the request (its log: manual rollback applied,
   from v0.2.0 to v0.1.0): current v0.1.0, predecessors [v0.2.0], no candidate, no request file,
   both runtimes kept, and v0.1.0 runs as the launcher's child serving the contact;
5. session 2: a new launcher starts v0.1.0 (the current build now); signed in, the contact is
   in People and the Recovery section lists v0.1.0 (Running) and v0.2.0 (Roll back);
and the launcher's log names builds, never a path; the Owner's password reaches no log; the
audit log holds recovery.repair twice and recovery.rollback once and verifies; every
process started is killed (process groups) and the temporary directory removed (KEEP_FAILED=1
keeps it after a failure). The 5-minute freshness of the Owner's password is not waited for
here (the controller and the shell's unit tests cover the prompt and its retry).

Run under Xvfb: xvfb-run -a -s "-screen 0 1280x800x24" python3 tests/desktop/webdriver_launcher_recovery.py DESKTOP_BIN RELAY_BIN
(relay-launcher is taken from beside DESKTOP_BIN, or from RELAY_LAUNCHER_BIN.)
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from launcher_fixture import (BUILDS, COMMITS, CONTACT, DATA, ROOT, WORK, Session, catalog, catalog_path,  # noqa: E402
                              install_runtime, isolate_env, kill_runtimes, launcher_binary, launcher_lines,
                              names_or_none, people_shows_the_contact, private_dirs, runtime_dirs, server_data_dir,
                              server_token, sha512_file, sign_in, type_into, use_fake_github, write_private)
from webdriver_bridge import api, call, click, log_text, start_driver, stop_process, texts, wait_for  # noqa: E402
from fake_github import TAG, FakeGitHub, Publisher, Release  # noqa: E402

OWNER_PW = "owner-Pw-4471-rec-qv"
OLD, NEW = BUILDS["0.1.0"], BUILDS["0.2.0"]


def exe_of(build):
    return os.path.join(ROOT, "runtimes", build, "relay-desktop")


def marker_of(build):
    with open(os.path.join(ROOT, "runtimes", build, "marker.json"), "rb") as f:
        return f.read()


def install_promoted_state(desktop):
    """v0.1.0 and v0.2.0 retained, v0.2.0 current (as after its promotion)."""
    executable, old_marker = install_runtime(desktop, "0.1.0")
    _, new_marker = install_runtime(desktop, "0.2.0")
    private_dirs(os.path.join(ROOT, "recovery"), os.path.join(ROOT, "recovery", "snapshots"))
    now = int(time.time() * 1000)
    cat = {"protocol": 1,
           "current": {"build": NEW, "markerSha512": new_marker, "promotedAtMs": now - 60_000},
           "predecessors": [{"build": OLD, "markerSha512": old_marker, "promotedAtMs": now - 3_600_000}],
           "candidate": None, "quarantine": []}
    write_private(catalog_path(), json.dumps(cat, indent=2).encode())
    server_data_dir()
    print(f"ok   fixture: runtimes {OLD} and {NEW} ({len(executable) >> 20} MiB each, stripped) with their markers; "
          f"catalog: current {NEW}, predecessors [{OLD}]")
    return executable


def relay_admin(relay, args, stdin=""):
    out = subprocess.run([relay, "admin", "--data-dir", DATA, *args], input=stdin, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, f"relay admin {args} failed: {out.stdout}{out.stderr}"
    return out.stdout


def admin_sign_in(sid):
    """Settings → Administration, signed in as the Owner ryan."""
    click(sid, "[data-testid=nav-settings]")
    wait_for("the Administration sign-in form", lambda: texts(sid, "[data-testid=admin-signin]"), timeout=30)
    type_into(sid, "[data-testid=admin-signin-username]", "ryan")
    type_into(sid, "[data-testid=admin-signin-password]", OWNER_PW)
    click(sid, "[data-testid=admin-signin-submit]")
    who = wait_for("the Owner's session", lambda: texts(sid, "[data-testid=admin-session] > span"), timeout=30)[0]
    assert "Signed in as ryan (Owner)" in who, who


def row(build, css=""):
    return f'[data-testid=admin-recovery-build][data-build="{build}"] {css}'.strip()


def recovery_rows(sid, expected):
    """The Recovery section's rows, once it lists exactly `expected` (build ids, in order): {build: text}."""
    def read():
        builds = [b for b in expected if texts(sid, row(b))]
        return len(texts(sid, "[data-testid=admin-recovery-build]")) == len(expected) and builds == list(expected) and \
            {b: " ".join(texts(sid, row(b))) for b in expected}
    return wait_for(f"the Recovery section listing {expected}", read, timeout=30)


def buttons(sid, build):
    return [name for name in ("rollback", "repair") if texts(sid, row(build, f"[data-testid=admin-recovery-{name}]"))]


def enabled_buttons(sid, build):
    script = ("return [...document.querySelectorAll(arguments[0])].filter(b => !b.disabled)"
              ".map(b => b.dataset.testid.slice(15));")
    return call("POST", f"/session/{sid}/execute/sync", {"script": script, "args": [row(build, "button")]})["value"]


class Refused(Exception):
    """The Recovery section showed a refusal."""


def recovery_message(sid, what, needle, timeout=60):
    """Waits for the Recovery section's notice to hold `needle`; a fresh-password prompt that shows
    instead (more than 5 minutes since the sign-in on a slow machine) is answered with the Owner's
    password, then the wait goes on."""
    def check():
        if texts(sid, "[data-testid=admin-fresh-password-dialog]"):
            print(f"note a fresh-password prompt appeared for {what}; answering it")
            type_into(sid, "[data-testid=admin-fresh-password]", OWNER_PW)
            click(sid, "[data-testid=admin-fresh-password-dialog] [data-testid=admin-dialog-submit]")
            return None
        shown = " ".join(texts(sid, "[data-testid=admin-recovery-message]"))
        if "did not complete" in shown or "was not started" in shown:
            raise Refused(f"{what}: {shown!r}")
        return needle in shown and shown
    return wait_for(f"{what}: {needle!r}", check, timeout=timeout)


def confirm(sid, title):
    text = wait_for("the confirmation", lambda: texts(sid, "[data-testid=confirm-dialog]"), timeout=10)[0]
    assert title in text, text
    click(sid, "[data-testid=confirm-ok]")


def github_asked(fake, since):
    """The fake GitHub's requests after the first `since` that a repair makes (the tag, an asset)."""
    return [p for p in fake.requests[since:] if "/releases/tags/" in p or "/releases/assets/" in p
            or "/github-production-release-asset/" in p]


def step_recovery_section(launcher, relay):
    session = Session(launcher, "session1")
    sid = session.open()
    pid = session.child(NEW)
    secret = sign_in(sid)
    server, token = server_token(secret)
    api(server, "POST", "/api/collections/contacts/records", CONTACT, token)
    people_shows_the_contact(sid)
    print(f"ok   session 1: the launcher started {NEW} (pid {pid}, its child); signed in; contact "
          f"{CONTACT['name']!r} created over the API and shown in People")
    wait_for("the control socket", lambda: os.path.exists(os.path.join(DATA, "control.sock")), timeout=30)
    relay_admin(relay, ["set-password", "--username", "ryan"], OWNER_PW + "\n")
    relay_admin(relay, ["activate", "--username", "ryan"])
    admin_sign_in(sid)
    rows = recovery_rows(sid, [NEW, OLD])
    assert "v0.2.0" in rows[NEW] and "Running" in rows[NEW] and COMMITS["0.2.0"][:12] in rows[NEW], rows
    assert "v0.1.0" in rows[OLD] and COMMITS["0.1.0"][:12] in rows[OLD], rows
    assert buttons(sid, NEW) == ["repair"] and buttons(sid, OLD) == ["rollback", "repair"], \
        (buttons(sid, NEW), buttons(sid, OLD))
    print("ok   relay admin set ryan's password and activated him; signed in to Administration as the Owner: "
          "Recovery lists v0.2.0 (Running, Repair) and v0.1.0 (Roll back, Repair)")
    return session, secret


def step_repair(sid, fake):
    cat_before, marker_before = open(catalog_path(), "rb").read(), marker_of(OLD)
    expected = json.loads(marker_before)["executableSha512"]
    since = len(fake.requests)
    click(sid, row(OLD, "[data-testid=admin-recovery-repair]"))
    confirm(sid, "Repair Relay v0.1.0?")
    intact = recovery_message(sid, "the intact repair", "v0.1.0 is intact; nothing needed repairing.")
    assert not github_asked(fake, since), github_asked(fake, since)
    print(f"ok   Repair on the intact v0.1.0: {intact!r}; the fake GitHub got no release-by-tag or asset request")

    with open(exe_of(OLD), "ab") as f:
        f.write(b"\0")
    assert sha512_file(exe_of(OLD)) != expected
    wait_for("Repair offered again", lambda: enabled_buttons(sid, OLD) == ["rollback", "repair"], timeout=30)
    since = len(fake.requests)
    click(sid, row(OLD, "[data-testid=admin-recovery-repair]"))
    confirm(sid, "Repair Relay v0.1.0?")
    repaired = recovery_message(sid, "the repair", "v0.1.0 was repaired from its release.", timeout=240)
    asked = github_asked(fake, since)
    assert TAG.format("0.1.0") in asked, asked
    archive = fake.tagged[TAG.format("0.1.0")].ids["relay-v0.1.0-linux-x86_64.zip"]
    assert [p for p in asked if p.startswith(f"/github-production-release-asset/{archive}")], asked
    assert sha512_file(exe_of(OLD)) == expected, "the repaired executable does not hash to the marker's SHA-512"
    assert os.stat(exe_of(OLD)).st_mode & 0o777 == 0o700, oct(os.stat(exe_of(OLD)).st_mode)
    assert open(catalog_path(), "rb").read() == cat_before, "the repair changed the catalog"
    assert marker_of(OLD) == marker_before, "the repair changed the marker"
    assert runtime_dirs() == sorted([OLD, NEW]), runtime_dirs()
    print(f"ok   v0.1.0's executable changed (one byte appended); Repair: {repaired!r}; the fake GitHub served "
          f"{TAG.format('0.1.0')} and its archive; the executable hashes to the marker's SHA-512 again (0700); "
          "catalog and marker byte-identical")


def step_rollback(session, secret):
    sid = session.sid
    wait_for("Roll back offered", lambda: enabled_buttons(sid, OLD) == ["rollback", "repair"], timeout=30)
    click(sid, row(OLD, "[data-testid=admin-recovery-rollback]"))
    confirm(sid, "Roll back to Relay v0.1.0?")
    try:  # the notice shows until the app exits (1.5 s after the answer); not seeing it proves nothing
        shown = recovery_message(sid, "the rollback", "Relay is restarting into v0.1.0", timeout=20)
        print(f"ok   Roll back on v0.1.0 → Confirm: {shown!r}")
    except Refused:
        raise
    except Exception as e:  # noqa: BLE001 (the session's app is gone: any WebDriver error)
        print(f"note the rollback notice was not read before the app exited ({type(e).__name__})")
    line = session.wait_log("the manual rollback applied", "manual rollback applied", timeout=60)
    assert f"from={NEW}" in line.replace('"', "") and f"to={OLD}" in line.replace('"', ""), line
    assert [ln for ln in session.launcher_lines() if "handed off" in ln], "the launcher logged no hand-off (exit 75)"
    pid = session.child(OLD, timeout=60)
    cat = catalog()
    assert cat["current"]["build"] == OLD, cat
    assert [p["build"] for p in cat["predecessors"]] == [NEW], cat
    assert cat["candidate"] is None and cat["quarantine"] == [], cat
    assert not os.path.exists(os.path.join(ROOT, "recovery", "rollback-request.json")), "the request was left"
    assert runtime_dirs() == sorted([OLD, NEW]), runtime_dirs()
    names = wait_for("v0.1.0's server", lambda: names_or_none(secret), timeout=90)
    assert CONTACT["name"] in names, names
    print(f"ok   the app exited 75; the launcher applied the rollback ({line.split('relay::launcher:')[-1].strip()!r}): "
          f"current {OLD}, predecessors [{NEW}], no candidate, no request file, both runtimes kept; {OLD} runs "
          f"(pid {pid}, the launcher's child) and serves the contact")


def step_after_rollback(launcher, relay):
    session = Session(launcher, "session2")
    try:
        sid = session.open()
        session.child(OLD)
        sign_in(sid)
        people_shows_the_contact(sid)
        admin_sign_in(sid)
        rows = recovery_rows(sid, [OLD, NEW])
        assert "v0.1.0" in rows[OLD] and "Running" in rows[OLD] and "v0.2.0" in rows[NEW], rows
        assert "rollback" in buttons(sid, NEW) and "rollback" not in buttons(sid, OLD), (buttons(sid, OLD), buttons(sid, NEW))
        print(f"ok   session 2: the launcher started {OLD} as current; the contact in People; Recovery lists v0.1.0 "
              "(Running) and v0.2.0 (Roll back)")
        # Over the running server's control socket (after it stops, a socket file left by the killed
        # runtime can make the CLI take it for a running server).
        verified = relay_admin(relay, ["verify-audit"]).strip()
        assert verified.startswith("Audit log verified"), verified
        print(f"ok   relay admin verify-audit: {verified!r}")
    finally:
        session.close()


def check_logs():
    lines = [ln for name in ("session1", "session2") for ln in launcher_lines(name)]
    text = "".join(lines)
    assert WORK not in text and "/proc/self/fd" not in text, "the launcher's log names a path"
    with open(os.path.join(DATA, "logs", "relay.log"), encoding="utf-8", errors="replace") as f:
        logs = f.read() + log_text()
    assert OWNER_PW not in logs and OWNER_PW not in text, "the Owner's password reached a log"
    for name in ("session1", "session2"):
        with open(os.path.join(WORK, f"{name}-launcher.log"), encoding="utf-8", errors="replace") as f:
            assert OWNER_PW not in f.read(), "the Owner's password reached the runtimes' stderr"
    assert re.search(r"manual rollback applied", text), "no manual rollback line"
    print(f"ok   the launcher's log: {len(lines)} lines naming builds, no path; the Owner's password in no log")


def check_audit():
    """The audit log (read after the last runtime stopped) records the Owner's repairs and the rollback."""
    db = sqlite3.connect(f"file:{os.path.join(DATA, 'store', 'relay.db')}?mode=ro", uri=True)
    try:
        entries = [json.loads(e) for (e,) in db.execute("SELECT entry FROM relay_audit_log ORDER BY seq")]
    finally:
        db.close()
    recovery = [(e["command"], e["outcome"]) for e in entries if e["command"].startswith("recovery.")]
    assert recovery == [("recovery.repair", "authorized")] * 2 + [("recovery.rollback", "authorized")], recovery
    print(f"ok   the audit log: {recovery}")


def main():
    desktop, relay = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    launcher = launcher_binary(desktop)
    started = time.monotonic()
    isolate_env()
    executable = install_promoted_state(desktop)
    publisher = Publisher()
    tagged = Release(publisher, "0.1.0", COMMITS["0.1.0"], executable, first_id=9301)
    del executable
    fake = FakeGitHub(tagged)  # "latest" is v0.1.0 too: the runtimes (which report 0.1.0) are up to date
    fake.serve_tag(tagged)
    use_fake_github(fake, publisher)
    driver = start_driver()
    session = None
    ok = False
    try:
        session, secret = step_recovery_section(launcher, relay)
        step_repair(session.sid, fake)
        step_rollback(session, secret)
        session.close()
        session = None
        step_after_rollback(launcher, relay)
        check_logs()
        check_audit()
        assert publisher.pub not in log_text(), "the test key reached the log"
        ok = True
    finally:
        try:
            if not ok:
                for name in ("session1", "session2"):
                    print(f"---- {name} launcher log (tail) ----\n" + "".join(launcher_lines(name)[-15:]), file=sys.stderr)
                print("---- webdriver/app log (tail) ----\n" + "\n".join(log_text().splitlines()[-30:]), file=sys.stderr)
            if session:
                session.close()
        finally:
            kill_runtimes()
            stop_process(driver)
        fake.close()
        if ok or not os.environ.get("KEEP_FAILED"):
            shutil.rmtree(WORK, ignore_errors=True)
    print(f"desktop launcher recovery flow ok ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
