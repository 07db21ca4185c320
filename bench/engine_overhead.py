"""Engine overhead: verstehen's Runner against a bare openai client, on a local stub server.

Starts `python -m verstehen.testing.stub_server` (answers at once) on a free port, then times
N distinct chat requests at concurrency C, the gather only: a bare openai.AsyncOpenAI under
asyncio.Semaphore(C) (the reference) against Runner(Cache(new empty file)).generate (all
misses), same parameters, alternating repetitions; the ratio uses median wall times (client
CPU time is shown too: less noisy). Then a replay from the full cache (all hits), ru_maxrss,
and the tracemalloc peak of one extra, untimed verstehen pass. Exits 0; the table says
PASS or MISS against each target.

Run: python bench/engine_overhead.py [--requests 2000] [--concurrency 64] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import openai

from verstehen.engine.cache import Cache
from verstehen.engine.runner import Runner
from verstehen.models import GenerateParams, get_model, user
from verstehen.testing.ports import free_port, wait_for_port

PARAMS = GenerateParams(max_tokens=16)


async def bare_pass(url: str, prompts: list[str], concurrency: int) -> tuple[float, float]:
    """Wall and client-CPU seconds for the prompts through a bare AsyncOpenAI client."""
    client = openai.AsyncOpenAI(base_url=url, api_key="x", max_retries=0)
    limit = asyncio.Semaphore(concurrency)

    async def one(prompt: str) -> str:
        async with limit:
            out = await client.chat.completions.create(
                model="stub", messages=user(prompt), temperature=PARAMS.temperature,
                max_tokens=PARAMS.max_tokens, seed=PARAMS.seed)
            return out.choices[0].message.content or ""

    start, cpu = time.perf_counter(), time.process_time()
    texts = await asyncio.gather(*(one(p) for p in prompts))
    elapsed = time.perf_counter() - start, time.process_time() - cpu
    await client.close()
    assert all(texts), "empty answer"
    return elapsed


async def runner_pass(url: str, prompts: list[str], concurrency: int, cache_path: Path,
                      expect_hits: bool = False) -> tuple[float, float]:
    """Wall and client-CPU seconds for the prompts through Runner.generate on a cache file."""
    model = get_model("openai/stub", base_url=url)
    cache = Cache(cache_path)
    runner = Runner(cache, max_connections=concurrency)
    start, cpu = time.perf_counter(), time.process_time()
    results = await asyncio.gather(*(runner.generate(model, user(p), PARAMS) for p in prompts))
    elapsed = time.perf_counter() - start, time.process_time() - cpu
    await model.aclose()
    cache.close()
    bad = [r.error for r in results if not r.ok]
    assert not bad, f"{len(bad)} failed calls, first: {bad[0]}"
    hits = runner.usage[model.name].cache_hits
    assert hits == (len(prompts) if expect_hits else 0), f"{hits} cache hits"
    return elapsed


def main() -> None:
    """Parse flags, start the stub server, run every pass and print the table."""
    ap = argparse.ArgumentParser(description="verstehen engine overhead benchmark")
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    n, c = args.requests, args.concurrency
    prompts = [f"question {i}" for i in range(n)]
    port = free_port()
    url, run = f"http://127.0.0.1:{port}/v1", asyncio.run
    server = subprocess.Popen(
        [sys.executable, "-m", "verstehen.testing.stub_server", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, server, timeout=15)
        with tempfile.TemporaryDirectory() as tmp:
            run(bare_pass(url, prompts[:200], c))  # warm-up: imports, first connections
            run(runner_pass(url, prompts[:200], c, Path(tmp, "warm.sqlite")))
            bare, ours = [], []
            for i in range(args.repeats):  # alternate, flipping the order each time
                fresh = Path(tmp, f"r{i}.sqlite")
                jobs = [(bare, bare_pass(url, prompts, c)),
                        (ours, runner_pass(url, prompts, c, fresh))]
                for out, job in jobs[:: 1 if i % 2 == 0 else -1]:
                    out.append(run(job))
            full = Path(tmp, f"r{args.repeats - 1}.sqlite")
            replay = [run(runner_pass(url, prompts, c, full, expect_hits=True))
                      for _ in range(args.repeats)]
            rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            tracemalloc.start()
            run(runner_pass(url, prompts, c, Path(tmp, "traced.sqlite")))
            traced_mib = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
    finally:
        server.terminate()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
    med = statistics.median
    ratio = med(r[0] for r in ours) / med(r[0] for r in bare)
    cpu_bare, cpu_ours = med(r[1] for r in bare), med(r[1] for r in ours)
    rate = n / med(r[0] for r in replay)

    def row(name: str, value: str, target: str = "", ok: bool | None = None) -> None:
        mark = "" if ok is None else ("PASS" if ok else "MISS")
        print(f"  {name:<36}{value:>18}  {target:<10}{mark}")

    def times(runs: list[tuple[float, float]]) -> str:
        return f"{min(r[0] for r in runs):.3f} / {med(r[0] for r in runs):.3f} s"

    print(f"engine overhead: {n} requests, concurrency {c}, {args.repeats} alternating "
          f"repetitions, python {sys.version.split()[0]}, openai {openai.__version__}")
    print(f"  {'figure':<36}{'value':>18}  {'target':<10}result")
    row("bare openai wall, best / median", times(bare))
    row("verstehen wall, best / median", times(ours))
    row("ratio verstehen/bare (median wall)", f"{ratio:.3f}", "<= 1.10", ratio <= 1.10)
    row("client CPU median, bare / verstehen", f"{cpu_bare:.2f} / {cpu_ours:.2f} s")
    row("ratio of client CPU (info)", f"{cpu_ours / cpu_bare:.3f}")
    row("cache replay wall, best / median", times(replay))
    row("cache replay rate (median)", f"{rate:,.0f} calls/s", ">= 5,000", rate >= 5000)
    row("peak RSS (ru_maxrss, timed runs)", f"{rss_mib:.1f} MiB")
    row("tracemalloc peak, verstehen pass", f"{traced_mib:.1f} MiB")
    print("  wall per run: bare " + " ".join(f"{r[0]:.3f}" for r in bare)
          + " | verstehen " + " ".join(f"{r[0]:.3f}" for r in ours))


if __name__ == "__main__":
    main()
