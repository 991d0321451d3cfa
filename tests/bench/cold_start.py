#!/usr/bin/env python3
"""Cold start and idle memory of the real `relay serve`, repeated (issue #41.3).

Each run starts the binary on a fresh temporary data directory (so migrations, the search
indexes and the passphrase are created every time), measures spawn to the first 200 on
`GET /api/health` (a 1 ms poll of a raw HTTP/1.1 request over loopback), then the server's RSS
and its thread count 1 s later (the loopback bench's "idle RSS after start") and 5 s later (after
the status feeds' first poll at 2 s), and stops it with SIGTERM. Prints the median and max of
the start, the CPU time the server's threads ran by the first 200 (less sensitive to other load on
the machine than the wall time) and the RSS figures as a Markdown table; `--trace` also prints one run's start-up
phases (`RELAY_LOG=warn,relay::startup=debug`). Every wait is bounded.

    cargo build --profile bench -p relay --bin relay
    python3 tests/bench/cold_start.py --bin target/release/relay --runs 15
"""

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import tempfile
import time

PASSPHRASE = "bench-passphrase-123"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def health_ok(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def status(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def cpu_ms(pid):
    """CPU time the process's live threads have run (ns from /proc/<pid>/task/*/schedstat), in ms:
    what the start cost the machine, much less sensitive to other load than the wall time."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total / 1e6


def one_run(binary, trace):
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = dict(os.environ, RELAY_BOOTSTRAP_PASSPHRASE=PASSPHRASE)
        env.pop("RELAY_LOG", None)
        if trace:
            env["RELAY_LOG"] = "warn,relay::startup=debug"
        args = [binary, "serve", "--data-dir", os.path.join(tmp, "data"), "--bind", "127.0.0.1",
                "--port", str(port), "--log-level", "warn"]
        err = open(os.path.join(tmp, "stderr"), "w+")
        started = time.perf_counter()
        child = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            while not health_ok(port):
                if time.perf_counter() - started > 20 or child.poll() is not None:
                    raise SystemExit("relay did not start")
                time.sleep(0.001)
            first_200_ms = (time.perf_counter() - started) * 1e3
            cpu_at_200 = cpu_ms(child.pid)
            time.sleep(1)
            rss_1s, threads_1s = status(child.pid, "VmRSS"), status(child.pid, "Threads")
            time.sleep(4)
            rss_5s, threads_5s = status(child.pid, "VmRSS"), status(child.pid, "Threads")
        finally:
            child.send_signal(signal.SIGTERM)
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        err.seek(0)
        phases = [line for line in err.read().splitlines() if "relay::startup" in line] if trace else []
        return first_200_ms, rss_1s, threads_1s, rss_5s, threads_5s, phases, cpu_at_200


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default="target/release/relay")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--trace", action="store_true", help="print the start-up phases of the last run")
    args = parser.parse_args()
    runs = [one_run(args.bin, args.trace and i == args.runs - 1) for i in range(max(1, args.runs))]
    starts = [r[0] for r in runs]
    mib = lambda kib: kib / 1024.0
    rows = [
        ("spawn to first 200 on /api/health", f"{statistics.median(starts):.1f} ms", f"{max(starts):.1f} ms"),
        ("CPU time of the server by the first 200", f"{statistics.median(r[6] for r in runs):.1f} ms",
         f"{max(r[6] for r in runs):.1f} ms"),
        ("RSS 1 s after the first 200", f"{mib(statistics.median(r[1] for r in runs)):.1f} MiB",
         f"{mib(max(r[1] for r in runs)):.1f} MiB"),
        ("RSS 5 s after (status feeds polled once)", f"{mib(statistics.median(r[3] for r in runs)):.1f} MiB",
         f"{mib(max(r[3] for r in runs)):.1f} MiB"),
        ("threads 1 s / 5 s after", f"{statistics.median(r[2] for r in runs):.0f} / {statistics.median(r[4] for r in runs):.0f}",
         f"{max(r[2] for r in runs)} / {max(r[4] for r in runs)}"),
    ]
    print(f"{len(runs)} runs of {args.bin}, {os.cpu_count()} cores\n")
    print("| measure | median | max |\n| --- | --- | --- |")
    for name, median, worst in rows:
        print(f"| {name} | {median} | {worst} |")
    print("\nstarts (ms): " + ", ".join(f"{s:.1f}" for s in starts))
    for line in runs[-1][5]:
        m = re.search(r'phase="?([^"]*?)"? elapsed_ms=([0-9.]+)', line)
        print(f"  {m.group(2):>8} ms  {m.group(1)}" if m else "  " + line)


if __name__ == "__main__":
    main()
