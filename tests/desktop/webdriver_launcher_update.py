#!/usr/bin/env python3
"""The recovery launcher end to end with real binaries: `relay-launcher` starts real
`relay-desktop` runtimes under Xvfb, driven over WebDriver (tauri-driver + WebKitWebDriver), with
a temporary HOME, XDG_DATA_HOME and data directory, against the fake GitHub on 127.0.0.1 of
webdriver_update.py (fake_github.py: its wire format, throwaway minisign key and signed zips).
The sessions, the hand-installed runtime and the isolated environment are launcher_fixture.py's
(shared with webdriver_launcher_recovery.py).

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
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from launcher_fixture import (BUILDS, COMMITS, CONTACT, ROOT, WORK, Session, catalog, contact_names,  # noqa: E402
                              install_first_runtime, isolate_env, kill_runtimes, launcher_binary,
                              launcher_lines, names_or_none, people_shows_the_contact,
                              runtime_dirs, server_token, sign_in, use_fake_github)
from webdriver_bridge import api, call, click, invoke, log_text, start_driver, stop_process, texts, wait_for  # noqa: E402
from fake_github import FakeGitHub, Publisher, Release  # noqa: E402

EPHEMERAL = {"name": "Probation Pascal", "email": "probation@example.com", "title": "Rolled back"}


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
    names = wait_for("the restarted server", lambda: names_or_none(secret), timeout=90)
    assert CONTACT["name"] in names, names
    print(f"ok   v0.3.0 (/bin/false) exited twice; rolled back: current {BUILDS['0.2.0']}, no candidate, "
          f"quarantine {cat['quarantine'][0][:14]}…, its runtime removed; {BUILDS['0.2.0']} runs again "
          f"(pid {pid}, the launcher's child) and serves the contact")


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
        wait_for("the candidate's server", lambda: names_or_none(secret), timeout=90)
        server, token = server_token(secret)
        api(server, "POST", "/api/collections/contacts/records", EPHEMERAL, token)
        assert EPHEMERAL["name"] in contact_names(secret)
        assert not [ln for ln in session.launcher_lines() if "rolling back" in ln and BUILDS["0.4.0"] in ln]
        print(f"ok   v0.4.0 on probation, never signed in (no `mounted`); {EPHEMERAL['name']!r} created over its API")
        line = session.wait_log("the rollback at the deadline", "candidate failed probation; rolling back",
                                BUILDS["0.4.0"], timeout=180)
        assert "reason=CannotBecomeHealthyInTime" in line, line
        session.child(BUILDS["0.2.0"], timeout=120)
        names = wait_for("the restarted server", lambda: names_or_none(secret), timeout=90)
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


def main():
    desktop = os.path.abspath(sys.argv[1])
    launcher = launcher_binary(desktop)
    started = time.monotonic()
    isolate_env()
    executable = install_first_runtime(desktop)
    publisher = Publisher()
    with open("/bin/false", "rb") as f:
        releases = {"0.2.0": Release(publisher, "0.2.0", COMMITS["0.2.0"], executable, first_id=9001),
                    "0.3.0": Release(publisher, "0.3.0", COMMITS["0.3.0"], f.read(), first_id=9101),
                    "0.4.0": Release(publisher, "0.4.0", COMMITS["0.4.0"], executable, first_id=9201)}
    del executable
    fake = FakeGitHub(releases["0.2.0"])
    use_fake_github(fake, publisher)
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
            kill_runtimes()
            stop_process(driver)
        fake.close()
        if ok or not os.environ.get("KEEP_FAILED"):
            shutil.rmtree(WORK, ignore_errors=True)
    print(f"desktop launcher update flow ok ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
