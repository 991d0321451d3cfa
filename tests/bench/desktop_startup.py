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
Usage: xvfb-run -a python3 tests/bench/desktop_startup.py BIN [RUNS]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SETTLE = 6.0
EXIT_AFTER = 10


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
    return ready, mapped, app_rss / 1024, total_pss / 1024, sorted({c for c, _, _ in procs})


def fmt(values, unit, scale=1.0):
    vals = [v * scale for v in values if v is not None]
    if not vals:
        return "n/a"
    return f"{statistics.median(vals):.0f} {unit} (min {min(vals):.0f}, max {max(vals):.0f})"


def main():
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    results = [one_run(binary) for _ in range(runs)]
    size_mib = os.path.getsize(binary) / (1024 * 1024)
    names = sorted({n for r in results for n in r[4]})
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
        f"| RSS of the relay-desktop process | {fmt([r[2] for r in results], 'MiB')} |",
        f"| PSS of the app with its WebKit processes (shared pages split) | {fmt([r[3] for r in results], 'MiB')} |",
        f"| binary size | {size_mib:.1f} MiB |",
        "",
        f"Processes counted: {', '.join(names)}.",
        "",
    ])
    print(report)
    out = os.environ.get("RELAY_BENCH_REPORT")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(report)


if __name__ == "__main__":
    main()
