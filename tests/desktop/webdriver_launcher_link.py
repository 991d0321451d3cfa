#!/usr/bin/env python3
"""The desktop end of the recovery launcher's health link (app/desktop/src/launcher_link.rs) in
the real relay-desktop window, server mode, over WebDriver (tauri-driver + WebKitWebDriver).

WebKitWebDriver starts the app itself and closes inherited descriptors, so each session launches
a small wrapper that does what the launcher does: it re-opens this process's anonymous pipe
(`/proc/<this pid>/fd/<write end>`, the very same pipe, S_ISFIFO) as fd 3, exports
RELAY_LAUNCHER_FD=3 and RELAY_LAUNCHER_TRANSACTION, and execs relay-desktop (same pid).

1. a valid transaction: while the sign-in screen shows (start-up complete, renderer not mounted)
   nothing arrives for 7 s; fd 3 of the app is that pipe and close-on-exec (/proc/<pid>/fdinfo/3);
   after signing in and the signed-in shell shows, `mounted <txn>` arrives, then at least two
   `healthy <txn>` heartbeats about 5 s apart; every line is one of the three fixed ASCII forms,
   at most 64 bytes; a window reload (the shell mounts again and reports again, as the log shows)
   writes no second `mounted`; the
   app's log never names the transaction; when the reading end is closed (the launcher gone) the
   app keeps running;
2. a malformed transaction (uppercase): the app signs in and shows the shell as usual, and writes
   nothing for 12 s; the log says the link was ignored (reason only, no value); fd 3 stays open
   (not closed) and is close-on-exec.

The environment variables' removal is proved by `launcher_link::tests::taking_the_variables_
removes_them_from_the_environment_and_from_children` (/proc/<pid>/environ keeps the initial
environment, and no child is started in this flow).

Run under Xvfb: xvfb-run -a -s "-screen 0 1280x800x24" python3 tests/desktop/webdriver_launcher_link.py DESKTOP_BIN [RELAY_BIN]
(RELAY_BIN is accepted like the other flows' and not needed.)
"""
import os
import shutil
import stat
import sys
import tempfile
import time
import uuid

WORK = tempfile.mkdtemp(prefix="relay-desktop-link-")
os.environ.setdefault("DESKTOP_WEBDRIVER_LOG", os.path.join(WORK, "webdriver.log"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webdriver_bridge import (call, click, close_session, element, open_session, start_driver,  # noqa: E402
                              stop_process, texts, wait_for)

O_CLOEXEC = 0o2000000
HEARTBEAT = 5.0


class LinkPipe:
    """The launcher's end: an anonymous pipe read without blocking, lines kept with their time."""

    def __init__(self):
        self.r, self.w = os.pipe()
        os.set_blocking(self.r, False)
        self.buf = b""
        self.lines = []  # (monotonic time, raw bytes)

    def poll(self):
        while True:
            try:
                chunk = os.read(self.r, 4096)
            except BlockingIOError:
                break
            if not chunk:
                break
            self.buf += chunk
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            self.lines.append((time.monotonic(), line + b"\n"))
        return self.lines

    def raw(self):
        self.poll()
        return b"".join(line for _, line in self.lines) + self.buf

    def close(self):
        for fd in (self.r, self.w):
            try:
                os.close(fd)
            except OSError:
                pass


def wrapper(app, pipe, txn, name):
    """The launcher's start of the app: the pipe on fd 3 and the two variables, then exec."""
    pidfile = os.path.join(WORK, f"{name}.pid")
    path = os.path.join(WORK, f"{name}.sh")
    with open(path, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\n"
                f"echo $$ > '{pidfile}'\n"
                f"exec 3>'/proc/{os.getpid()}/fd/{pipe.w}'\n"
                f"RELAY_LAUNCHER_FD=3 RELAY_LAUNCHER_TRANSACTION='{txn}' exec '{app}' \"$@\"\n")
    os.chmod(path, stat.S_IRWXU)
    return path, pidfile


def start_app(app, pipe, txn, name):
    data_dir = tempfile.mkdtemp(prefix=f"{name}-", dir=WORK)
    launcher, pidfile = wrapper(app, pipe, txn, name)
    sid = open_session(launcher, ["--data-dir", data_dir, "--server-mode", "--bind", "127.0.0.1", "--no-mdns",
                                  "--port", "0"])
    pid = int(wait_for("the app's pid", lambda: os.path.isfile(pidfile) and open(pidfile).read().strip()))
    return sid, pid, data_dir


def sign_in_screen(sid):
    wait_for("the sign-in screen", lambda: texts(sid, "[data-testid=signin-passphrase]")
             and "Sign in" in " ".join(texts(sid, "button[type=submit]")), timeout=30)


def sign_in(sid, data_dir):
    with open(os.path.join(data_dir, "secrets", "passphrase"), encoding="utf-8") as f:
        secret = f.read().strip()
    call("POST", f"/session/{sid}/element/{element(sid, '[data-testid=signin-passphrase]')}/value", {"text": secret})
    click(sid, "button[type=submit]")
    wait_for('the signed-in shell (status bar "Connected")',
             lambda: "Connected" in texts(sid, "[data-testid=status-connection]"), timeout=30)


def fd3(pid, pipe):
    """fd 3 of the app: (is it this pipe, is it close-on-exec)."""
    target = os.readlink(f"/proc/{pid}/fd/3")
    ours = f"pipe:[{os.fstat(pipe.w).st_ino}]"
    with open(f"/proc/{pid}/fdinfo/3", encoding="ascii") as f:
        flags = int(next(line for line in f if line.startswith("flags:")).split()[1], 8)
    return target == ours, bool(flags & O_CLOEXEC)


def app_log(data_dir):
    path = os.path.join(data_dir, "logs", "relay.log")
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def valid_link(app):
    txn = str(uuid.uuid4())
    pipe = LinkPipe()
    sid = None
    try:
        sid, pid, data_dir = start_app(app, pipe, txn, "valid")
        sign_in_screen(sid)
        is_ours, cloexec = fd3(pid, pipe)
        assert is_ours, "fd 3 of the app is not the launcher's pipe"
        assert cloexec, "fd 3 is not close-on-exec"
        print("ok   fd 3 of the app is the launcher's pipe, close-on-exec")
        time.sleep(7)
        assert pipe.raw() == b"", f"written before the renderer mounted: {pipe.raw()!r}"
        print("ok   nothing on the link while the sign-in screen shows (7 s)")

        sign_in(sid, data_dir)
        shown = time.monotonic()
        print("ok   signed in; the shell shows")
        wait_for("mounted", lambda: pipe.poll(), timeout=15)
        first_at, first = pipe.lines[0]
        assert first == f"mounted {txn}\n".encode(), first
        print(f"ok   {first!r} arrived {first_at - shown:+.1f} s after the shell showed")
        wait_for("two heartbeats", lambda: len(pipe.poll()) >= 3, timeout=20)
        heartbeats = [(t, line) for t, line in pipe.lines[1:]]
        assert all(line == f"healthy {txn}\n".encode() for _, line in heartbeats), heartbeats
        gaps = [b[0] - a[0] for a, b in zip(heartbeats, heartbeats[1:])]
        assert all(HEARTBEAT - 1.5 <= g <= HEARTBEAT + 2.5 for g in gaps), gaps
        print(f"ok   {len(heartbeats)} `healthy <txn>` heartbeats, gaps {[round(g, 1) for g in gaps]} s")

        call("POST", f"/session/{sid}/refresh", {})
        wait_for('"Connected" after a reload', lambda: "Connected" in texts(sid, "[data-testid=status-connection]"),
                 timeout=30)
        time.sleep(HEARTBEAT + 1)
        lines = [line for _, line in pipe.poll()]
        assert lines.count(f"mounted {txn}\n".encode()) == 1, lines
        allowed = {f"{w} {txn}\n".encode() for w in ("mounted", "healthy", "unhealthy")}
        assert all(line in allowed and len(line) <= 64 and line.isascii() for line in lines), lines
        assert pipe.buf == b"", pipe.buf
        print(f"ok   after a reload (the shell mounted again): still one `mounted`, {len(lines)} fixed lines in all")

        log = app_log(data_dir)
        assert "launcher link present" in log, "the link was not taken"
        reports = log.count("the renderer reported the shell mounted")
        assert reports == 2, f"{reports} shell_mounted reports (one per page load expected)"
        assert txn not in log, "the log names the transaction"
        print("ok   the app's log: the link present, two shell_mounted reports (one per page), no transaction")

        pipe.close()
        time.sleep(HEARTBEAT + 2)
        assert alive(pid), "the app died when the launcher went away"
        assert "Connected" in texts(sid, "[data-testid=status-connection]")
        print("ok   the launcher's end closed: the app keeps running")
    finally:
        close_session(sid)
        pipe.close()


def malformed_link(app):
    txn = str(uuid.uuid4()).upper()
    pipe = LinkPipe()
    sid = None
    try:
        sid, pid, data_dir = start_app(app, pipe, txn, "malformed")
        sign_in_screen(sid)
        sign_in(sid, data_dir)
        time.sleep(12)
        assert pipe.raw() == b"", f"a malformed transaction wrote {pipe.raw()!r}"
        is_ours, cloexec = fd3(pid, pipe)
        assert is_ours and cloexec, (is_ours, cloexec)
        log = app_log(data_dir)
        assert "launcher link ignored: RELAY_LAUNCHER_TRANSACTION is not a lowercase UUID v4" in log
        assert txn not in log and txn.lower() not in log, "the log names the transaction"
        print("ok   a malformed transaction: signed in, nothing written in 12 s, fd 3 left open and close-on-exec, "
              "the log gives the reason only")
    finally:
        close_session(sid)
        pipe.close()


def main():
    app = os.path.abspath(sys.argv[1])
    # No session bus: the passphrase stays in the data directory file (development build).
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/relay-no-bus"
    driver = start_driver()
    try:
        valid_link(app)
        malformed_link(app)
    finally:
        stop_process(driver)
    shutil.rmtree(WORK, ignore_errors=True)  # kept (with webdriver.log) when the flow failed
    print("desktop launcher link flow ok")


if __name__ == "__main__":
    main()
