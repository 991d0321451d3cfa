#!/usr/bin/env python3
"""LAN discovery between two real relay-desktop processes, inside an isolated network namespace.

Must run in a network namespace whose only interface is `lo` (scripts/desktop-discovery-flow.sh
makes one with `unshare -n`); it refuses to run anywhere else, so no multicast ever leaves the
machine. A server-mode desktop bound to 0.0.0.0 advertises `_relay._tcp`; a second desktop on the
setup screen clicks "Find servers on the LAN", sees it (loopback address, the server's port),
picks it, saves client mode and restarts into it. SIGTERM ends the server app through its
normal exit path, which withdraws the advertisement. Run: xvfb-run -a python3 tests/desktop/webdriver_discovery.py DESKTOP_BIN
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from webdriver_bridge import (LOG, call, click, click_that_restarts, close_session, log_text, open_session, start_driver, stop_process,
                              texts, wait_for)


def only_loopback():
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
    return [ln.split(":")[1].strip() for ln in links.splitlines()] == ["lo"]


def main():
    if not only_loopback():
        sys.exit("refusing to run: this network namespace has interfaces other than lo")
    app = os.path.abspath(sys.argv[1])
    server_dir = tempfile.mkdtemp(prefix="relay-disc-srv-")
    client_dir = tempfile.mkdtemp(prefix="relay-disc-cli-")
    env = dict(os.environ, RELAY_DESKTOP_EXIT_AFTER_SECS="120")
    server = subprocess.Popen([app, "--data-dir", server_dir, "--server-mode", "--bind", "0.0.0.0", "--port", "0"],
                              stdout=LOG, stderr=subprocess.STDOUT, env=env)
    runtime = os.path.join(server_dir, "runtime.json")
    driver = start_driver()
    sid = None
    try:
        wait_for("the server's runtime.json", lambda: os.path.exists(runtime), timeout=30)
        with open(runtime, encoding="utf-8") as f:
            port = json.load(f)["port"]
        wait_for("the server's mDNS advertisement", lambda: "advertising on mDNS" in log_text(), timeout=30)
        expected = f"http://127.0.0.1:{port}"

        sid = open_session(app, ["--data-dir", client_dir])
        wait_for("the setup screen", lambda: texts(sid, "[data-testid=setup-save]"), timeout=30)
        click(sid, "[data-testid=setup-client]")
        click(sid, "[data-testid=setup-discover]")
        found = wait_for("the advertised server in the list",
                         lambda: [t for t in texts(sid, "[data-testid=setup-found] button") if expected in t],
                         timeout=20)
        assert found[0].startswith("Relay on "), found
        print(f"ok   the setup screen found the LAN server over mDNS: {found[0]!r}")

        click(sid, "[data-testid=setup-found] button")
        value = "return document.querySelector('[data-testid=setup-url]').value;"
        filled = call("POST", f"/session/{sid}/execute/sync", {"script": value, "args": []})["value"]
        assert filled == expected, filled
        click_that_restarts(sid, "[data-testid=setup-save]")
        saved_path = os.path.join(client_dir, "desktop.json")
        wait_for("desktop.json", lambda: os.path.exists(saved_path), timeout=15)
        with open(saved_path, encoding="utf-8") as f:
            assert json.load(f)["serverUrl"] == expected
        wait_for("the restarted app in client mode",
                 lambda: f"relay desktop starting server={expected}" in log_text(), timeout=20)
        subprocess.run(["pkill", "-f", client_dir], check=False)
        print(f"ok   picking it saved client mode for {expected} and the app restarted into it")

        server.terminate()
        code = server.wait(20)
        assert code == 0 and "SIGTERM: exiting" in log_text(), f"SIGTERM did not take the normal exit path ({code})"
        wait_for("the advertisement withdrawn on quit", lambda: "stopped advertising on mDNS" in log_text(),
                 timeout=10)
        print("ok   SIGTERM ended the server app normally and it withdrew its advertisement")
    finally:
        close_session(sid)
        stop_process(driver)
        stop_process(server)
        subprocess.run(["pkill", "-f", client_dir], check=False)
        shutil.rmtree(server_dir, ignore_errors=True)
        shutil.rmtree(client_dir, ignore_errors=True)
    print("desktop discovery flow ok")


if __name__ == "__main__":
    main()
