#!/usr/bin/env python3
"""The relay-desktop package as installed (scripts/test-packages.sh): INSTALL_ROOT is the scratch
root `dpkg --root` installed it into. A user's first start from the menu: the installed
`relay.desktop` entry's Exec line, its program found on a PATH that starts with the package's
/usr/bin, run as the application of a WebDriver session (tauri-driver + WebKitWebDriver, under
Xvfb) with a temporary HOME and XDG_DATA_HOME (launcher_fixture.py's session and environment).

The installed launcher finds the seed build beside it (INSTALL_ROOT/usr/lib/relay-desktop), installs
it into the user's managed root as `relay-launcher install` would (runtimes/<build>/relay-desktop,
byte for byte the packaged file, 0700, its marker 0600, in 0700 directories), bootstraps the
catalog from it and starts it with the default data directory $XDG_DATA_HOME/relay-desktop: the
runtime is the launcher's child running from the managed root, an X window named "Relay" is
mapped, and the renderer shows the first-start setup screen. The runtimes' updater is pointed at
a closed loopback port (debug builds only) so the test never reaches GitHub. Every process is
killed and the temporary directory removed (KEEP_FAILED=1 keeps it after a failure).

Run under Xvfb: xvfb-run -a -s "-screen 0 1280x800x24" python3 tests/desktop/webdriver_packaged.py INSTALL_ROOT
"""
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from launcher_fixture import (ROOT, WORK, XDG, Session, catalog, isolate_env, kill_runtimes,  # noqa: E402
                              parent_of, runtime_dirs, runtime_pids)
from webdriver_bridge import call, start_driver, stop_process, texts, wait_for  # noqa: E402

INSTALL_ROOT = os.path.abspath(sys.argv[1])


def desktop_exec(entry):
    with open(os.path.join(INSTALL_ROOT, "usr/share/applications", entry), encoding="utf-8") as f:
        (line,) = [ln for ln in f.read().splitlines() if ln.startswith("Exec=")]
    return shlex.split(line[len("Exec="):])


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def x_window(name):
    found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", f"^{name}$"],
                           capture_output=True, text=True)
    return found.stdout.split()


def main():
    started = time.monotonic()
    isolate_env()
    os.environ["PATH"] = os.path.join(INSTALL_ROOT, "usr/bin") + os.pathsep + os.environ["PATH"]
    closed = "http://127.0.0.1:9"
    os.environ["RELAY_TEST_UPSTREAM_GITHUB_API"] = closed
    os.environ["RELAY_TEST_UPSTREAM_GITHUB_RELEASE_ASSETS"] = closed
    seed_dir = os.path.join(INSTALL_ROOT, "usr/lib/relay-desktop")
    with open(os.path.join(seed_dir, "seed.json"), encoding="utf-8") as f:
        seed = json.load(f)
    build = f"v{seed['version'].replace('.', '-')}-{seed['commit'][:8]}"  # infra::recovery::install::build_id_for

    argv = desktop_exec("relay.desktop")
    launcher = shutil.which(argv[0])
    assert launcher == os.path.join(INSTALL_ROOT, "usr/bin/relay-launcher"), launcher
    assert not os.path.exists(ROOT), "no managed root before the first start"
    driver = start_driver()
    session = Session(launcher, "packaged", args=argv[1:])
    ok = False
    try:
        sid = session.open()
        print(f"ok   menu entry: Exec={' '.join(argv)} runs {launcher} (no arguments: the default data directory)")
        wait_for("the first-start setup screen", lambda: texts(sid, "[data-testid=setup]"), timeout=90)
        assert x_window("Relay"), "no visible X window named Relay"
        print("ok   the window is mapped (xdotool: \"Relay\") and shows the first-start setup screen")

        assert runtime_dirs() == [build], runtime_dirs()
        exe = os.path.join(ROOT, "runtimes", build, "relay-desktop")
        with open(exe, "rb") as a, open(os.path.join(seed_dir, "relay-desktop"), "rb") as b:
            assert a.read() == b.read(), "the installed runtime is the packaged seed, byte for byte"
        assert (mode(exe), mode(os.path.join(ROOT, "runtimes", build, "marker.json"))) == (0o700, 0o600)
        for path in (ROOT, os.path.join(ROOT, "runtimes"), os.path.join(ROOT, "runtimes", build)):
            assert mode(path) == 0o700, path
        assert catalog()["current"]["build"] == build and catalog()["candidate"] is None, catalog()
        child = session.child(build)
        assert parent_of(child) == session.pid and runtime_pids() == {child: build}
        data = os.path.join(XDG, "relay-desktop")
        assert os.path.isdir(data) and mode(data) == 0o700, "the default data directory, owner-only"
        session.wait_log("seed installed", "the packaged seed build installed", build)
        print(f"ok   first start: seed {build} installed into the managed root (0700/0600, same bytes), catalog "
              f"current {build}, running as the launcher's child; data in $XDG_DATA_HOME/relay-desktop")

        title = call("GET", f"/session/{sid}/title")["value"]
        assert title == "Relay", title
        ok = True
    finally:
        try:
            session.close()
        finally:
            kill_runtimes()
            stop_process(driver)
        if ok or not os.environ.get("KEEP_FAILED"):
            # WebKit's helper processes may still flush their storage into XDG_DATA_HOME as they exit.
            time.sleep(1)
            shutil.rmtree(WORK, ignore_errors=True)
        elif not ok:
            print(f"kept {WORK}", file=sys.stderr)
    print(f"packaged desktop ok ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
