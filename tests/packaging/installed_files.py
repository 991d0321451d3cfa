#!/usr/bin/env python3
"""The files of both packages as `dpkg --root` installed them into the scratch root ROOT
(scripts/test-packages.sh): every path each package lists is there, root-owned, directories
0755, files 0644 and only the three programs 0755, nothing setuid, setgid or group/world
writable; `dpkg --verify` finds every file as packaged; /etc/relay/relay.env is relay-server's
conffile; the postinst created the relay system user and group (systemd-sysusers) and enabled
relay.service in ROOT; the desktop's seed manifest names this version, the commit and the
SHA-256 of the installed seed build; the menu entries start the launcher on the PATH.

usage: python3 tests/packaging/installed_files.py ROOT
"""
import hashlib
import json
import os
import stat
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1])
ADMIN = os.path.join(ROOT, "var/lib/dpkg")
EXECUTABLES = {"/usr/bin/relay", "/usr/bin/relay-launcher", "/usr/lib/relay-desktop/relay-desktop"}
EXPECTED = {
    "relay-server": {"/usr/bin/relay", "/usr/share/relay/ui/index.html", "/lib/systemd/system/relay.service",
                     "/usr/lib/sysusers.d/relay.conf", "/etc/relay/relay.env", "/usr/share/man/man1/relay.1.gz",
                     "/usr/share/doc/relay-server/copyright", "/usr/share/doc/relay-server/changelog.gz",
                     "/usr/share/doc/relay-server/README.Debian"},
    "relay-desktop": {"/usr/bin/relay-launcher", "/usr/lib/relay-desktop/relay-desktop",
                      "/usr/lib/relay-desktop/seed.json", "/usr/share/applications/relay.desktop",
                      "/usr/share/applications/relay-recovery.desktop",
                      "/usr/share/icons/hicolor/64x64/apps/relay.png", "/usr/share/man/man1/relay-launcher.1.gz",
                      "/usr/share/doc/relay-desktop/copyright", "/usr/share/doc/relay-desktop/changelog.gz",
                      "/usr/share/doc/relay-desktop/README.Debian"},
}


def query(*args):
    return subprocess.run(["dpkg-query", f"--admindir={ADMIN}", *args], check=True, capture_output=True,
                          text=True).stdout


def check_package(package):
    listed = [p for p in query("-L", package).splitlines() if p and p != "/."]
    missing = EXPECTED[package] - set(listed)
    assert not missing, f"{package}: not listed: {sorted(missing)}"
    for path in listed:
        full = os.path.join(ROOT, path.lstrip("/"))
        st = os.lstat(full)
        assert (st.st_uid, st.st_gid) == (0, 0), f"{path}: owned by {st.st_uid}:{st.st_gid}"
        perm = stat.S_IMODE(st.st_mode)
        assert not perm & (stat.S_ISUID | stat.S_ISGID | stat.S_IWGRP | stat.S_IWOTH), f"{path}: {oct(perm)}"
        if stat.S_ISDIR(st.st_mode):
            assert perm == 0o755, f"{path}: directory {oct(perm)}"
        else:
            assert stat.S_ISREG(st.st_mode), f"{path}: not a regular file"
            want = 0o755 if path in EXECUTABLES else 0o644
            assert perm == want, f"{path}: {oct(perm)}, want {oct(want)}"
    files = [p for p in listed if os.path.isfile(os.path.join(ROOT, p.lstrip("/")))]
    print(f"ok   {package}: {len(files)} files, root:root, directories 0755, files 0644, programs 0755")


def main():
    for package in ("relay-server", "relay-desktop"):
        state = query("-W", "-f=${db:Status-Status} ${Version}", package)
        assert state.startswith("installed "), f"{package}: {state}"
        check_package(package)
    verify = subprocess.run(["dpkg", f"--root={ROOT}", "--verify", "relay-server", "relay-desktop"],
                            capture_output=True, text=True)
    assert verify.returncode == 0 and not verify.stdout.strip(), f"dpkg --verify: {verify.stdout}{verify.stderr}"
    conffiles = query("-W", "-f=${Conffiles}", "relay-server").split()
    assert conffiles[:1] == ["/etc/relay/relay.env"], conffiles
    print("ok   dpkg --verify: every file as packaged; /etc/relay/relay.env is a conffile")

    with open(os.path.join(ROOT, "etc/passwd"), encoding="utf-8") as f:
        users = [line.split(":") for line in f]
    with open(os.path.join(ROOT, "etc/group"), encoding="utf-8") as f:
        groups = [line.split(":") for line in f]
    (relay,) = [u for u in users if u[0] == "relay"]
    assert int(relay[2]) < 1000 and relay[5] == "/var/lib/relay" and relay[6].strip() == "/usr/sbin/nologin", relay
    assert [g for g in groups if g[0] == "relay" and g[2] == relay[3]], "the relay group"
    wants = os.path.join(ROOT, "etc/systemd/system/multi-user.target.wants/relay.service")
    assert os.readlink(wants) == "/lib/systemd/system/relay.service", "relay.service is enabled"
    assert not os.path.exists(os.path.join(ROOT, "var/lib/relay")), "systemd creates the state directory, not dpkg"
    print(f"ok   postinst: system user relay (uid {relay[2]}, nologin) and group; relay.service enabled in the root")

    with open(os.path.join(ROOT, "usr/lib/relay-desktop/seed.json"), encoding="utf-8") as f:
        seed = json.load(f)
    with open(os.path.join(ROOT, "usr/lib/relay-desktop/relay-desktop"), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    assert set(seed) == {"version", "commit", "sha256"} and seed["sha256"] == digest, seed
    version = query("-W", "-f=${Version}", "relay-desktop")
    assert seed["version"] == version and len(seed["commit"]) == 40, seed
    for entry, exec_line in (("relay.desktop", "Exec=relay-launcher"),
                             ("relay-recovery.desktop", "Exec=relay-launcher recovery")):
        with open(os.path.join(ROOT, "usr/share/applications", entry), encoding="utf-8") as f:
            lines = f.read().splitlines()
        assert exec_line in lines and "Icon=relay" in lines and "Terminal=false" in lines, (entry, lines)
    print(f"ok   seed.json: version {version}, commit {seed['commit'][:8]}, the seed's SHA-256; menu entries "
          "start relay-launcher (recovery)")


if __name__ == "__main__":
    main()
