"""Audit time: the default `verstehen audit` on the embedded model, against its targets.

Runs the main job as a user would (a new process, default flags, a fresh cache and runs
folder), then once more from the full cache: under 5 minutes cold and 10 seconds warm on two
idle cores. Prints wall times, the calls made, each lens's share of the cold run, the ratios to
the targets, and where the default budget lets the sequential test decide. Exits 0; the table
says PASS or MISS.

Run alone (llama.cpp slows down many times when other processes use the CPU):
    python bench/audit_time.py [--model local/smollm2-135m] [--subject game-theory]
    python bench/audit_time.py --smoke      (a tiny audit: checks the script runs)
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

from verstehen.auditing.plan import make_plan

COLD_TARGET, WARM_TARGET = 300.0, 10.0


def audit(env: dict[str, str], args: list[str]) -> tuple[float, dict]:
    """Wall seconds and the JSON summary of one `verstehen audit` process."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "verstehen", "audit", "--json",
                           "--no-progress", *args], env=env, capture_output=True, text=True,
                          check=True)
    return time.perf_counter() - started, json.loads(done.stdout)


def lens_seconds(summary: dict) -> dict[str, float]:
    """Wall seconds of each lens, from its run folder's summary."""
    out: dict[str, float] = {}
    for runs in summary["runs"]:
        for lens in ("certify", "potemkin", "incoherence"):
            if runs[lens] is not None:
                lens_summary = json.loads(Path(runs[lens], "summary.json").read_text())
                out[lens] = out.get(lens, 0.0) + (lens_summary.get("seconds") or 0.0)
    return out


def main() -> int:
    """Time the audit cold and warm; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local/smollm2-135m")
    parser.add_argument("--subject", default="game-theory")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny audit (8 questions, short answers): checks the script runs")
    opts = parser.parse_args()
    args = ["--model", opts.model, "--subject", opts.subject]
    if opts.smoke:
        # the smallest budget that can still certify a perfect model (8 questions at these)
        args += ["--max-questions", "8", "--first-look", "8", "--pg", "0.6", "--rid", "0.4",
                 "--rephrase", "1", "--examples", "1", "--max-tokens", "16"]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, VERSTEHEN_CACHE=str(Path(tmp, "calls.sqlite")),
                   VERSTEHEN_RUNS_DIR=str(Path(tmp, "runs")))
        cold, summary = audit(env, args)
        lenses = lens_seconds(summary)
        warm, again = audit(env, args)
    calls = sum(u["calls"] for u in summary["usage"].values())
    hits = sum(u["cache_hits"] for u in again["usage"].values())
    plan = make_plan(opts.subject)
    print(f"model {opts.model}, subject {opts.subject}, {os.cpu_count()} CPUs, {calls} calls "
          f"({hits} cache hits on the rerun)")
    for line in summary["targets"]:
        verdict = line["verdict"] or {}
        print(f"  {line['name']}: {verdict.get('decision', 'no verdict')} after "
              f"{line['asked']} questions")
    print("lens seconds (cold): " + ", ".join(f"{k} {v:.1f}" for k, v in lenses.items()))
    print(f"default budget: a perfect model is certified after {plan.reach.understands_at} "
          f"questions, an always-wrong one rejected after {plan.reach.does_not_at}")
    print(f"{'figure':<34} {'value':>9} {'target':>8}  ratio")
    for name, value, target in (("audit, empty cache (s)", cold, COLD_TARGET),
                                ("audit, from the cache (s)", warm, WARM_TARGET)):
        print(f"{name:<34} {value:>9.1f} {target:>8.0f}  {value / target:.3f} "
              f"{'PASS' if value <= target else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
