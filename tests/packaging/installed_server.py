#!/usr/bin/env python3
"""relay-server as installed (scripts/test-packages.sh): ROOT is a scratch root the package was
installed into with `dpkg --root` (its maintainer scripts ran there: the relay user is in
ROOT/etc/passwd, the unit enabled under ROOT/etc/systemd). This starts `relay serve` exactly as
the installed relay.service does, relocated into ROOT: the ExecStart command line with every
absolute path under ROOT, the environment systemd gives a system service (PATH, HOME, USER,
LOGNAME, SHELL, STATE_DIRECTORY) plus the installed EnvironmentFile (/etc/relay/relay.env, edited
first as an administrator would: bind 127.0.0.1 and a free port), the state directory
ROOT/var/lib/relay created 0700 for the relay user as StateDirectory= does; run as root, the
server runs as the relay user's uid and gid with no capabilities, no supplementary groups and
no_new_privs (setpriv), as User=, CapabilityBoundingSet= and NoNewPrivileges= have it. Then:
the health probe answers, the web UI is the installed one, the administrator's
`relay connection-info` (as the relay user, `sudo -u relay` in README.Debian) prints the
passphrase and the app signs in with it over HTTP; `relay backup create` and `relay admin list`
as the relay user go through the control socket to the running service (its data directory is
locked, so nothing else could answer), another user is refused there; the data directory's modes
are owner-only; SIGTERM (systemctl stop) ends the server cleanly.

usage: python3 tests/packaging/installed_server.py ROOT
"""
import json
import os
import pwd
import shlex
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.abspath(sys.argv[1])
UNIT = os.path.join(ROOT, "lib/systemd/system/relay.service")


def under_root(path):
    return os.path.join(ROOT, path.lstrip("/"))


def parse_unit(path):
    """[Service] settings: name -> list of values, in order (systemd's syntax, no continuation lines)."""
    settings, section = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line.strip("[]")
                continue
            name, _, value = line.partition("=")
            settings.setdefault((section, name.strip()), []).append(value.strip())
    return settings


def parse_env_file(path):
    """systemd's EnvironmentFile=: NAME=value lines, # comments, optional quotes."""
    env = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            name, _, value = line.partition("=")
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            env[name.strip()] = value
    return env


def set_env_values(path, values):
    """The administrator's edit of the conffile: replaces the NAME= lines in place."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for name, value in values.items():
        found = [i for i, line in enumerate(lines) if line.startswith(f"{name}=")]
        assert len(found) == 1, f"{path}: one {name}= line expected"
        lines[found[0]] = f"{name}={value}"
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def relay_user():
    with open(os.path.join(ROOT, "etc/passwd"), encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split(":")
            if fields[0] == "relay":
                return {"uid": int(fields[2]), "gid": int(fields[3]), "home": fields[5], "shell": fields[6]}
    raise AssertionError("no relay user in the scratch root's /etc/passwd")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, token=None):
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = token
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=15) as res:
        return res.status, res.read()


def wait_for(what, check, timeout=60, proc=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{what}: the server exited with {proc.returncode}")
        try:
            value = check()
        except OSError:
            value = None
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def main():
    unit = parse_unit(UNIT)
    service = lambda name: unit.get(("Service", name), [])  # noqa: E731
    assert service("User") == ["relay"] and service("Group") == ["relay"], "runs as the relay user"
    assert service("StateDirectory") == ["relay"] and service("StateDirectoryMode") == ["0700"]
    assert service("Restart") == ["on-failure"]
    assert service("NoNewPrivileges") == ["yes"] and service("CapabilityBoundingSet") == [""]
    (exec_start,) = service("ExecStart")
    (env_file,) = service("EnvironmentFile")
    user = relay_user()
    assert user["home"] == "/var/lib/relay" and user["shell"] == "/usr/sbin/nologin", user
    print(f"ok   relay user uid {user['uid']} (home /var/lib/relay, nologin); unit: User=relay, "
          f"StateDirectory=relay 0700, Restart=on-failure; ExecStart={exec_start}")

    port = free_port()
    set_env_values(under_root(env_file), {"RELAY_BIND": "127.0.0.1", "RELAY_PORT": str(port)})
    settings = parse_env_file(under_root(env_file))
    assert settings["RELAY_WEB"] == "false" and "RELAY_WEB_PORT" in settings, settings

    state = under_root("/var/lib/relay")
    os.makedirs(state, mode=0o700, exist_ok=False)
    as_root = os.geteuid() == 0
    if as_root:
        os.chown(state, user["uid"], user["gid"])
    run_as = (["setpriv", f"--reuid={user['uid']}", f"--regid={user['gid']}", "--clear-groups",
               "--no-new-privs", "--bounding-set=-all", "--inh-caps=-all"] if as_root else [])
    relay_bin = under_root("/usr/bin/relay")
    base_env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
                "HOME": state, "USER": "relay", "LOGNAME": "relay", "SHELL": user["shell"]}
    argv = [under_root(word) if word.startswith("/") else word for word in shlex.split(exec_start)]
    assert argv[:2] == [relay_bin, "serve"], argv
    log_path = os.path.join(os.path.dirname(ROOT), "relay-serve.log")
    log = open(log_path, "wb")
    proc = subprocess.Popen(run_as + argv, env={**base_env, "STATE_DIRECTORY": state, **settings},
                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd="/",
                            start_new_session=True)
    ok = False
    try:
        server = f"http://127.0.0.1:{port}"
        wait_for("GET /api/health", lambda: http("GET", f"{server}/api/health")[0] == 200, proc=proc)
        with open(f"/proc/{proc.pid}/status", encoding="ascii") as f:
            status = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
        uids = status["Uid"].split()
        if as_root:
            assert uids[0] == uids[1] == str(user["uid"]), status["Uid"]
            assert status["NoNewPrivs"].strip() == "1" and int(status["CapBnd"], 16) == 0, status
        print(f"ok   relay serve runs as uid {uids[0]} on 127.0.0.1:{port} (RELAY_BIND/RELAY_PORT from "
              f"{env_file}), no_new_privs, empty capability bounding set")

        _, index = http("GET", f"{server}/")
        with open(under_root("/usr/share/relay/ui/index.html"), "rb") as f:
            assert index == f.read(), "the web UI is the installed /usr/share/relay/ui"

        def relay(*args):
            return subprocess.run(run_as + [relay_bin, *args], env=base_env, capture_output=True, text=True,
                                  timeout=120, cwd="/")

        info = relay("connection-info", "--data-dir", state)
        assert info.returncode == 0, info.stderr
        secret = next(line.split(":", 1)[1].strip() for line in info.stdout.splitlines()
                      if line.startswith("Passphrase:"))
        _, body = http("POST", f"{server}/api/collections/users/auth-with-password",
                       {"identity": "relay", "password": secret})
        token = json.loads(body)["token"]
        status_code, _ = http("GET", f"{server}/api/collections/contacts/records?perPage=1", token=token)
        assert status_code == 200
        print("ok   `relay connection-info` as the relay user prints the passphrase; signed in over HTTP")

        created = relay("backup", "--data-dir", state, "create")
        assert created.returncode == 0 and created.stdout.startswith("Backup backup_"), created
        name = created.stdout.split()[1]
        listed = relay("backup", "--data-dir", state, "list")
        assert listed.returncode == 0 and listed.stdout.startswith(name), listed
        assert os.path.isfile(os.path.join(state, "backups", name))
        admins = relay("admin", "--data-dir", state, "list")
        assert admins.returncode == 0, admins.stdout + admins.stderr
        print("ok   `relay backup create`, `backup list` and `admin list` as the relay user, through the "
              "control socket of the running server")
        if as_root:
            refused = subprocess.run([relay_bin, "backup", "--data-dir", state, "list"], env=base_env,
                                     capture_output=True, text=True, timeout=60, cwd="/")
            assert refused.returncode != 0 and "the running server" in refused.stderr, refused
            print("ok   another user (root) is refused on the control socket")

        for path, want in [(state, 0o700), (os.path.join(state, "secrets"), 0o700),
                           (os.path.join(state, "secrets/passphrase"), 0o600),
                           (os.path.join(state, "control.sock"), 0o600), (os.path.join(state, "store"), 0o700),
                           (os.path.join(state, "backups"), 0o700)]:
            assert mode(path) == want, f"{path}: {oct(mode(path))}, want {oct(want)}"
            if as_root:
                assert os.lstat(path).st_uid == user["uid"], path
        print("ok   /var/lib/relay: 0700 and the relay user's; passphrase, control socket 0600")

        os.killpg(proc.pid, signal.SIGTERM)
        code = proc.wait(timeout=60)
        assert code == 0, f"relay serve exited {code} after SIGTERM"
        assert not os.path.exists(os.path.join(state, "control.sock")), "the control socket is removed"
        print("ok   SIGTERM (systemctl stop): clean exit 0, control socket removed")
        ok = True
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
        if not ok:
            with open(log_path, encoding="utf-8", errors="replace") as f:
                print("---- relay serve log (tail) ----\n" + "".join(f.readlines()[-40:]), file=sys.stderr)
    print("installed relay-server ok")


if __name__ == "__main__":
    try:
        main()
    except urllib.error.HTTPError as e:
        raise SystemExit(f"HTTP {e.code}: {e.read()[:300]!r}")
