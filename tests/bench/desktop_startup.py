#!/usr/bin/env python3
"""Start-up and memory report for relay-desktop (a report, not a pass/fail test).

Starts the given relay-desktop binary RUNS times in server mode (loopback, no mDNS, temporary
data directory) under the current X display (run it with xvfb-run) and measures, per run:
time from spawn to the in-process server being ready (runtime.json written), time until the
window named "Relay" is mapped (xwininfo), and after SETTLE seconds the resident memory of the
app process (RSS) and the proportional memory (PSS) of it and all its descendants (WebKit's web
and network processes). Every run ends by itself
(RELAY_DESKTOP_EXIT_AFTER_SECS) and is bounded in time. Writes a Markdown report to
RELAY_BENCH_REPORT (default: stdout only).

With --launcher it measures the recovery launcher's start overhead instead (issue #14): BIN is
installed as the first runtime with `LAUNCHER install` under a temporary HOME, then each round
starts (a) that installed relay-desktop directly and (b) `LAUNCHER --data-dir DATA` (which
verifies the catalog, re-hashes the executable with SHA-512 and execs it), alternating which goes
first, both with the same environment (fresh data directory, so the setup screen; no mDNS), and
records spawn to the "Relay" window mapped. One uncounted warm-up of each comes first (the
launcher's creates the catalog). Reports median, p90, min and max per path and the difference.

With --launcher-floor it isolates the launcher's own cost (no X needed): the runtime is /bin/true
padded with random bytes to each of SIZES_MIB (it still execs at once), installed the same way,
and ROUNDS pairs of "runtime directly" / "launcher -> runtime" are timed from spawn to exit.
Usage: xvfb-run -a python3 tests/bench/desktop_startup.py BIN [RUNS]
       xvfb-run -a python3 tests/bench/desktop_startup.py --launcher LAUNCHER BIN [ROUNDS]
       python3 tests/bench/desktop_startup.py --launcher-floor LAUNCHER [ROUNDS]
"""
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SETTLE = 6.0
EXIT_AFTER = int(os.environ.get("RELAY_BENCH_EXIT_AFTER", "10"))


def pss_kib(pid):
    """Proportional set size (shared pages split between their users), from smaps_rollup."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="utf-8") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def descendants(pid):
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,rss=,comm="], capture_output=True, text=True).stdout
    rows = [line.split(None, 3) for line in out.splitlines() if line.strip()]
    children, rss, comm = {}, {}, {}
    for p, pp, r, c in rows:
        children.setdefault(int(pp), []).append(int(p))
        rss[int(p)], comm[int(p)] = int(r), c
    seen, stack = [], [pid]
    while stack:
        p = stack.pop()
        if p in rss:
            seen.append(p)
            stack.extend(children.get(p, []))
    return [(comm[p], rss[p], pss_kib(p)) for p in seen]


def window_mapped():
    tree = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True).stdout
    return '"Relay":' in tree


def one_run(binary):
    data = tempfile.mkdtemp(prefix="relay-bench-desktop-")
    env = dict(os.environ, RELAY_DESKTOP_EXIT_AFTER_SECS=str(EXIT_AFTER))
    start = time.monotonic()
    proc = subprocess.Popen([binary, "--data-dir", data, "--server-mode", "--bind", "127.0.0.1", "--no-mdns",
                             "--port", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    ready = mapped = None
    try:
        deadline = start + EXIT_AFTER
        while time.monotonic() < deadline and (ready is None or mapped is None):
            now = time.monotonic() - start
            if ready is None and os.path.exists(os.path.join(data, "runtime.json")):
                ready = now
            if mapped is None and window_mapped():
                mapped = now
            time.sleep(0.01)
        time.sleep(max(0.0, SETTLE - (time.monotonic() - start)))
        procs = descendants(proc.pid)
    finally:
        try:
            proc.wait(EXIT_AFTER + 10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(data, ignore_errors=True)
    app_rss = sum(r for _, r, _ in procs[:1])
    total_pss = sum(p for _, _, p in procs)
    by_name = {}
    for c, _, p in procs:
        by_name[c] = by_name.get(c, 0) + p / 1024
    return ready, mapped, app_rss / 1024, total_pss / 1024, sorted(by_name), by_name


def fmt(values, unit, scale=1.0):
    vals = [v * scale for v in values if v is not None]
    if not vals:
        return "n/a"
    return f"{statistics.median(vals):.0f} {unit} (min {min(vals):.0f}, max {max(vals):.0f})"


def wait_until(predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def time_to_mapped(command, env):
    """Spawn to the "Relay" window mapped (seconds; None if it never maps), then waits for the
    process to end by itself (RELAY_DESKTOP_EXIT_AFTER_SECS) and the window to go."""
    if not wait_until(lambda: not window_mapped(), 10):
        raise SystemExit("a Relay window from an earlier run is still mapped")
    start = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    mapped = None
    try:
        if wait_until(window_mapped, EXIT_AFTER):
            mapped = time.monotonic() - start
    finally:
        try:
            proc.wait(EXIT_AFTER + 20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return mapped


def percentile(values, fraction):
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * fraction // 1))  # nearest rank
    return ordered[int(rank) - 1]


def stats_ms(values):
    vals = [v * 1000 for v in values if v is not None]
    if not vals:
        return "n/a", None
    med = statistics.median(vals)
    return f"{med:.0f} | {percentile(vals, 0.9):.0f} | {min(vals):.0f} | {max(vals):.0f}", med


def launcher_overhead(launcher, binary, rounds):
    home = tempfile.mkdtemp(prefix="relay-bench-launcher-")
    try:
        xdg = os.path.join(home, "share")
        os.makedirs(xdg, mode=0o700)
        env = dict(os.environ, HOME=home, XDG_DATA_HOME=xdg, RELAY_DESKTOP_EXIT_AFTER_SECS=str(EXIT_AFTER),
                   RELAY_DESKTOP_NO_MDNS="1")
        env.pop("RELAY_DATA_DIR", None)
        env.pop("RELAY_TEST_FAULT", None)
        installed = subprocess.run([launcher, "install", "--runtime", binary, "--version", "0.1.0", "--commit",
                                    "0" * 40], env=env, capture_output=True, text=True, check=True)
        build = installed.stdout.strip()
        runtime = os.path.join(xdg, "relay", "runtimes", build, "relay-desktop")

        def one(path):
            data = tempfile.mkdtemp(prefix="data-", dir=home)
            if path == "direct":
                return time_to_mapped([runtime], dict(env, RELAY_DATA_DIR=data))
            return time_to_mapped([launcher, "--data-dir", data], env)

        one("launcher")  # warm-up; creates the catalog
        one("direct")
        times = {"direct": [], "launcher": []}
        for round_no in range(rounds):
            order = ["direct", "launcher"] if round_no % 2 == 0 else ["launcher", "direct"]
            for path in order:
                times[path].append(one(path))
        hash_runs = []
        for _ in range(3):
            start = time.monotonic()
            with open(runtime, "rb") as f:
                digest = hashlib.sha512()
                for chunk in iter(lambda: f.read(1 << 16), b""):
                    digest.update(chunk)
            hash_runs.append(time.monotonic() - start)
        size_mib = os.path.getsize(runtime) / (1024 * 1024)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    direct_row, direct_med = stats_ms(times["direct"])
    launcher_row, launcher_med = stats_ms(times["launcher"])
    missing = sum(v is None for vs in times.values() for v in vs)
    diff = "n/a" if direct_med is None or launcher_med is None else f"{launcher_med - direct_med:+.0f} ms"
    report = "\n".join([
        "## Launcher start overhead (relay-launcher vs relay-desktop directly, to window mapped)",
        "",
        f"{rounds} rounds under Xvfb (plus one uncounted warm-up of each), alternating which path goes first; "
        "both start the same installed runtime file with a fresh data directory (setup screen), no mDNS.",
        "",
        "| path | median (ms) | p90 (ms) | min (ms) | max (ms) |",
        "| --- | --- | --- | --- | --- |",
        f"| relay-desktop started directly | {direct_row} |",
        f"| relay-launcher -> relay-desktop | {launcher_row} |",
        "",
        f"Difference of the medians (launcher - direct): {diff}. Runtime executable: {size_mib:.1f} MiB; "
        f"one SHA-512 pass over it in Python (OpenSSL), page cache warm: "
        f"{statistics.median(hash_runs) * 1000:.0f} ms (median of 3). Runs without a mapped window: {missing}.",
        "",
    ])
    print(report)
    out = os.environ.get("RELAY_BENCH_REPORT")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(report)


SIZES_MIB = (25.7, 79.0, 335.3)


def launcher_floor(launcher, rounds):
    rows = []
    for mib in SIZES_MIB:
        home = tempfile.mkdtemp(prefix="relay-bench-floor-")
        try:
            xdg, data, source = os.path.join(home, "share"), os.path.join(home, "data"), os.path.join(home, "padded")
            os.makedirs(xdg, mode=0o700)
            os.makedirs(data, mode=0o700)
            with open("/bin/true", "rb") as f:
                elf = f.read()
            with open(source, "wb") as f:
                f.write(elf)
                f.write(os.urandom(int(mib * 1024 * 1024) - len(elf)))
            env = dict(os.environ, HOME=home, XDG_DATA_HOME=xdg)
            env.pop("RELAY_DATA_DIR", None)
            env.pop("RELAY_TEST_FAULT", None)
            build = subprocess.run([launcher, "install", "--runtime", source, "--version", "0.1.0", "--commit",
                                    "0" * 40], env=env, capture_output=True, text=True, check=True).stdout.strip()
            runtime = os.path.join(xdg, "relay", "runtimes", build, "relay-desktop")

            def timed(command):
                start = time.monotonic()
                subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
                return time.monotonic() - start

            for _ in range(2):  # warm-up; the first launcher run creates the catalog
                timed([launcher, "--data-dir", data])
                timed([runtime])
            direct, via = [], []
            for _ in range(rounds):
                direct.append(timed([runtime]))
                via.append(timed([launcher, "--data-dir", data]))
        finally:
            shutil.rmtree(home, ignore_errors=True)
        direct_row, direct_med = stats_ms(direct)
        via_row, via_med = stats_ms(via)
        rows.append(f"| {mib:.1f} MiB | {direct_row.split(' | ')[0]} | {via_row} | {via_med - direct_med:+.0f} |")
    report = "\n".join([
        "### Launcher floor (runtime = /bin/true padded to the size; spawn to exit)",
        "",
        f"{rounds} rounds per size, page cache warm.",
        "",
        "| runtime size | direct median (ms) | launcher median (ms) | p90 | min | max | difference (ms) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
    ])
    print(report)


def main():
    if sys.argv[1] == "--launcher-floor":
        launcher_floor(os.path.abspath(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 20)
        return
    if sys.argv[1] == "--launcher":
        launcher, binary = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
        launcher_overhead(launcher, binary, int(sys.argv[4]) if len(sys.argv) > 4 else 10)
        return
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    results = [one_run(binary) for _ in range(runs)]
    size_mib = os.path.getsize(binary) / (1024 * 1024)
    names = sorted({n for r in results for n in r[4]})
    per_process = ", ".join(f"{n} {statistics.median([r[5].get(n, 0) for r in results]):.0f} MiB" for n in names)
    report = "\n".join([
        "## Desktop start-up and memory (relay-desktop, server mode)",
        "",
        f"{runs} runs under Xvfb, loopback bind, no mDNS, fresh data directory each run; "
        f"memory read {SETTLE:.0f} s after spawn (sign-in screen shown).",
        "",
        "| measure | median (min, max) |",
        "| --- | --- |",
        f"| spawn to in-process server ready (runtime.json) | {fmt([r[0] for r in results], 'ms', 1000)} |",
        f"| spawn to main window mapped | {fmt([r[1] for r in results], 'ms', 1000)} |",
        f"| server ready to window mapped (the shell's own part) | "
        f"{fmt([r[1] - r[0] for r in results if r[0] is not None and r[1] is not None], 'ms', 1000)} |",
        f"| RSS of the relay-desktop process | {fmt([r[2] for r in results], 'MiB')} |",
        f"| PSS of the app with its WebKit processes (shared pages split) | {fmt([r[3] for r in results], 'MiB')} |",
        f"| binary size | {size_mib:.1f} MiB |",
        "",
        f"Processes counted: {', '.join(names)}. Median PSS per process: {per_process}.",
        "",
    ])
    print(report)
    out = os.environ.get("RELAY_BENCH_REPORT")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(report)


if __name__ == "__main__":
    main()
