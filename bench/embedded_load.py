"""The embedded model on a busy machine: a fresh 64-token `verstehen ask` (and, with --audit,
the default `verstehen audit`) on an idle machine and beside CPU-bound processes.

Each condition runs the real command in a new process with an empty cache. It is timed with
the default threads (adapting to the load), and for comparison with 2 fixed threads, the old
default, which collapses when another process takes a core. Prints seconds, the ratio
loaded / idle and PASS or MISS against the target of 3x.

Run: python bench/embedded_load.py [--audit] [--busy 2] [--repeats 3]
     python bench/embedded_load.py --tiny     (a smoke run: 4 tokens, one repeat)
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

PROMPT = "Write a long story about a dragon who learns to bake bread."
TARGET = 3.0


@contextmanager
def busy_processes(count: int) -> Iterator[None]:
    """`count` CPU-bound processes running for the duration."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    time.sleep(1.0)  # let them take their cores
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def ask_seconds(max_tokens: int, threads: int | None, timeout: float) -> float | None:
    """The call time `verstehen ask` reports for a fresh answer; None when it timed out."""
    with tempfile.TemporaryDirectory() as folder:
        argv = [sys.executable, "-m", "verstehen", "ask", "local/smollm2-135m", PROMPT,
                "--max-tokens", str(max_tokens), "--cache", f"{folder}/calls.sqlite"]
        if threads is not None:
            argv += ["--threads", str(threads)]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                                  check=True)
        except subprocess.TimeoutExpired:
            return None
    found = re.search(r"new call, ([\d.]+) s; \d+ prompt \+ (\d+) completion", done.stderr)
    if not found:
        raise SystemExit(f"unexpected output of verstehen ask: {done.stderr.strip()}")
    return float(found.group(1))


def audit_seconds(timeout: float) -> float | None:
    """Wall seconds of the default audit with an empty cache; None when it timed out."""
    with tempfile.TemporaryDirectory() as folder:
        argv = [sys.executable, "-m", "verstehen", "audit", "--no-progress",
                "--cache", f"{folder}/calls.sqlite", "--runs-dir", f"{folder}/runs"]
        started = time.perf_counter()
        try:
            subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=True)
        except subprocess.TimeoutExpired:
            return None
        return time.perf_counter() - started


def median(values: list[float | None]) -> float | None:
    """The median, or None when any run timed out."""
    return None if any(v is None for v in values) else statistics.median(values)  # type: ignore[type-var]


def shown(seconds: float | None, timeout: float) -> str:
    """Seconds for the table."""
    return f"> {timeout:.0f}" if seconds is None else f"{seconds:.2f}"


def verdict(idle: float | None, loaded: float | None) -> str:
    """The ratio loaded / idle with PASS or MISS."""
    if idle is None or loaded is None:
        return "MISS (timed out)"
    ratio = loaded / idle
    return f"{ratio:.1f}x  {'PASS' if ratio <= TARGET else 'MISS'} (target <= {TARGET:.0f}x)"


def main() -> int:
    """Time the conditions and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=2, help="CPU-bound processes beside it")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--audit", action="store_true", help="also time the default audit")
    parser.add_argument("--tiny", action="store_true", help="smoke run: 4 tokens, once")
    opts = parser.parse_args()
    tokens, repeats = (4, 1) if opts.tiny else (64, opts.repeats)
    timeout = 300.0

    def asks(threads: int | None) -> float | None:
        return median([ask_seconds(tokens, threads, timeout) for _ in range(repeats)])

    ask_seconds(tokens, None, timeout)  # load the files into the page cache first
    idle = asks(None)
    with busy_processes(opts.busy):
        loaded = asks(None)
        old = None if opts.tiny else ask_seconds(tokens, 2, 120.0)
    print(f"fresh {tokens}-token `verstehen ask` on local/smollm2-135m, call seconds "
          f"(median of {repeats}); {opts.busy} CPU-bound processes beside it when loaded")
    print(f"{'condition':44} {'seconds':>9}")
    print(f"{'idle, default threads':44} {shown(idle, timeout):>9}")
    print(f"{'loaded, default threads':44} {shown(loaded, timeout):>9}   {verdict(idle, loaded)}")
    if not opts.tiny:
        print(f"{'loaded, --threads 2 (the old default)':44} {shown(old, 120.0):>9}   "
              f"{'' if old is None or idle is None else f'{old / idle:.0f}x'}")
    if opts.audit:
        audit_idle = audit_seconds(1800.0)
        with busy_processes(opts.busy):
            audit_loaded = audit_seconds(1800.0)
        print(f"{'default audit, idle (wall)':44} {shown(audit_idle, 1800.0):>9}")
        print(f"{'default audit, loaded (wall)':44} {shown(audit_loaded, 1800.0):>9}   "
              f"{verdict(audit_idle, audit_loaded)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
