#!/usr/bin/env python3
"""Client mode of the real relay-desktop window over WebDriver, with the OS secret store.

Starts the real `relay serve` on 127.0.0.1 (known passphrase), then relay-desktop with
`--client <that origin>` under tauri-driver. Must run inside a private D-Bus session with an
unlocked gnome-keyring (scripts/test.sh starts one with dbus-run-session), so the desktop picks
the OS secret store. Checks: connection_info reports client mode and the OS secret store with
nothing remembered; signing in from the window with "Remember on this computer" reaches the
server and stores the passphrase in the keyring, never as a file in the data directory; after a
restart of the app the sign-in screen offers the saved passphrase, which signs in without typing;
forget_passphrase removes it; stability_status answers with no failures.
Run: dbus-run-session + gnome-keyring-daemon, then xvfb-run -a python3 ... DESKTOP_BIN RELAY_BIN
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from webdriver_bridge import LOG, PORT, call, element, invoke, texts, wait_for

SECRET = "client mode keyring passphrase"


def start_server(relay_bin, data_dir):
    env = dict(os.environ, RELAY_BOOTSTRAP_PASSPHRASE=SECRET)
    proc = subprocess.Popen([relay_bin, "serve", "--data-dir", data_dir, "--port", "0", "--bind", "127.0.0.1"],
                            stdout=LOG, stderr=subprocess.STDOUT, env=env)
    runtime = os.path.join(data_dir, "runtime.json")
    wait_for("relay serve runtime.json", lambda: os.path.exists(runtime), timeout=30)
    with open(runtime, encoding="utf-8") as f:
        port = json.load(f)["port"]
    return proc, f"http://127.0.0.1:{port}"


def session(app, data_dir, server):
    caps = {"capabilities": {"alwaysMatch": {"tauri:options": {
        "application": app, "args": ["--data-dir", data_dir, "--client", server]}}}}
    sid = call("POST", "/session", caps, attempts=1)["value"]["sessionId"]
    call("POST", f"/session/{sid}/timeouts", {"script": 30000, "implicit": 10000})
    return sid


def click(sid, css):
    call("POST", f"/session/{sid}/element/{element(sid, css)}/click", {})


def connected(sid):
    return wait_for('status bar "Connected"',
                    lambda: "Connected" in texts(sid, "[data-testid=status-connection]"), timeout=30)


def driver_ready():
    try:
        return call("GET", "/status", timeout=2, attempts=1) is not None
    except Exception:  # noqa: BLE001 (not listening yet)
        return False


def files_under(path):
    return [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs]


def main():
    app, relay_bin = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    assert os.environ.get("DBUS_SESSION_BUS_ADDRESS"), "run inside dbus-run-session with gnome-keyring-daemon"
    driver = shutil.which("tauri-driver") or os.path.expanduser("~/.cargo/bin/tauri-driver")
    server_dir = tempfile.mkdtemp(prefix="relay-client-srv-")
    client_dir = tempfile.mkdtemp(prefix="relay-client-app-")
    server_proc, server = start_server(relay_bin, server_dir)
    proc = subprocess.Popen([driver, "--port", str(PORT), "--native-port", str(PORT + 1)],
                            stdout=LOG, stderr=subprocess.STDOUT)
    sid = None
    try:
        wait_for("tauri-driver", driver_ready, timeout=15)
        sid = session(app, client_dir, server)
        wait_for("the sign-in screen", lambda: texts(sid, "[data-testid=signin-submit]"), timeout=30)
        info = invoke(sid, "connection_info")["ok"]
        assert info == {"mode": "client", "serverUrl": server, "passphraseAvailable": False,
                        "secretStorage": "os-secret-store"}, info
        print(f"ok   client mode: {info}")
        assert not texts(sid, "[data-testid=signin-use-saved]"), "nothing is remembered yet"

        call("POST", f"/session/{sid}/element/{element(sid, '[data-testid=signin-passphrase]')}/value",
             {"text": SECRET})
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

        stability = invoke(sid, "stability_status")
        assert stability.get("ok") == {"failures": 0, "warningAtMs": None}, stability
        print(f"ok   stability_status {stability['ok']}")

        call("DELETE", f"/session/{sid}", timeout=20)
        sid = None
        time.sleep(1)
        sid = session(app, client_dir, server)
        wait_for("the saved-passphrase button", lambda: texts(sid, "[data-testid=signin-use-saved]"), timeout=30)
        click(sid, "[data-testid=signin-use-saved]")
        connected(sid)
        print("ok   after a restart the saved passphrase signed in without typing")

        forgot = invoke(sid, "forget_passphrase")
        assert "ok" in forgot, forgot
        assert invoke(sid, "connection_info")["ok"]["passphraseAvailable"] is False
        assert invoke(sid, "reveal_passphrase").get("err", {}).get("code") == "unavailable"
        print("ok   forget_passphrase removed it from the keyring")
    finally:
        if sid:
            try:
                call("DELETE", f"/session/{sid}", timeout=20)
            except Exception as e:  # noqa: BLE001
                print(f"warn: closing the session: {e}", file=sys.stderr)
        for p in (proc, server_proc):
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(server_dir, ignore_errors=True)
        shutil.rmtree(client_dir, ignore_errors=True)
    print("desktop client-mode webdriver flow ok")


if __name__ == "__main__":
    main()
