"""Audit time: `verstehen audit` on the embedded model from an empty cache, against 5 minutes.

Runs the main job as a user would (a new process, default flags, a fresh cache and runs
folder), then once more from the full cache, then the worst case: a single look at the full
budget, so that every scope asks all --max-questions questions. Prints wall times, the calls
made, the ratio to the 300 s target, and the time the bound computations take (vectorized
Chernoff on 100,000 means). Exits 0; the table says PASS or MISS.

Run: python bench/audit_time.py [--model local/smollm2-135m] [--max-questions 256]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from verstehen.stats.bounds import chernoff_lower, chernoff_upper

TARGET_SECONDS = 300.0


def audit(env: dict[str, str], args: list[str]) -> tuple[float, dict]:
    """Wall seconds and the JSON summary of one `verstehen audit` process."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "verstehen", "audit", "--json",
                           "--no-progress", *args], env=env, capture_output=True, text=True,
                          check=True)
    return time.perf_counter() - started, json.loads(done.stdout)


def main() -> int:
    """Time the audit twice and the bounds once; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local/smollm2-135m")
    parser.add_argument("--max-questions", default="256")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, VERSTEHEN_CACHE=str(Path(tmp, "calls.sqlite")),
                   VERSTEHEN_RUNS_DIR=str(Path(tmp, "runs")))
        args = ["--model", opts.model, "--max-questions", opts.max_questions]
        cold, summary = audit(env, args)
        warm, _ = audit(env, args)
        # worst case: one look at the full budget, so every scope asks all its questions
        env["VERSTEHEN_CACHE"] = str(Path(tmp, "calls-full.sqlite"))
        full, full_summary = audit(env, [*args, "--first-look", opts.max_questions])
    calls = sum(u["calls"] for u in summary["usage"].values())
    means = np.linspace(0, 1, 100_000)
    started = time.perf_counter()
    chernoff_lower(means, 1000, 0.05)
    chernoff_upper(means, 1000, 0.05)
    bounds_seconds = time.perf_counter() - started

    print(f"model {opts.model}, {os.cpu_count()} CPUs, {calls} calls")
    for scope in summary["scopes"]:
        verdict = scope["verdict"] or {}
        print(f"  {scope['scope']}: {verdict.get('decision', 'error')} after {scope['asked']} "
              "questions")
    print(f"{'figure':<40} {'value':>10} {'target':>10}")
    print(f"{'audit, empty cache (s)':<40} {cold:>10.1f} {TARGET_SECONDS:>10.0f}  "
          f"{'PASS' if cold <= TARGET_SECONDS else 'MISS'}")
    print(f"{'ratio to target':<40} {cold / TARGET_SECONDS:>10.3f} {1:>10}")
    print(f"{'audit, from the cache (s)':<40} {warm:>10.1f}")
    asked = sum(s["asked"] for s in full_summary["scopes"])
    print(f"{f'audit asking the full budget, {asked} q (s)':<40} {full:>10.1f} "
          f"{TARGET_SECONDS:>10.0f}  {'PASS' if full <= TARGET_SECONDS else 'MISS'}")
    print(f"{'L and U for 100,000 means (s)':<40} {bounds_seconds:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
