#!/usr/bin/env python3
"""The paired laptop: a client-mode relay-desktop pairs as a protected device and signs commands.

Starts the real `relay serve` on 127.0.0.1; with `relay admin` the Administrator charles creates
and assigns the Publisher pat (password set, active) and starts a pairing for pat. A client-mode
relay-desktop (`--client`, empty data directory) signs in to the server with the passphrase from
its window; then, calling the bridge from the page like the renderer does: `laptop_pair` with the
code (the key lands in the private gnome-keyring, checked over D-Bus, and nowhere in the data
directory: no secret scalar, no JWK `d`, no PKCS#8), `laptop_sign_in` with a wrong then the right
password, `laptop_command` `wiki.category.create` (the category exists on the server),
`laptop_wiki_upload` of a generated PDF through the debug-only pick override (RELAY_TEST_WIKI_PICK,
in place of the GTK chooser; progress queued → uploading → ready on the command's channel, each
chunk signed by the laptop), `laptop_command` `wiki.publish` (the document is on the server's
record API, with the uploaded bytes' checksum), then `relay admin revoke-device` on the server: the next `laptop_command` answers the revoked message
and `laptop_status` says `revoked`; `laptop_forget` removes key and binding. Then the same through
the screen: Settings → Administration pairs with a new code, signs in as pat, adds a Wiki
category (signed by the laptop; it exists on the server), and after another revocation the next
change shows "This laptop's pairing was revoked." with the pair form again.
Run: scripts/desktop-client-flow.sh DESKTOP_BIN RELAY_BIN webdriver_laptop.py
(DESKTOP_LAPTOP_SCREENSHOT=PATH saves the signed-in laptop's Administration screenshot.)
"""
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from webdriver_bridge import api, call, click, close_session, element, invoke, log_text, open_session, start_driver, \
    stop_process, texts, wait_for
from webdriver_client import SECRET, start_server

ADMIN_PW = "charles admin password 1"
PUBLISHER_PW = "pat publisher password 1"
REVOKED = "This laptop's pairing was revoked. Pair it again."


def relay_admin(relay, data_dir, args, stdin=""):
    out = subprocess.run([relay, "admin", "--data-dir", data_dir, *args], input=stdin, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, f"relay admin {args}: {out.stdout}{out.stderr}"
    return out.stdout


def prepare_publisher(relay, data_dir):
    """charles (Administrator) creates and assigns the Publisher pat; returns a pairing code."""
    relay_admin(relay, data_dir, ["set-password", "--username", "charles"], ADMIN_PW + "\n")
    relay_admin(relay, data_dir, ["activate", "--username", "charles"])
    relay_admin(relay, data_dir, ["create-account", "--as", "charles", "--username", "pat", "--display-name", "Pat",
                                  "--kind", "publisher"], ADMIN_PW + "\n")
    relay_admin(relay, data_dir, ["assign-publisher", "--as", "charles", "--username", "pat"], ADMIN_PW + "\n")
    relay_admin(relay, data_dir, ["set-password", "--username", "pat"], PUBLISHER_PW + "\n")
    relay_admin(relay, data_dir, ["activate", "--username", "pat"])
    out = relay_admin(relay, data_dir, ["pair-device", "--as", "charles", "--for", "pat", "--label", "NOC laptop"],
                      ADMIN_PW + "\n")
    line = next(l for l in out.splitlines() if l.startswith("Pairing code for pat: "))
    print("ok   relay admin: Publisher pat created, assigned, active; pairing code issued")
    return line.rsplit(" ", 1)[1]


def keyring_items(entry):
    """Paths of the keyring items with Relay's attributes for `entry` (secrets are not read)."""
    out = subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path",
                          "/org/freedesktop/secrets", "--method", "org.freedesktop.Secret.Service.SearchItems",
                          "{'application': <'relay'>, 'entry': <'" + entry + "'>}"],
                         capture_output=True, text=True, timeout=20)
    if out.returncode != 0:  # gdbus wants a{ss}: retry without variants
        out = subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path",
                              "/org/freedesktop/secrets", "--method", "org.freedesktop.Secret.Service.SearchItems",
                              "{'application': 'relay', 'entry': '" + entry + "'}"],
                             capture_output=True, text=True, timeout=20)
    assert out.returncode == 0, out.stderr
    return out.stdout.count("/org/freedesktop/secrets/collection/")


def files_under(path):
    return [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs]


def check_no_key_in(data_dir):
    """No file of the data directory holds a secret scalar, a private JWK member or PKCS#8."""
    for path in files_under(data_dir):
        with open(path, "rb") as f:
            data = f.read()
        for marker in (b'"d"', b"secretScalar", b"PRIVATE KEY", b"\x30\x81\x87\x02\x01\x00"):
            assert marker not in data, f"{marker!r} in {path}"
        assert PUBLISHER_PW.encode() not in data, f"the password reached {path}"


def err(reply):
    return reply.get("err", {})


def fill(sid, css, text):
    call("POST", f"/session/{sid}/element/{element(sid, css)}/value", {"text": text})


def category_names(server):
    token = api(server, "POST", "/api/collections/users/auth-with-password",
                {"identity": "relay", "password": SECRET})["token"]
    listed = api(server, "GET", "/api/collections/wiki_categories/records?perPage=200", token=token)
    return [r.get("name") for r in listed.get("items", [])]


def pick_pdf():
    """A generated three-page PDF (the Wiki admin flow's runbook) in its own folder; the app
    "chooses" it through RELAY_TEST_WIKI_PICK (debug builds), set before tauri-driver starts."""
    import webdriver_wiki_admin  # noqa: PLC0415 (its PDF builder; it makes scratch folders on import)
    shutil.rmtree(webdriver_wiki_admin.WORK, ignore_errors=True)
    folder = tempfile.mkdtemp(prefix="relay-laptop-pick-")
    path = os.path.join(folder, "laptop-runbook.pdf")
    data = webdriver_wiki_admin.runbook_pdf()
    with open(path, "wb") as f:
        f.write(data)
    os.environ["RELAY_TEST_WIKI_PICK"] = path
    return folder, hashlib.sha256(data).hexdigest()


def laptop_wiki_upload(sid):
    """`laptop_wiki_upload` with a progress channel, as the renderer calls it; answer and events."""
    script = (
        "const done = arguments[arguments.length - 1];"
        "const core = window.__TAURI__.core; const events = [];"
        "const onProgress = new core.Channel(); onProgress.onmessage = (e) => events.push(e);"
        "core.invoke('laptop_wiki_upload', {replacementDocumentId: null, onProgress})"
        ".then(ok => setTimeout(() => done({ok, events}), 300), err => done({err, events}));"
    )
    return call("POST", f"/session/{sid}/execute/async", {"script": script, "args": []})["value"]


def check_laptop_upload(sid, server, pick_dir, checksum):
    """Upload through the pick override, then publish; the document is on the server."""
    reply = laptop_wiki_upload(sid)
    assert "ok" in reply, reply
    summary, events = reply["ok"], reply["events"]
    assert summary["batchId"] and len(summary["files"]) == 1, summary
    done = summary["files"][0]
    assert (done["fileName"], done["state"], done["error"]) == ("laptop-runbook.pdf", "ready", None), done
    assert done["storedChunks"] == done["chunkCount"] == 1, done
    states = [(e["state"], e["storedChunks"]) for e in events]
    assert states == [("queued", 0), ("uploading", 0), ("ready", 1)], states
    assert pick_dir not in json.dumps(reply), "a path reached the renderer"
    payload = {"uploadId": done["uploadId"], "title": "Laptop runbook", "categoryId": "wikiuncategoriz",
               "documentType": "cheatsheet"}
    published = invoke(sid, "laptop_command", {"command": "wiki.publish", "payload": payload, "expectedRevision": None})
    assert "ok" in published, published
    doc_id = published["ok"]["id"]
    token = api(server, "POST", "/api/collections/users/auth-with-password",
                {"identity": "relay", "password": SECRET})["token"]
    doc = api(server, "GET", f"/api/collections/wiki_documents/records/{doc_id}", token=token)
    assert (doc.get("title"), doc.get("checksum"), doc.get("pageCount")) == ("Laptop runbook", checksum, 3), doc
    print(f"ok   laptop_wiki_upload through the pick override: events {states}, summary {done['state']}; "
          f"laptop_command wiki.publish -> document {doc_id} on the server's record API (same SHA-256, 3 pages)")


def check_pairing_from_settings(sid, relay_bin, server_dir, server):
    """The screen: pair with a new code, sign in, add a category, then see the revocation."""
    out = relay_admin(relay_bin, server_dir, ["pair-device", "--as", "charles", "--for", "pat", "--label", "NOC laptop"],
                      ADMIN_PW + "\n")
    code = next(l for l in out.splitlines() if l.startswith("Pairing code for pat: ")).rsplit(" ", 1)[1]
    click(sid, "[data-testid=nav-settings]")
    wait_for("the pair form", lambda: texts(sid, "[data-testid=laptop-pairing][data-pairing=unpaired]"), timeout=20)
    fill(sid, "[data-testid=laptop-pair-username]", "pat")
    fill(sid, "[data-testid=laptop-pair-code]", code)
    click(sid, "[data-testid=laptop-pair-submit]")
    paired = lambda: any("pat" in t for t in texts(sid, "[data-testid=laptop-paired-as]"))  # noqa: E731
    wait_for("Paired as pat", lambda: paired() or texts(sid, "[data-testid=laptop-message].error-text"), timeout=30)
    assert paired(), texts(sid, "[data-testid=laptop-message]")
    fill(sid, "[data-testid=admin-signin-password]", PUBLISHER_PW)
    click(sid, "[data-testid=admin-signin-submit]")
    wait_for("Signed in as pat", lambda: any("pat" in t for t in texts(sid, "[data-testid=admin-session]")), timeout=30)
    wait_for("the Wiki section", lambda: texts(sid, "[data-testid=admin-wiki-category-new]"), timeout=30)
    fill(sid, "[data-testid=admin-wiki-category-new]", "Screen category")
    click(sid, "[data-testid=admin-wiki-category-add]")
    wait_for("the new category listed", lambda: "Screen category" in texts(sid, "[data-testid=admin-wiki-category-name]"),
             timeout=30)
    assert "Screen category" in category_names(server)
    out = os.environ.get("DESKTOP_LAPTOP_SCREENSHOT")
    if out:
        script = "document.querySelector('[data-testid=laptop-paired-as]').scrollIntoView({block: 'start'});"
        call("POST", f"/session/{sid}/execute/sync", {"script": script, "args": []})
        with open(out, "wb") as f:
            f.write(base64.b64decode(call("GET", f"/session/{sid}/screenshot")["value"]))
        print(f"ok   screenshot of the paired laptop's Administration -> {out}")
    device = invoke(sid, "laptop_status")["ok"]["device"]
    print(f"ok   Settings: paired as {device['username']} from the form, signed in, added a Wiki category "
          "(signed on the laptop; on the server)")
    return code


def check_revocation_on_screen(sid, relay_bin, server_dir, client_dir):
    with open(os.path.join(client_dir, "laptop-device.json"), encoding="utf-8") as f:
        device_id = json.load(f)["deviceId"]
    relay_admin(relay_bin, server_dir, ["revoke-device", "--as", "charles", "--device", device_id], ADMIN_PW + "\n")
    fill(sid, "[data-testid=admin-wiki-category-new]", "After revocation")
    click(sid, "[data-testid=admin-wiki-category-add]")
    wait_for("the revoked notice", lambda: any("revoked" in t for t in texts(sid, "[data-testid=laptop-revoked]")), timeout=30)
    assert texts(sid, "[data-testid=laptop-pair-submit]"), "the pair form is offered again"
    print("ok   Settings: after revoke-device on the server the next change shows the revoked pairing and the pair form")


def main():
    app, relay_bin = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    assert os.environ.get("DBUS_SESSION_BUS_ADDRESS"), "run inside scripts/desktop-client-flow.sh"
    server_dir = tempfile.mkdtemp(prefix="relay-laptop-srv-")
    client_dir = tempfile.mkdtemp(prefix="relay-laptop-app-")
    server_proc, server = start_server(relay_bin, server_dir)
    pick_dir, pick_checksum = pick_pdf()  # before tauri-driver: the app inherits its environment
    proc = start_driver()
    sid = None
    try:
        code = prepare_publisher(relay_bin, server_dir)
        sid = open_session(app, ["--data-dir", client_dir, "--client", server, "--no-mdns"])
        wait_for("the sign-in screen", lambda: texts(sid, "[data-testid=signin-submit]"), timeout=30)
        status = invoke(sid, "laptop_status")["ok"]
        assert status == {"available": True, "pairing": "unpaired", "device": None, "session": None}, status
        early = invoke(sid, "laptop_pair", {"username": "pat", "code": code, "label": "NOC laptop"})
        assert err(early).get("code") == "locked", f"pairing before signing in to Relay: {early}"
        print(f"ok   client mode: laptop_status {status}; pairing needs the Relay sign-in first")

        field = element(sid, "[data-testid=signin-passphrase]")
        call("POST", f"/session/{sid}/element/{field}/value", {"text": SECRET})
        click(sid, "[data-testid=signin-submit]")
        wait_for('status bar "Connected"', lambda: "Connected" in texts(sid, "[data-testid=status-connection]"),
                 timeout=30)

        wrong_code = invoke(sid, "laptop_pair", {"username": "pat", "code": "ZZZZZZZZ", "label": "NOC laptop"})
        assert err(wrong_code).get("code") == "rejected", wrong_code
        paired = invoke(sid, "laptop_pair", {"username": "pat", "code": code, "label": "NOC laptop"})
        status = paired["ok"]
        assert status["pairing"] == "paired" and status["session"] is None, status
        device = status["device"]
        assert (device["username"], device["label"], device["role"]) == ("pat", "NOC laptop", "publisher"), device
        assert len(device["fingerprintSuffix"]) == 8, device
        entry = "device-key:" + hashlib.sha256(server.encode()).hexdigest()
        assert keyring_items(entry) == 1, "the signing key is not in the OS keyring"
        binding_path = os.path.join(client_dir, "laptop-device.json")
        assert oct(os.stat(binding_path).st_mode & 0o777) == "0o600"
        with open(binding_path, encoding="utf-8") as f:
            binding = json.load(f)
        assert binding["fingerprint"].endswith(device["fingerprintSuffix"]) and not binding["revoked"], binding
        check_no_key_in(client_dir)
        print(f"ok   laptop_pair: wrong code rejected; paired as {device}; key in the keyring only, "
              "binding 0600 without secrets")

        wrong = invoke(sid, "laptop_sign_in", {"password": "not pat's password"})
        assert err(wrong) == {"code": "rejected", "message": "Wrong password, or the account is not active."}, wrong
        before = invoke(sid, "laptop_command", {"command": "wiki.category.create",
                                                "payload": {"name": "Laptop category"}, "expectedRevision": None})
        assert err(before).get("code") == "locked", before
        signed = invoke(sid, "laptop_sign_in", {"password": PUBLISHER_PW})["ok"]
        assert signed["session"]["username"] == "pat" and signed["session"]["role"] == "publisher", signed
        print(f"ok   laptop_sign_in: wrong password rejected, commands locked; then session {signed['session']}")

        local = invoke(sid, "laptop_command", {"command": "pairing.start", "payload": {"accountId": binding["accountId"]},
                                               "expectedRevision": None})
        assert err(local).get("code") in ("forbidden", "invalid"), local
        result = invoke(sid, "laptop_command", {"command": "wiki.category.create",
                                                "payload": {"name": "Laptop category"}, "expectedRevision": None})
        assert "ok" in result, result
        token = api(server, "POST", "/api/collections/users/auth-with-password",
                    {"identity": "relay", "password": SECRET})["token"]
        listed = api(server, "GET", "/api/collections/wiki_categories/records?perPage=200", token=token)
        names = [r.get("name") for r in listed.get("items", [])]
        assert "Laptop category" in names, names
        check_no_key_in(client_dir)
        print(f"ok   laptop_command wiki.category.create signed with the keyring key: {json.dumps(result['ok'])[:120]}; "
              "the category exists on the server; a server-PC-only command is refused locally")
        check_laptop_upload(sid, server, pick_dir, pick_checksum)

        relay_admin(relay_bin, server_dir, ["revoke-device", "--as", "charles", "--device", binding["deviceId"]],
                    ADMIN_PW + "\n")
        revoked = invoke(sid, "laptop_command", {"command": "wiki.category.create",
                                                 "payload": {"name": "After revocation"}, "expectedRevision": None})
        assert err(revoked) == {"code": "locked", "message": REVOKED}, revoked
        status = invoke(sid, "laptop_status")["ok"]
        assert status["pairing"] == "revoked" and status["session"] is None, status
        print(f"ok   after relay admin revoke-device: {err(revoked)}; laptop_status {status['pairing']}")

        forgot = invoke(sid, "laptop_forget")["ok"]
        assert forgot["pairing"] == "unpaired" and forgot["device"] is None, forgot
        assert keyring_items(entry) == 0 and not os.path.exists(binding_path)
        print("ok   laptop_forget removed the key from the keyring and the binding file")
        second_code = check_pairing_from_settings(sid, relay_bin, server_dir, server)
        check_revocation_on_screen(sid, relay_bin, server_dir, client_dir)
        leaked = [s for s in (PUBLISHER_PW, "not pat's password", code, second_code, pick_dir) if s in log_text()]
        assert not leaked, f"secrets or the chosen file's path in the app and server logs: {len(leaked)}"
        print("ok   no password, pairing code or chosen file's path in the logs (only refusal codes)")
    finally:
        close_session(sid)
        for p in (proc, server_proc):
            stop_process(p)
        shutil.rmtree(server_dir, ignore_errors=True)
        shutil.rmtree(client_dir, ignore_errors=True)
        shutil.rmtree(pick_dir, ignore_errors=True)
    print("desktop paired-laptop webdriver flow ok")


if __name__ == "__main__":
    main()
