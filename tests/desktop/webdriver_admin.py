#!/usr/bin/env python3
"""Drives the server PC's Administration screen (Settings → Administration) in the real
relay-desktop window over WebDriver (tauri-driver + WebKitWebDriver), against the in-process
server and its privileged actor:

1. fresh data dir, server-mode desktop; the Owner `ryan` gets a password and is activated with
   `relay admin` over the running server's control socket;
2. sign-in as ryan through the form: a wrong password is refused (and the field is emptied),
   the right one shows "Signed in as ryan (Owner)" and the accounts ryan and charles;
3. a Publisher account `pat` created, given a password, activated and assigned as the Publisher,
   all through the screen; no password (nor, once its dialog closed, the pairing code) in the
   page's HTML, the driver/app log or DATA/logs/relay.log;
4. a pairing code for pat (XXXX-XXXX, "Expires in 9:5x"; the screenshot), redeemed over HTTP
   with a P-256 key (`cryptography`), the device listed under pat, then revoked;
5. the Owner sets up charles; signed in as the Administrator charles, the screen offers no
   ownership transfer, and the bridge itself refuses ownership.transfer and a password change of
   the Owner sent directly (UI bypassed);
6. a Relay sign-out ends the Administration session: signed in to Administration, signed out
   of Relay and signed in again, the screen asks for the password again;
7. the idle lock: the debug clock (RELAY_TEST_CLOCK_OFFSET_FILE) jumps 16 minutes and the
   screen's 30 s status poll returns to the sign-in form with the locked message.

Run under Xvfb: xvfb-run -a python3 tests/desktop/webdriver_admin.py DESKTOP_BIN RELAY_BIN
(DESKTOP_ADMIN_SCREENSHOT=PATH saves the pairing-code screenshot.)
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import struct
import time
import urllib.request
import zlib

WORK = tempfile.mkdtemp(prefix="relay-desktop-admin-")
os.environ.setdefault("DESKTOP_WEBDRIVER_LOG", os.path.join(WORK, "webdriver.log"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webdriver_bridge import (api, call, click, close_session, element, invoke, log_text,  # noqa: E402
                              open_session, start_driver, stop_process, texts, wait_for)

OWNER_PW = "owner-Pw-7719-adm-zq"
WRONG_PW = "wrong-Pw-3301-adm-xk"
PAT_PW = "pat-Pw-5520-adm-rv"
CHARLES_PW = "charles-Pw-8842-adm-mt"
DIRECT_PW = "administrator-sets-0wner"
# What must never reach the page HTML or a log (the pairing code joins once it was shown and closed).
SECRETS = [OWNER_PW, WRONG_PW, PAT_PW, CHARLES_PW, DIRECT_PW]
LOCKED = "The administration session locked. Sign in again."


def type_into(sid, css, text):
    el = element(sid, css)
    call("POST", f"/session/{sid}/element/{el}/clear", {})
    call("POST", f"/session/{sid}/element/{el}/value", {"text": text})


def value_of(sid, css):
    return call("GET", f"/session/{sid}/element/{element(sid, css)}/property/value")["value"]


def html(sid):
    return call("POST", f"/session/{sid}/execute/sync",
                {"script": "return document.documentElement.outerHTML;", "args": []})["value"]


def message(sid):
    return " ".join(texts(sid, "[data-testid=admin-message]"))


def wait_message(sid, what, needle, timeout=30):
    """Waits for the screen's notice to contain `needle`. A fresh-password prompt that shows up
    instead (the session's password older than 5 minutes on a slow machine) is answered with
    the signed-in user's password, then the wait goes on."""
    def check():
        if texts(sid, "[data-testid=admin-fresh-password-dialog]"):
            print(f"note a fresh-password prompt appeared for {what}; answering it")
            type_into(sid, "[data-testid=admin-fresh-password]", wait_message.password)
            click(sid, "[data-testid=admin-fresh-password-dialog] [data-testid=admin-dialog-submit]")
            return None
        return needle in message(sid) and message(sid)
    return wait_for(f"{what}: {needle!r}", check, timeout=timeout)


wait_message.password = OWNER_PW


def snapshot(sid):
    snap = invoke(sid, "admin_command", {"command": "admin.snapshot", "payload": {}, "expectedRevision": None})
    assert "ok" in snap, f"admin.snapshot refused: {snap}"
    return snap["ok"]


def account_id(snap, username):
    return next(a["id"] for a in snap["accounts"] if a["username"] == username)


def row(sid, acc, css=""):
    return f'[data-testid=admin-account][data-account="{acc}"] {css}'.strip()


def no_secrets(sid, data_dir, when):
    page = html(sid)
    with open(os.path.join(data_dir, "logs", "relay.log"), encoding="utf-8", errors="replace") as f:
        logs = log_text() + f.read()
    for i, secret in enumerate(SECRETS):
        assert secret not in page, f"secret #{i} is in the page HTML {when}"
        assert secret not in logs, f"secret #{i} is in the app log {when}"


def relay_admin(relay, data_dir, args, stdin=""):
    out = subprocess.run([relay, "admin", "--data-dir", data_dir, *args], input=stdin, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, f"relay admin {args} failed: {out.stdout}{out.stderr}"
    return out.stdout


def sign_in_app(sid, data_dir):
    """The app's own sign-in (the data-dir passphrase), then Settings → Administration."""
    with open(os.path.join(data_dir, "secrets", "passphrase"), encoding="utf-8") as f:
        secret = f.read().strip()
    type_into(sid, "[data-testid=signin-passphrase]", secret)
    click(sid, "button[type=submit]")
    wait_for('status bar "Connected"', lambda: "Connected" in " ".join(texts(sid, "[data-testid=status-connection]")))
    click(sid, "[data-testid=nav-settings]")
    wait_for("the Administration sign-in form", lambda: texts(sid, "[data-testid=admin-signin]"), timeout=20)
    return secret


def admin_sign_in(sid, username, password):
    type_into(sid, "[data-testid=admin-signin-username]", username)
    type_into(sid, "[data-testid=admin-signin-password]", password)
    click(sid, "[data-testid=admin-signin-submit]")


def check_sign_in(sid):
    admin_sign_in(sid, "ryan", WRONG_PW)
    refusal = wait_for("the refusal", lambda: "Wrong username or password" in message(sid) and message(sid))
    assert texts(sid, "[data-testid=admin-signin]") and not texts(sid, "[data-testid=admin-session]")
    assert value_of(sid, "[data-testid=admin-signin-password]") == "", "the password field kept the wrong password"
    print(f"ok   wrong password refused ({refusal!r}); the password field is empty again")

    admin_sign_in(sid, "ryan", OWNER_PW)
    who = wait_for("the Owner's session", lambda: texts(sid, "[data-testid=admin-session] > span"), timeout=20)[0]
    assert "Signed in as ryan (Owner)" in who, who
    rows = wait_for("ryan and charles in the accounts table",
                    lambda: (lambda t: len(t) == 2 and t)(texts(sid, "[data-testid=admin-account]")), timeout=20)
    assert any("ryan" in r for r in rows) and any("charles" in r for r in rows), rows
    lock_at = texts(sid, "[data-testid=admin-lock-at]")[0]
    assert re.fullmatch(r"Locks at \d\d:\d\d", lock_at), lock_at
    print(f"ok   signed in: {who!r} ({lock_at}); the table lists ryan and charles")


def check_sign_out_ends_administration(sid, data_dir):
    """Signed in to Administration, a Relay sign-out and a new sign-in: Administration asks for
    the password again (the sign-out ended every local session of the server PC)."""
    assert invoke(sid, "admin_status")["ok"]["session"] is not None, "not signed in to Administration"
    click(sid, "[data-testid=sign-out]")
    wait_for("the app's sign-in screen", lambda: texts(sid, "[data-testid=signin-passphrase]"), timeout=20)
    wait_for("the Administration session ended", lambda: invoke(sid, "admin_status")["ok"]["session"] is None,
             timeout=10)
    sign_in_app(sid, data_dir)
    assert not texts(sid, "[data-testid=admin-session]"), "Administration stayed signed in after a Relay sign-out"
    admin_sign_in(sid, "ryan", OWNER_PW)
    who = wait_for("the Owner's session again", lambda: texts(sid, "[data-testid=admin-session] > span"), timeout=20)
    assert "Signed in as ryan (Owner)" in who[0], who
    print("ok   a Relay sign-out ended the Administration session; after signing in again it asked for the "
          "password")


def set_password(sid, acc, password, who):
    click(sid, row(sid, acc, "[data-testid=admin-set-password-open]"))
    type_into(sid, "[data-testid=admin-new-password]", password)
    click(sid, "[data-testid=admin-set-password] [data-testid=admin-dialog-submit]")
    wait_message(sid, f"the password of {who}", "Password set for")
    wait_for(f"{who}: password Configured",
             lambda: texts(sid, row(sid, acc, "[data-testid=admin-password]")) == ["Configured"], timeout=10)


def activate(sid, acc, who):
    click(sid, row(sid, acc, "[data-testid=admin-activate]"))
    wait_message(sid, f"activating {who}", "is active now")
    wait_for(f"{who}: Active", lambda: "Active" in " ".join(texts(sid, row(sid, acc, "td"))).split(), timeout=10)


def check_publisher(sid, data_dir):
    click(sid, "[data-testid=admin-create-open]")
    type_into(sid, "[data-testid=admin-create-username]", "pat")
    type_into(sid, "[data-testid=admin-create-display]", "Pat Night")
    kind = call("POST", f"/session/{sid}/execute/sync", {"script":
                "return document.querySelector('[data-testid=admin-create-kind]').value;", "args": []})["value"]
    assert kind == "publisher", f"the new account's kind defaults to {kind!r}"
    click(sid, "[data-testid=admin-create] [data-testid=admin-dialog-submit]")
    wait_message(sid, "creating pat", "Account pat created")
    pat = account_id(snapshot(sid), "pat")
    cells = wait_for("pat in the table", lambda: texts(sid, row(sid, pat, "td")), timeout=10)
    assert cells[0] == "Publisher" and "Inactive" in cells and "Not configured" in cells, cells
    print(f"ok   created the Publisher account pat through the dialog ({cells[:4]})")

    set_password(sid, pat, PAT_PW, "pat")
    print("ok   set pat's password through the dialog (Password: Configured)")
    activate(sid, pat, "pat")
    print("ok   activated pat (Status: Active)")

    click(sid, f'[data-testid=admin-publisher-select] option[value="{pat}"]')
    click(sid, "[data-testid=admin-publisher-assign]")
    confirm = wait_for("the assign confirmation", lambda: texts(sid, "[data-testid=confirm-dialog]"), timeout=10)[0]
    assert "Pat Night (pat) becomes the Publisher" in confirm, confirm
    click(sid, "[data-testid=confirm-ok]")
    wait_message(sid, "assigning the Publisher", "is the Publisher now")
    wait_for("Publisher: Pat Night (pat)",
             lambda: texts(sid, "[data-testid=admin-publisher]") == ["Pat Night (pat)"], timeout=10)
    assert texts(sid, row(sid, pat, "[data-testid=admin-role]")) == ["Publisher"]
    print(f"ok   assigned pat as the Publisher after the confirmation ({confirm!r})")
    no_secrets(sid, data_dir, "after setting pat's password")
    print("ok   no password in the page HTML, the driver/app log or DATA/logs/relay.log")
    return pat


def jwk_key():
    from cryptography.hazmat.primitives.asymmetric import ec
    nums = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
    b64 = lambda n: base64.urlsafe_b64encode(n.to_bytes(32, "big")).rstrip(b"=").decode()  # noqa: E731
    return {"kty": "EC", "crv": "P-256", "x": b64(nums.x), "y": b64(nums.y)}


def check_pairing(sid, pat, server, secret):
    click(sid, row(sid, pat, "[data-testid=admin-pair-open]"))
    type_into(sid, "[data-testid=admin-pair-label]", "NOC laptop 3")
    click(sid, "[data-testid=admin-pair] [data-testid=admin-dialog-submit]")
    code = wait_for("the pairing code", lambda: texts(sid, "[data-testid=admin-pairing-value]"), timeout=20)[0]
    assert re.fullmatch(r"[A-Z0-9]{4}-[A-Z0-9]{4}", code), code
    # 10 minutes, rounded up: "10:00" for the first second, then "9:59", "9:58"...
    expiry = wait_for('"Expires in 9:5x"', lambda: (lambda t: t and re.fullmatch(r"Expires in 9:5\d", t[0]) and t[0])(
        texts(sid, "[data-testid=admin-pairing-expiry]")), timeout=5)
    print(f"ok   pairing code for pat shown: {code[:2]}..-.... ({expiry!r})")
    out = os.environ.get("DESKTOP_ADMIN_SCREENSHOT")
    if out:
        with open(out, "wb") as f:
            f.write(base64.b64decode(call("GET", f"/session/{sid}/screenshot")["value"]))
        print(f"ok   screenshot of the pairing code -> {out}")

    token = api(server, "POST", "/api/collections/users/auth-with-password",
                {"identity": "relay", "password": secret})["token"]
    paired = api(server, "POST", "/api/relay/privileged/pair",
                 {"username": "pat", "code": code, "publicJwk": jwk_key(), "label": "NOC laptop 3",
                  "hostname": "noc-laptop-3"}, token)
    assert paired.get("accountId") == pat and paired.get("role") == "publisher", paired
    print(f"ok   the code redeemed over HTTP with a P-256 key (device {paired['deviceId']}, role publisher)")

    click(sid, "[data-testid=admin-pairing-code] .row-end button")
    wait_for("the code dialog to close", lambda: not texts(sid, "[data-testid=admin-pairing-code]"), timeout=10)
    assert code not in html(sid), "the pairing code is still in the page after its dialog closed"
    SECRETS.append(code)
    click(sid, "[data-testid=admin-audit-verify]")  # re-reads the snapshot after the command
    audit = wait_message(sid, "the audit verification", "chain verified")
    device = wait_for("the device under pat", lambda: texts(sid, row(sid, pat, "[data-testid=admin-device]")), timeout=10)[0]
    assert "NOC laptop 3" in device and "noc-laptop-3" in device and "active" in device, device
    print(f"ok   {audit!r}; the device is listed under pat ({device!r})")

    click(sid, row(sid, pat, "[data-testid=admin-revoke]"))
    confirm = wait_for("the revoke confirmation", lambda: texts(sid, "[data-testid=confirm-dialog]"), timeout=10)[0]
    assert "NOC laptop 3 (noc-laptop-3) of Pat Night (pat)" in confirm, confirm
    click(sid, "[data-testid=confirm-ok]")
    wait_message(sid, "revoking the device", "Device revoked.")
    wait_for("the device revoked", lambda: "revoked" in " ".join(texts(sid, row(sid, pat, "[data-testid=admin-device]"))),
             timeout=10)
    assert not texts(sid, row(sid, pat, "[data-testid=admin-revoke]")), "Revoke still offered"
    state = next(d["state"] for d in snapshot(sid)["devices"] if d["id"] == paired["deviceId"])
    assert state == "revoked", state
    print("ok   revoked the device after the confirmation (state revoked, no Revoke button)")


def check_administrator(sid, data_dir):
    snap = snapshot(sid)
    ryan, charles = account_id(snap, "ryan"), account_id(snap, "charles")
    set_password(sid, charles, CHARLES_PW, "charles")
    activate(sid, charles, "charles")
    assert texts(sid, "[data-testid=admin-owner-select]"), "the Owner is offered no ownership transfer"
    print("ok   the Owner set charles's password and activated him; the Owner sees the transfer control")

    click(sid, "[data-testid=admin-lock]")
    wait_for("the sign-in form after Lock", lambda: texts(sid, "[data-testid=admin-signin]") and
             "Administration locked." in message(sid), timeout=15)
    assert invoke(sid, "admin_status")["ok"]["session"] is None
    admin_sign_in(sid, "charles", CHARLES_PW)
    wait_message.password = CHARLES_PW
    who = wait_for("charles's session", lambda: texts(sid, "[data-testid=admin-session] > span"), timeout=20)[0]
    assert "Signed in as charles (Administrator)" in who, who
    wait_for("the authority section", lambda: texts(sid, "[data-testid=admin-authority]"), timeout=10)
    assert not texts(sid, "[data-testid=admin-owner-select]") and not texts(sid, "[data-testid=admin-owner-transfer]"), \
        "an Administrator is offered the ownership transfer"
    assert not texts(sid, row(sid, ryan, "[data-testid=admin-set-password-open]")) and \
        not texts(sid, row(sid, ryan, "[data-testid=admin-reset-password]")), "an Administrator may reset the Owner"
    print(f"ok   Lock, then {who!r}: no ownership transfer and no password control for ryan offered")

    rev = snapshot(sid)["authority"]["revision"]
    for target in (charles, ryan):
        res = invoke(sid, "admin_command", {"command": "ownership.transfer", "payload": {"accountId": target},
                                            "expectedRevision": rev})
        err = res.get("err") or {}
        assert err.get("code") == "rejected" and "Owner" in err.get("message", ""), f"transfer not refused: {res}"
    res = invoke(sid, "admin_command", {"command": "accounts.setPassword",
                                        "payload": {"accountId": ryan, "password": DIRECT_PW},
                                        "expectedRevision": None})
    assert (res.get("err") or {}).get("code") == "rejected", f"an Administrator changed the Owner's password: {res}"
    assert snapshot(sid)["authority"]["ownerAccountId"] == ryan
    print(f"ok   bridge refused charles's ownership.transfer ({err['message']!r}) and setPassword on ryan "
          f"({res['err']['message']!r}); ryan is still the Owner")
    no_secrets(sid, data_dir, "after charles's sign-in")
    # The refusal reads as the bridge's own unit test expects it ("not permitted: <why>", once).
    assert err["message"] == "not permitted: only the Owner can transfer ownership", \
        f"the refusal repeats its prefix: {err['message']!r}"


def png(width, height):
    """A real RGB PNG (filter byte 0, zlib-compressed rows), so the test needs no image library."""
    raw = b"".join(b"\x00" + bytes((y % 256, x % 256, 128)[c] for x in range(width) for c in range(3))
                   for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def check_logos(sid, server, secret):
    """As the Administrator: a company logo set through the bridge is served (inside 400x400) to
    signed-in clients; a file that is not an image is refused with the pipeline's message."""
    wide = base64.b64encode(png(900, 120)).decode()
    res = invoke(sid, "admin_set_logo", {"kind": "company", "imageBase64": wide})
    stored = res.get("ok") or {}
    assert stored.get("width") == 400 and stored.get("height", 0) <= 400, f"the logo was not resized into 400x400: {res}"
    token = api(server, "POST", "/api/collections/users/auth-with-password",
                {"identity": "relay", "password": secret})["token"]
    req = urllib.request.Request(server + "/api/relay/branding/logo/company", headers={"Authorization": token})
    with urllib.request.urlopen(req, timeout=20) as served:
        assert served.headers["Content-Type"] == "image/png" and served.read(8) == b"\x89PNG\r\n\x1a\n"
    bad = invoke(sid, "admin_set_logo", {"kind": "footer", "imageBase64": base64.b64encode(b"not an image").decode()})
    assert (bad.get("err") or {}).get("message") == "Image must be a PNG, JPEG or WebP file", bad
    print(f"ok   the Administrator set the company logo ({stored['width']}x{stored['height']}, served as PNG); "
          f"a non-image was refused ({bad['err']['message']!r})")


def check_idle_lock(sid, offset_file):
    with open(offset_file, "w", encoding="utf-8") as f:
        f.write("960000\n")
    started = time.monotonic()
    wait_for("the idle lock on the screen", lambda: texts(sid, "[data-testid=admin-signin]") and LOCKED in message(sid),
             timeout=40)
    status = invoke(sid, "admin_status")
    assert status.get("ok", {}).get("available") is True and status["ok"]["session"] is None, status
    assert not texts(sid, "[data-testid=admin-accounts]"), "the accounts stayed on screen after the lock"
    print(f"ok   idle lock (clock +16 min): the sign-in form with {LOCKED!r} after "
          f"{time.monotonic() - started:.0f} s; admin_status session null")


def main():
    app, relay = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/relay-no-bus"
    offset_file = os.path.join(WORK, "clock-offset-ms")
    with open(offset_file, "w", encoding="utf-8") as f:
        f.write("0\n")
    # The app inherits the environment of tauri-driver (through WebKitWebDriver).
    os.environ["RELAY_TEST_CLOCK_OFFSET_FILE"] = offset_file
    data_dir = os.path.join(WORK, "data")
    started = time.monotonic()
    proc = start_driver()
    sid = None
    ok = False
    try:
        sid = open_session(app, ["--data-dir", data_dir, "--server-mode", "--bind", "127.0.0.1", "--no-mdns",
                                 "--port", "0"])
        info = invoke(sid, "connection_info")["ok"]
        assert info["mode"] == "server", info
        wait_for("the control socket", lambda: os.path.exists(os.path.join(data_dir, "control.sock")), timeout=30)
        relay_admin(relay, data_dir, ["set-password", "--username", "ryan"], OWNER_PW + "\n")
        relay_admin(relay, data_dir, ["activate", "--username", "ryan"])
        listed = relay_admin(relay, data_dir, ["list"])
        assert re.search(r"ryan\s.*active\s+role=owner\s+password=Configured", listed), listed
        print("ok   relay admin (over the running server's control socket) set ryan's password and activated him")

        secret = sign_in_app(sid, data_dir)
        print("ok   Settings → Administration shows its sign-in form")
        check_sign_in(sid)
        check_sign_out_ends_administration(sid, data_dir)
        pat = check_publisher(sid, data_dir)
        check_pairing(sid, pat, info["serverUrl"], secret)
        check_administrator(sid, data_dir)
        check_logos(sid, info["serverUrl"], secret)
        check_idle_lock(sid, offset_file)
        no_secrets(sid, data_dir, "at the end")
        ok = True
    finally:
        if not ok:
            print("---- webdriver/app log (tail) ----\n" + "\n".join(log_text().splitlines()[-40:]), file=sys.stderr)
        close_session(sid)
        stop_process(proc)
        shutil.rmtree(WORK, ignore_errors=True)
    print(f"desktop administration flow ok ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
