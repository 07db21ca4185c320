"""A long prompts file: `verstehen batch` on 1,000,000 prompts starts calling at once, in bounded
memory.

Writes a .txt prompts file of N lines to a temporary folder, starts
`python -m verstehen.testing.stub_server` (answers at once) and runs `verstehen batch` against
it as a child process. It prints the seconds from the start of the batch to the stub's first
request, the batch process's peak memory (its VmHWM, read from /proc while it runs, and its
ru_maxrss once it has ended) and whether the targets are met (first request within 5 s, peak
under 500 MB). The batch is stopped with Ctrl-C (SIGINT) after --stop-after requests, to keep
the bench short (what it holds does not grow with the records written), then resumed
(`batch --resume`, which reads the file twice more: its ids, then the prompts left) and
measured the same way.

Run: python bench/batch_million.py [--lines 1000000] [--stop-after 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from verstehen.testing.ports import free_port, wait_for_port

FIRST_REQUEST_TARGET_S = 5.0
PEAK_MEMORY_TARGET_MB = 500.0
POLL_S = 0.02


@dataclass(frozen=True)
class Measured:
    """What one batch run showed."""

    first_request_s: float | None
    peak_mb: float
    requests: int
    seconds: float
    exit_code: int


def write_prompts(path: Path, lines: int) -> None:
    """A .txt prompts file of `lines` distinct prompts, written in pieces."""
    with path.open("w", encoding="utf-8") as out:
        for start in range(0, lines, 100_000):
            out.write("".join(f"prompt number {n}: say something short\n"
                              for n in range(start, min(start + 100_000, lines))))


def served(port: int) -> int:
    """Chat requests the stub has answered."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats", timeout=5) as reply:
        return int(json.load(reply)["chat"])


def peak_mb(pid: int) -> float:
    """The process's peak resident memory so far, in MB (0 where /proc cannot tell)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def batch_command(folder: Path, port: int, *args: str) -> list[str]:
    """`verstehen batch ARGS` against the stub, in the bench's folder."""
    return [sys.executable, "-m", "verstehen", "batch", *args, "--base-url",
            f"http://127.0.0.1:{port}/v1", "--no-progress", "--runs-dir", str(folder / "runs"),
            "--cache", str(folder / "calls.sqlite")]


def run_batch(command: list[str], port: int, stop_after: int) -> Measured:
    """Run a batch until the stub has served `stop_after` more requests (or the batch ends)."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL"}}
    before = served(port)
    started = time.monotonic()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    first, peak, count = None, 0.0, 0
    while child.poll() is None:
        peak = max(peak, peak_mb(child.pid))
        count = served(port) - before
        if first is None and count:
            first = time.monotonic() - started
        if count >= stop_after:
            child.send_signal(signal.SIGINT)
            break
        time.sleep(POLL_S)
    _, err = child.communicate(timeout=120)
    elapsed = time.monotonic() - started
    # ru_maxrss (KB on Linux) is the largest of the children waited for: the batches only
    peak = max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
    if child.returncode not in (0, 130, -signal.SIGINT):
        sys.exit(f"the batch failed (exit {child.returncode}):\n{err[-3000:]}")
    return Measured(first, peak, served(port) - before, elapsed, child.returncode)


def verdict(met: bool) -> str:
    """PASS or MISS."""
    return "PASS" if met else "MISS"


def row(what: str, got: Measured) -> list[str]:
    """Two table rows (first request, peak memory) of one batch."""
    first = "never" if got.first_request_s is None else f"{got.first_request_s:.2f} s"
    first_met = got.first_request_s is not None and got.first_request_s <= FIRST_REQUEST_TARGET_S
    return [f"{what + ': seconds to the first request':<44} {first:>9}  "
            f"{f'<= {FIRST_REQUEST_TARGET_S:.0f} s':>9}  {verdict(first_met)}",
            f"{what + ': peak memory':<44} {f'{got.peak_mb:.0f} MB':>9}  "
            f"{f'< {PEAK_MEMORY_TARGET_MB:.0f} MB':>9}  "
            f"{verdict(got.peak_mb < PEAK_MEMORY_TARGET_MB)}"]


def main() -> None:
    """Write the file, start the stub, run the batch and then its resume, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--stop-after", type=int, default=20_000,
                        help="requests after which each batch is stopped (Ctrl-C)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="batch-million-") as tmp:
        folder = Path(tmp)
        prompts = folder / "prompts.txt"
        write_prompts(prompts, args.lines)
        port = free_port()
        stub = subprocess.Popen([sys.executable, "-m", "verstehen.testing.stub_server",
                                 "--port", str(port)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            wait_for_port(port, stub)
            new = run_batch(batch_command(folder, port, "openai/stub", str(prompts)), port,
                            args.stop_after)
            [run] = (folder / "runs").iterdir()
            done = sum(1 for _ in (run / "records.jsonl").open("rb"))
            resumed = run_batch(batch_command(folder, port, "--resume", str(run)), port,
                                args.stop_after)
        finally:
            stub.terminate()
            stub.wait(10)
        size_mb = prompts.stat().st_size / 1e6
    print(f"prompts file: {args.lines:,} lines ({size_mb:.0f} MB); the new batch stopped after "
          f"{new.requests:,} requests ({new.seconds:.1f} s), its resume (skipping the {done:,} "
          f"records kept) after {resumed.requests:,} more ({resumed.seconds:.1f} s)")
    print(f"{'measure':<44} {'value':>9}  {'target':>9}  verdict")
    for line in [*row("new batch", new), *row("resumed batch", resumed)]:
        print(line)


if __name__ == "__main__":
    main()
