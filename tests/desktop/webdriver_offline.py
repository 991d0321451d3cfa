#!/usr/bin/env python3
"""Offline client mode of the real relay-desktop window over WebDriver, end to end.

A real `relay serve` (known passphrase) holds three contacts; relay-desktop starts in client
mode from a desktop.json written before launch (the setup screen is webdriver_client.py's
job), signs in through the window and opens People, so the renderer caches the snapshot in the
shell (offline_cache_read). Then the server is stopped (SIGTERM): the status bar says "Offline —
showing cached data from HH:MM" (the snapshot's time) and People still lists the contacts.
Through the UI (clicks and typing) two contacts are edited and one is added; the badge counts
"3 changes waiting to sync" and the edits show at once. Back online the non-conflicting changes
are replayed (checked on the server: the new contact exactly once, the edit applied), the
conflicting one waits for review: the badge opens the dialog ("Server conflict"), the review
shows both copies side by side, "Keep server version" empties the queue and the server copy
stays.

The conflict, deterministically: while the window is offline the server is started on the same
port and data directory but bound to 127.0.0.2, which the test reaches and the window (whose
saved URL is http://127.0.0.1:PORT) cannot; the test edits the conflicting contact there over
the API and stops that server again. Only then does the server come back on 127.0.0.1:PORT.
The replay is started only by the renderer once it sees the server again (its health probe every
5 s while offline, DataStores.attach -> OfflineSync.connected), so starting the server and
editing through the API before the window could reach it would be a race; with the 127.0.0.2
detour the window cannot reach the server until the conflict exists. No sleep decides anything:
every wait is a wait_for with a timeout.

Run (private D-Bus + gnome-keyring, Xvfb): scripts/desktop-offline-flow.sh DESKTOP_BIN RELAY_BIN
(DESKTOP_OFFLINE_SCREENSHOT=FILE saves the conflict review).
"""
import base64
import json
import os
import re
import shutil
import sys
import tempfile
import time

from webdriver_bridge import (api, call, click, close_session, element, invoke, open_session, start_driver,
                              stop_process, texts, wait_for)
from webdriver_client import SECRET, connected, start_server

ADA = {"name": "Ada Lovelace", "email": "ada@example.com", "title": "Engineer"}
GRACE = {"name": "Grace Hopper", "email": "grace@example.com", "title": "Admiral"}
ALAN = {"name": "Alan Turing", "email": "alan@example.com", "title": "Cryptanalyst"}
KATHERINE = {"name": "Katherine Johnson", "email": "katherine@example.com", "title": "Mathematician"}


def stop_server(proc):
    """SIGTERM and wait for the server to exit by itself."""
    proc.terminate()
    code = proc.wait(60)
    assert code == 0, f"relay serve exited with {code} after SIGTERM"


def token_for(server):
    return api(server, "POST", "/api/collections/users/auth-with-password",
               {"identity": "relay", "password": SECRET})["token"]


def contacts_on(server):
    """The server's contacts, by name (a list each, so a duplicate shows)."""
    items = api(server, "GET", "/api/collections/contacts/records?perPage=200", token=token_for(server))["items"]
    found = {}
    for c in items:
        found.setdefault(c["name"], []).append(c)
    return found


def status(sid):
    answer = invoke(sid, "offline_status")
    assert "ok" in answer, answer
    return answer["ok"]


def when(value, ok):
    """value when ok(value), else None (for wait_for)."""
    return value if value and ok(value) else None


def cached_contacts(sid):
    answer = invoke(sid, "offline_cache_read", {"collection": "contacts"})
    assert "ok" in answer, answer
    return answer["ok"]


def label(sid):
    return " ".join(texts(sid, "[data-testid=status-connection]"))


def row(record_id, part=""):
    return f'[data-testid=contact-row][data-id="{record_id}"]' + (f" [data-testid={part}]" if part else "")


def type_into(sid, css, text):
    field = element(sid, css)
    call("POST", f"/session/{sid}/element/{field}/clear", {})
    call("POST", f"/session/{sid}/element/{field}/value", {"text": text})


def wait_modal_closed(sid, what):
    wait_for(f"the {what} dialog to close", lambda: not texts(sid, "[data-testid=contact-save]"), timeout=15)


def edit_title(sid, ids, name, title):
    """Selects the row, Edit, a new job title, Save: all through the window."""
    click(sid, row(ids[name], "contact-row-name"))
    wait_for(f"{name}'s detail panel", lambda: texts(sid, "[data-testid=contact-detail] h2") == [name], timeout=10)
    click(sid, "[data-testid=contact-edit]")
    type_into(sid, "[data-testid=contact-title-input]", title)
    click(sid, "[data-testid=contact-save]")
    wait_modal_closed(sid, "Edit contact")


def add_contact(sid, contact):
    click(sid, "[data-testid=contact-new]")
    for field in ("name", "email", "title"):
        type_into(sid, f"[data-testid=contact-{field}-input]", contact[field])
    click(sid, "[data-testid=contact-save]")
    wait_modal_closed(sid, "Add contact")


def sign_in_and_cache(sid, server, ids):
    """Signs in through the window, opens People and waits for the shell's cached snapshot."""
    wait_for("the sign-in screen", lambda: texts(sid, "[data-testid=signin-submit]"), timeout=30)
    info = invoke(sid, "connection_info")["ok"]
    assert info["mode"] == "client" and info["serverUrl"] == server, info
    call("POST", f"/session/{sid}/element/{element(sid, '[data-testid=signin-passphrase]')}/value", {"text": SECRET})
    click(sid, "[data-testid=signin-submit]")
    connected(sid)
    click(sid, "[data-testid=nav-people]")
    wait_for('People "3 of 3"', lambda: texts(sid, "[data-testid=people-count]") == ["3 of 3"], timeout=20)
    cache = wait_for("the contacts snapshot in the shell's offline cache",
                     lambda: when(cached_contacts(sid), lambda c: len(c["records"]) == 3), timeout=20)
    assert sorted(r["id"] for r in cache["records"]) == sorted(ids.values()), cache
    assert status(sid)["pendingCount"] == 0
    print(f"ok   client mode ({server}) signed in through the window; People lists 3 contacts and the "
          f"shell cached them (fetchedAtMs {cache['fetchedAtMs']})")
    return cache["fetchedAtMs"]


def check_offline_view(sid, fetched_at_ms):
    hhmm = time.strftime("%H:%M", time.localtime(fetched_at_ms / 1000))
    expected = f"Offline — showing cached data from {hhmm}"
    wait_for(f'status bar "{expected}"', lambda: label(sid) == expected, timeout=40)
    names = sorted(texts(sid, "[data-testid=contact-row-name]"))
    assert names == sorted(c["name"] for c in (ADA, GRACE, ALAN)), f"cached contacts not shown offline: {names}"
    assert texts(sid, "[data-testid=people-count]") == ["3 of 3"], texts(sid, "[data-testid=people-count]")
    print(f"ok   server stopped: status bar {expected!r}; People still lists {names}")


def edit_offline(sid, ids):
    edit_title(sid, ids, "Ada Lovelace", "Offline Engineer")
    edit_title(sid, ids, "Grace Hopper", "Rear Admiral")
    add_contact(sid, KATHERINE)
    wait_for('badge "3 changes waiting to sync"',
             lambda: texts(sid, "[data-testid=offline-pending]") == ["3 changes waiting to sync"], timeout=15)
    assert texts(sid, row(ids["Ada Lovelace"], "contact-row-title")) == ["Offline Engineer"]
    assert texts(sid, row(ids["Grace Hopper"], "contact-row-title")) == ["Rear Admiral"]
    assert "Katherine Johnson" in texts(sid, "[data-testid=contact-row-name]")
    assert texts(sid, "[data-testid=people-count]") == ["4 of 4"], texts(sid, "[data-testid=people-count]")
    assert label(sid).startswith("Offline — showing cached data from"), label(sid)
    s = status(sid)
    assert (s["pendingCount"], s["issueCount"], s["replaying"]) == (3, 0, False), s
    print("ok   offline through the UI: 2 contacts edited, 1 added; badge '3 changes waiting to sync', "
          "the edits and the new contact shown at once (4 of 4)")


def conflict_behind_the_window(relay_bin, server_dir, port, ada_id, sid):
    """The server on 127.0.0.2:PORT (same data): Ada changed over the API, out of the window's reach."""
    proc, aside = start_server(relay_bin, server_dir, bind="127.0.0.2", port=port)
    try:
        wait_for("the server on 127.0.0.2", lambda: api(aside, "GET", "/api/health").get("code") == 200, timeout=20)
        token = token_for(aside)
        changed = api(aside, "PATCH", f"/api/collections/contacts/records/{ada_id}", {"title": "Server Engineer"}, token)
        assert changed["title"] == "Server Engineer", changed
        assert label(sid).startswith("Offline — showing cached data from"), label(sid)
        untouched = status(sid)
        assert (untouched["pendingCount"], untouched["lastReplay"]) == (3, None), f"the window synced: {untouched}"
    finally:
        stop_server(proc)
    print(f"ok   conflict made out of the window's reach: Ada's title changed on the server ({aside}), "
          "which was stopped again")


def check_replay(sid, server, ids):
    connected(sid)
    ended = lambda s: not s["replaying"] and (s["lastReplay"] or {}).get("total") == 3  # noqa: E731
    s = wait_for("the replay to end with one change kept for review", lambda: when(status(sid), ended), timeout=60)
    assert (s["pendingCount"], s["issueCount"]) == (1, 1), s
    assert s["lastReplay"] == {"total": 3, "synced": 2, "conflicts": 1, "failed": 0, "stopped": None}, s
    wait_for('badge "1 change waiting to sync · 1 needs review"',
             lambda: texts(sid, "[data-testid=offline-pending]") == ["1 change waiting to sync · 1 needs review"],
             timeout=15)
    on_server = contacts_on(server)
    assert len(on_server.get("Katherine Johnson", [])) == 1, f"the offline contact not created exactly once: {on_server}"
    assert on_server["Grace Hopper"][0]["title"] == "Rear Admiral", on_server["Grace Hopper"]
    assert on_server["Ada Lovelace"][0]["title"] == "Server Engineer", on_server["Ada Lovelace"]
    assert len(on_server) == 4 and all(len(v) == 1 for v in on_server.values()), on_server
    print(f"ok   back online (Connected): replay {s['lastReplay']}; on the server Katherine Johnson exists once, "
          "Grace's edit applied, Ada kept the server's title; badge '1 change waiting to sync · 1 needs review'")


def review_conflict(sid, server, ada_id):
    click(sid, "[data-testid=offline-pending]")
    rows = wait_for("the pending-change list", lambda: texts(sid, "[data-testid=pending-row]"), timeout=15)
    assert len(rows) == 1 and "Ada Lovelace" in rows[0] and "Server conflict" in rows[0], rows
    print(f"ok   the badge opens the review dialog: {rows[0]!r}")
    click(sid, "[data-testid=pending-row] button")
    wait_for("the review panel with both copies", lambda: texts(sid, "[data-testid=review-compare]"), timeout=15)
    script = ("return [...document.querySelectorAll('[data-testid=review-compare] tbody tr')]"
              ".map(r => [...r.children].map(c => c.textContent.trim()));")
    compare = {r[0]: r[1:] for r in call("POST", f"/session/{sid}/execute/sync", {"script": script, "args": []})["value"]}
    assert compare.get("title") == ["Offline Engineer", "Server Engineer" + "differs"], compare  # + the pill
    assert compare.get("name") == ["Ada Lovelace", "Ada Lovelace"], compare
    out = os.environ.get("DESKTOP_OFFLINE_SCREENSHOT")
    if out:
        with open(out, "wb") as f:
            f.write(base64.b64decode(call("GET", f"/session/{sid}/screenshot")["value"]))
    print(f"ok   review panel: title This PC 'Offline Engineer' beside Server 'Server Engineer' (differs)"
          f"{'; screenshot -> ' + out if out else ''}")
    click(sid, "[data-testid=review-keep-server]")
    wait_for("the emptied list", lambda: texts(sid, "[data-testid=pending-empty]"), timeout=15)
    s = wait_for("an empty queue", lambda: when(status(sid), lambda s: s["pendingCount"] == 0), timeout=15)
    assert s["issueCount"] == 0, s
    wait_for("the badge to go", lambda: not texts(sid, "[data-testid=offline-pending]"), timeout=15)
    click(sid, "[data-testid=pending-changes] button[aria-label=Close]")
    on_server = contacts_on(server)
    assert on_server["Ada Lovelace"][0]["title"] == "Server Engineer", on_server["Ada Lovelace"]
    wait_for("Ada's server title in People",
             lambda: texts(sid, row(ada_id, "contact-row-title")) == ["Server Engineer"], timeout=20)
    print("ok   'Keep server version': the queue is empty, the badge gone, the server copy stays "
          "(API and People: 'Server Engineer')")


def main():
    app, relay_bin = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    assert os.environ.get("DBUS_SESSION_BUS_ADDRESS"), "run inside dbus-run-session with gnome-keyring-daemon"
    started = time.monotonic()
    server_dir = tempfile.mkdtemp(prefix="relay-offline-srv-")
    client_dir = tempfile.mkdtemp(prefix="relay-offline-app-")
    server_proc, server = start_server(relay_bin, server_dir)
    port = int(server.rsplit(":", 1)[1])
    driver = sid = None
    try:
        token = token_for(server)
        ids = {c["name"]: api(server, "POST", "/api/collections/contacts/records", c, token)["id"]
               for c in (ADA, GRACE, ALAN)}
        print(f"ok   relay serve on {server} with 3 contacts")

        saved = os.path.join(client_dir, "desktop.json")
        fd = os.open(saved, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"mode": "client", "serverUrl": server, "allowInsecureHttp": False}, f)
        driver = start_driver()
        sid = open_session(app, ["--data-dir", client_dir, "--no-mdns"])
        fetched_at_ms = sign_in_and_cache(sid, server, ids)

        stop_server(server_proc)
        check_offline_view(sid, fetched_at_ms)
        edit_offline(sid, ids)
        conflict_behind_the_window(relay_bin, server_dir, port, ids["Ada Lovelace"], sid)

        server_proc, again = start_server(relay_bin, server_dir, port=port)
        assert again == server, (again, server)
        check_replay(sid, server, ids)
        review_conflict(sid, server, ids["Ada Lovelace"])
    finally:
        close_session(sid)
        if driver:
            stop_process(driver)
        if server_proc.poll() is None:
            stop_process(server_proc)
        shutil.rmtree(server_dir, ignore_errors=True)
        shutil.rmtree(client_dir, ignore_errors=True)
    print(f"desktop offline client-mode webdriver flow ok ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
