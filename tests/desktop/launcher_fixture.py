"""The shared fixture of the recovery launcher flows (webdriver_launcher_update.py,
webdriver_launcher_recovery.py): the temporary directory (WORK, its XDG_DATA_HOME with the
managed root `relay/`, the data directory), the isolated environment, hand-installed runtimes
with their markers, the catalog and the runtimes' processes as the tests read them, and the
WebDriver session whose application is `relay-launcher` (through a wrapper script), plus the
app's sign-in and the contacts read over the runtime's API.

Imported before webdriver_bridge: it creates WORK (named after the flow's script) and points
the driver's log into it.
"""
import hashlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile

_FLOW = os.path.basename(sys.argv[0]).removeprefix("webdriver_").removesuffix(".py").replace("_", "-")
WORK = tempfile.mkdtemp(prefix=f"relay-{_FLOW}-")
os.environ.setdefault("DESKTOP_WEBDRIVER_LOG", os.path.join(WORK, "webdriver.log"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webdriver_bridge import api, call, click, close_session, element, open_session, texts, wait_for  # noqa: E402

COMMITS = {"0.1.0": "a1b2c3d4" * 5, "0.2.0": "deadbeef" * 5,
           "0.3.0": "fedcba9876543210fedcba9876543210fedcba98", "0.4.0": "facade00" * 5}
BUILDS = {v: f"v{v.replace('.', '-')}-{c[:8]}" for v, c in COMMITS.items()}  # infra::recovery::install::build_id_for
PORT = 8090  # relay-desktop's default: the launcher passes no arguments
CONTACT = {"name": "Launcher Lovelace", "email": "launcher@example.com", "title": "Survivor"}
XDG = os.path.join(WORK, "xdg-data")
ROOT = os.path.join(XDG, "relay")
DATA = os.path.join(WORK, "data")


def catalog_path():
    return os.path.join(ROOT, "recovery", "catalog.json")


def catalog():
    with open(catalog_path(), encoding="utf-8") as f:
        return json.load(f)


def runtime_dirs():
    return sorted(n for n in os.listdir(os.path.join(ROOT, "runtimes")) if not n.startswith("."))


def private_dirs(*paths):
    for path in paths:
        os.makedirs(path, mode=0o700, exist_ok=True)
        os.chmod(path, 0o700)


def write_private(path, data):
    """A new file, 0600 (the recovery files' mode)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def sha512_file(path):
    with open(path, "rb") as f:
        return hashlib.sha512(f.read()).hexdigest()


def install_runtime(desktop, version):
    """`runtimes/<build>/relay-desktop` (the debug desktop with its debug info stripped, 0700) and
    its marker (SHA-512, `version`, dataEpochs 1/1, 0600) in 0700 directories; answers the
    executable's bytes and the marker's SHA-512 (the catalog's `markerSha512`)."""
    build = BUILDS[version]
    private_dirs(XDG, ROOT, os.path.join(ROOT, "runtimes"), os.path.join(ROOT, "runtimes", build))
    exe = os.path.join(ROOT, "runtimes", build, "relay-desktop")
    subprocess.run(["objcopy", "--strip-debug", desktop, exe], check=True)
    os.chmod(exe, 0o700)
    with open(exe, "rb") as f:
        executable = f.read()
    marker = {"protocol": 1, "buildId": build, "version": version, "commit": COMMITS[version],
              "executableSha512": hashlib.sha512(executable).hexdigest(), "dataEpochs": {"server": 1, "client": 1}}
    text = json.dumps(marker, indent=2).encode()
    write_private(os.path.join(ROOT, "runtimes", build, "marker.json"), text)
    return executable, hashlib.sha512(text).hexdigest()


def server_data_dir():
    """The data directory whose saved setup is server mode on loopback (every runtime serves on 127.0.0.1:8090)."""
    os.makedirs(DATA, mode=0o700)
    write_private(os.path.join(DATA, "desktop.json"), b'{"mode":"server","lanAccess":false}')


def install_first_runtime(desktop):
    """The black-box fixture: one runtime directory and its marker, no catalog."""
    executable, _ = install_runtime(desktop, "0.1.0")
    exe = os.path.join(ROOT, "runtimes", BUILDS["0.1.0"], "relay-desktop")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True, timeout=30).stdout
    # The version line names the build kind since 78ccfd0 ("(development build)" here).
    assert version.strip().startswith("relay-desktop 0.1.0 ("), version
    server_data_dir()
    print(f"ok   fixture: runtimes/{BUILDS['0.1.0']}/relay-desktop ({len(executable) >> 20} MiB, stripped, runs: "
          f"{version.strip()!r}) and its marker; no catalog")
    return executable


def runtime_pids(build=None):
    """Processes running from a managed runtime directory (of `build`, if given): {pid: build}."""
    found = {}
    prefix = os.path.join(ROOT, "runtimes") + "/"
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue
        if exe.startswith(prefix):
            name = exe[len(prefix):].split("/")[0]
            if build in (None, name):
                found[int(pid)] = name
    return found


def kill_runtimes():
    for pid in runtime_pids():
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None  # gone


def read_pid(path):
    try:
        with open(path, encoding="ascii") as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


def launcher_lines(name):
    """The launcher's own lines in a session's log (the runtimes write to the same stderr)."""
    path = os.path.join(WORK, f"{name}-launcher.log")
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line for line in f if "relay::launcher" in line]


class Session:
    """One WebDriver session whose application is `relay-launcher` (through a wrapper script)."""

    def __init__(self, launcher, name, time_scale=None, args=None):
        self.name, self.sid, self.pid = name, None, None
        # The launcher's command line after the program (default: the data directory DATA).
        self.args = ["--data-dir", DATA] if args is None else args
        log = os.path.join(WORK, f"{name}-launcher.log")
        self.pidfile = os.path.join(WORK, f"{name}.pid")
        self.wrapper = os.path.join(WORK, f"{name}.sh")
        scale = f"RELAY_TEST_LAUNCHER_TIME_SCALE={time_scale} " if time_scale else ""
        with open(self.wrapper, "w", encoding="utf-8") as f:
            f.write("#!/bin/sh\n"
                    f"echo $$ > '{self.pidfile}'\n"
                    f"{scale}exec '{launcher}' \"$@\" 2>>'{log}'\n")
        os.chmod(self.wrapper, stat.S_IRWXU)

    def open(self):
        self.sid = open_session(self.wrapper, self.args)
        self.pid = wait_for("the launcher's pid", lambda: read_pid(self.pidfile))
        return self.sid

    def launcher_lines(self):
        return launcher_lines(self.name)

    def wait_log(self, what, *words, timeout=60):
        """The last launcher line holding all `words`."""
        return wait_for(f"the launcher's log: {what}", lambda: [ln for ln in self.launcher_lines()
                                                                if all(w in ln for w in words)], timeout=timeout)[-1]

    def child(self, build, timeout=60):
        """The launcher's running child from runtimes/<build>/."""
        return wait_for(f"the launcher's {build} runtime", lambda: next(
            (p for p in runtime_pids(build) if parent_of(p) == self.pid), None), timeout=timeout)

    def close(self):
        """Kills the launcher (its runtime goes with it: PR_SET_PDEATHSIG) and ends the session."""
        pid = self.pid or read_pid(self.pidfile)
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            wait_for("no runtime left", lambda: not runtime_pids(), timeout=30)
            self.pid = None
        close_session(self.sid)
        self.sid = None


def type_into(sid, css, text):
    el = element(sid, css)
    call("POST", f"/session/{sid}/element/{el}/clear", {})
    call("POST", f"/session/{sid}/element/{el}/value", {"text": text})


def sign_in(sid):
    """The app's own sign-in with the data directory's passphrase; answers the passphrase."""
    with open(os.path.join(DATA, "secrets", "passphrase"), encoding="utf-8") as f:
        secret = f.read().strip()
    wait_for("the sign-in screen", lambda: texts(sid, "[data-testid=signin-passphrase]"), timeout=60)
    call("POST", f"/session/{sid}/element/{element(sid, '[data-testid=signin-passphrase]')}/value", {"text": secret})
    click(sid, "button[type=submit]")
    wait_for('status bar "Connected"', lambda: "Connected" in " ".join(texts(sid, "[data-testid=status-connection]")),
             timeout=60)
    return secret


def server_token(secret):
    server = f"http://127.0.0.1:{PORT}"
    token = api(server, "POST", "/api/collections/users/auth-with-password", {"identity": "relay", "password": secret})
    return server, token["token"]


def contact_names(secret):
    server, token = server_token(secret)
    return [r["name"] for r in api(server, "GET", "/api/collections/contacts/records?perPage=200", token=token)["items"]]


def names_or_none(secret):
    try:
        return contact_names(secret)
    except OSError:
        return None


def people_shows_the_contact(sid):
    click(sid, "[data-testid=nav-people]")
    wait_for("the contact in People", lambda: [t for t in texts(sid, "[data-testid=contact-row]") if CONTACT["name"] in t],
             timeout=30)


def free_port(port):
    """Nothing listens on the port (client sockets in TIME_WAIT do not count: the server reuses the address)."""
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def launcher_binary(desktop):
    launcher = os.environ.get("RELAY_LAUNCHER_BIN") or os.path.join(os.path.dirname(desktop), "relay-launcher")
    assert os.access(launcher, os.X_OK), f"no relay-launcher at {launcher}"
    assert free_port(PORT), f"127.0.0.1:{PORT} is in use; the launcher's runtimes need it"
    return launcher


def isolate_env():
    """tauri-driver is found before HOME moves; everything the runtimes write stays under WORK."""
    os.environ["PATH"] += os.pathsep + os.path.expanduser("~/.cargo/bin")
    os.environ["HOME"] = os.path.join(WORK, "home")
    os.makedirs(os.environ["HOME"], mode=0o700)
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")):
        os.environ[var] = os.path.join(WORK, "home", sub)
    os.environ["XDG_DATA_HOME"] = XDG
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/relay-no-bus"
    for var in ("RELAY_DATA_DIR", "RELAY_TEST_LAUNCHER_TIME_SCALE", "RELAY_LAUNCHER_FD", "RELAY_LAUNCHER_TRANSACTION"):
        os.environ.pop(var, None)


def use_fake_github(fake, publisher):
    """The runtimes' updater talks to `fake` and trusts `publisher`'s key (they inherit the environment)."""
    os.environ["RELAY_TEST_UPSTREAM_GITHUB_API"] = fake.origin(fake.api)
    os.environ["RELAY_TEST_UPSTREAM_GITHUB_RELEASE_ASSETS"] = fake.origin(fake.storage)
    os.environ["RELAY_TEST_UPDATER_PUBLISHER_KEY"] = publisher.pub
