#!/usr/bin/env python3
"""Client mode of the real relay-desktop window over WebDriver, with the OS secret store.

Starts the real `relay serve` on 127.0.0.1 (known passphrase), then relay-desktop with an empty
data directory under tauri-driver: the setup screen refuses bad choices, saves client mode with
that origin and restarts; later launches (no mode flag) come up in client mode from it. Must run inside a private D-Bus session with an
unlocked gnome-keyring (scripts/test.sh starts one with dbus-run-session), so the desktop picks
the OS secret store. Checks: connection_info reports client mode and the OS secret store with
nothing remembered; signing in from the window with "Remember on this computer" reaches the
server and stores the passphrase in the keyring, never as a file in the data directory; after a
restart of the app the sign-in screen offers the saved passphrase, which signs in without typing;
forget_passphrase removes it; stability_status answers with no failures.
Run: dbus-run-session + gnome-keyring-daemon, then xvfb-run -a python3 ... DESKTOP_BIN RELAY_BIN
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from webdriver_bridge import (LOG, api, call, click, click_that_restarts, close_session, element, invoke, log_text, open_session,
                              start_driver, stop_process, texts, wait_for)

SECRET = "client mode keyring passphrase"


def start_server(relay_bin, data_dir, bind="127.0.0.1", port=0):
    """`relay serve` on bind:port (0: a free port) with SECRET; returns the process and its URL
    once its runtime.json (a stale one from an earlier run on data_dir is removed) names it."""
    env = dict(os.environ, RELAY_BOOTSTRAP_PASSPHRASE=SECRET)
    runtime = os.path.join(data_dir, "runtime.json")
    if os.path.exists(runtime):
        os.remove(runtime)
    proc = subprocess.Popen([relay_bin, "serve", "--data-dir", data_dir, "--port", str(port), "--bind", bind],
                            stdout=LOG, stderr=subprocess.STDOUT, env=env)
    wait_for("relay serve runtime.json", lambda: os.path.exists(runtime), timeout=30)
    with open(runtime, encoding="utf-8") as f:
        port = json.load(f)["port"]
    return proc, f"http://{bind}:{port}"


def session(app, data_dir):
    # No mode flag: the saved setup (desktop.json) decides. mDNS stays off in tests.
    return open_session(app, ["--data-dir", data_dir, "--no-mdns"])


def connected(sid):
    return wait_for('status bar "Connected"',
                    lambda: "Connected" in texts(sid, "[data-testid=status-connection]"), timeout=30)


def setup_client_mode(sid, client_dir, server):
    """First start with nothing saved: the setup screen. Bad choices are refused by the shell;
    choosing client mode with the server's URL saves desktop.json and restarts the app."""
    wait_for("the setup screen", lambda: texts(sid, "[data-testid=setup-save]"), timeout=30)
    info = invoke(sid, "connection_info")["ok"]
    assert info["mode"] == "setup" and info["serverUrl"] == "", info
    found = invoke(sid, "discover_servers")
    assert found.get("err", {}).get("code") == "unavailable", f"--no-mdns must refuse discovery: {found}"
    bad = invoke(sid, "save_setup", {"setup": {"mode": "client", "serverUrl": "http://relay.example.com",
                                               "allowInsecureHttp": False}})
    assert bad.get("err", {}).get("code") == "invalid", bad
    bad = invoke(sid, "save_setup", {"setup": {"mode": "server", "lanAccess": True, "bind": "0.0.0.0"}})
    assert "err" in bad, bad
    saved_path = os.path.join(client_dir, "desktop.json")
    assert not os.path.exists(saved_path), "a refused setup was saved"
    print(f"ok   setup screen shown ({info}); public HTTP and unknown fields refused; discovery off")

    click(sid, "[data-testid=setup-client]")
    call("POST", f"/session/{sid}/element/{element(sid, '[data-testid=setup-url]')}/value", {"text": server + "/"})
    typed = "return document.querySelector('[data-testid=setup-url]').value;"
    wait_for("the typed URL", lambda: call("POST", f"/session/{sid}/execute/sync",
                                            {"script": typed, "args": []})["value"] == server + "/", timeout=10)
    time.sleep(0.5)
    out = os.environ.get("DESKTOP_SETUP_SCREENSHOT")
    if out:  # the setup screen with client mode chosen and the URL typed
        with open(out, "wb") as f:
            f.write(base64.b64decode(call("GET", f"/session/{sid}/screenshot")["value"]))
    click_that_restarts(sid, "[data-testid=setup-save]")
    wait_for("desktop.json", lambda: os.path.exists(saved_path), timeout=15)
    with open(saved_path, encoding="utf-8") as f:
        saved = json.load(f)
    assert saved == {"mode": "client", "serverUrl": server, "allowInsecureHttp": False}, saved
    assert oct(os.stat(saved_path).st_mode & 0o777) == "0o600"
    # The app restarts itself into the saved setup (its log shows a client-mode start with the
    # saved origin); that new process is not WebDriver's: end it.
    wait_for("the restarted app in client mode",
             lambda: f"relay desktop starting server={server}" in log_text(), timeout=20)
    subprocess.run(["pkill", "-f", client_dir], check=False)
    try:
        call("DELETE", f"/session/{sid}", timeout=20, attempts=1)
    except Exception:  # noqa: BLE001 (the app it drove is gone)
        pass
    wait_for("the restarted app to exit", lambda: subprocess.run(["pgrep", "-f", client_dir],
                                                                  capture_output=True).returncode != 0, timeout=15)
    print(f"ok   setup saved (client mode, normalized URL, 0600) and the app restarted into it")


def check_server_passphrase_in_keyring(app):
    """A server-mode desktop with the OS secret store keeps its own passphrase there: no
    plaintext file in the data directory; reveal_passphrase returns it and it signs in."""
    data_dir = tempfile.mkdtemp(prefix="relay-client-own-server-")
    sid = open_session(app, ["--data-dir", data_dir, "--server-mode", "--bind", "127.0.0.1", "--no-mdns", "--port", "0"])
    try:
        info = invoke(sid, "connection_info")["ok"]
        assert info["mode"] == "server" and info["secretStorage"] == "os-secret-store", info
        secret = invoke(sid, "reveal_passphrase")["ok"]
        assert not os.path.exists(os.path.join(data_dir, "secrets", "passphrase")), "plaintext passphrase file"
        token = api(info["serverUrl"], "POST", "/api/collections/users/auth-with-password",
                    {"identity": "relay", "password": secret})["token"]
        assert token
        print("ok   a server-mode desktop keeps its passphrase in the OS keyring (no file); it signs in")
    finally:
        close_session(sid)
        shutil.rmtree(data_dir, ignore_errors=True)


def check_single_instance(app):
    """A second launch on the same D-Bus session hands over to the running app (which logs that
    it focuses its main window) and exits by itself instead of opening another window."""
    other = tempfile.mkdtemp(prefix="relay-client-second-")
    try:
        second = subprocess.run([app, "--data-dir", other, "--no-mdns"], capture_output=True, timeout=60)
    finally:
        shutil.rmtree(other, ignore_errors=True)
    wait_for("the running app to see the second launch",
             lambda: "second instance started; focusing the main window" in log_text(), timeout=10)
    print(f"ok   single instance: a second launch exited by itself (code {second.returncode}) "
          "and the running app focused its window")


def files_under(path):
    return [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs]


def main():
    app, relay_bin = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    assert os.environ.get("DBUS_SESSION_BUS_ADDRESS"), "run inside dbus-run-session with gnome-keyring-daemon"
    server_dir = tempfile.mkdtemp(prefix="relay-client-srv-")
    client_dir = tempfile.mkdtemp(prefix="relay-client-app-")
    server_proc, server = start_server(relay_bin, server_dir)
    proc = start_driver()
    sid = None
    try:
        check_server_passphrase_in_keyring(app)
        sid = session(app, client_dir)
        setup_client_mode(sid, client_dir, server)
        sid = None
        sid = session(app, client_dir)
        wait_for("the sign-in screen", lambda: texts(sid, "[data-testid=signin-submit]"), timeout=30)
        info = invoke(sid, "connection_info")["ok"]
        assert info == {"mode": "client", "serverUrl": server, "passphraseAvailable": False,
                        "secretStorage": "os-secret-store"}, info
        print(f"ok   client mode: {info}")
        assert not texts(sid, "[data-testid=signin-use-saved]"), "nothing is remembered yet"

        field = element(sid, '[data-testid=signin-passphrase]')
        call("POST", f"/session/{sid}/element/{field}/value", {"text": "not the passphrase"})
        click(sid, "[data-testid=signin-submit]")
        refused = wait_for("the refusal message", lambda: texts(sid, "[data-testid=signin-error]"), timeout=20)
        assert invoke(sid, "connection_info")["ok"]["passphraseAvailable"] is False, "a refused one was remembered"
        print(f"ok   a wrong passphrase is refused through the shell's sign_in ({refused[0]!r})")
        call("POST", f"/session/{sid}/element/{field}/clear", {})
        call("POST", f"/session/{sid}/element/{field}/value", {"text": SECRET})
        click(sid, "[data-testid=signin-remember]")
        click(sid, "[data-testid=signin-submit]")
        connected(sid)
        remembered = wait_for("the remembered passphrase",
                              lambda: invoke(sid, "connection_info")["ok"]["passphraseAvailable"], timeout=10)
        assert remembered
        leaked = [p for p in files_under(client_dir) if SECRET.encode() in open(p, "rb").read()]
        assert not leaked, f"the passphrase reached the data directory in plaintext: {leaked}"
        print("ok   signed in against the remote server and remembered the passphrase in the OS keyring "
              "(no plaintext copy in the data directory)")

        check_single_instance(app)

        stability = invoke(sid, "stability_status")
        assert stability.get("ok") == {"failures": 0, "warningAtMs": None}, stability
        print(f"ok   stability_status {stability['ok']}")

        close_session(sid)
        sid = None
        time.sleep(1)
        sid = session(app, client_dir)
        wait_for("the saved-passphrase button", lambda: texts(sid, "[data-testid=signin-use-saved]"), timeout=30)
        click(sid, "[data-testid=signin-use-saved]")
        connected(sid)
        print("ok   after a restart the saved passphrase signed in without typing (shell-side sign_in)")

        hidden = invoke(sid, "reveal_passphrase")
        assert hidden.get("err", {}).get("code") == "unavailable", f"a remembered passphrase left the shell: {hidden}"
        print("ok   the remembered passphrase never reaches the renderer (reveal_passphrase refused in client mode)")

        forgot = invoke(sid, "forget_passphrase")
        assert "ok" in forgot, forgot
        assert invoke(sid, "connection_info")["ok"]["passphraseAvailable"] is False
        assert invoke(sid, "reveal_passphrase").get("err", {}).get("code") == "unavailable"
        print("ok   forget_passphrase removed it from the keyring")
    finally:
        close_session(sid)
        for p in (proc, server_proc):
            stop_process(p)
        shutil.rmtree(server_dir, ignore_errors=True)
        shutil.rmtree(client_dir, ignore_errors=True)
    print("desktop client-mode webdriver flow ok")


if __name__ == "__main__":
    main()
