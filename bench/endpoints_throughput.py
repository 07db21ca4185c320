"""One model on 4 endpoints: verstehen's runner against the bare openai SDK spreading by hand.

Starts 4 `python -m verstehen.testing.stub_server` processes (they answer at once) on free
ports, then times N distinct chat requests, the gather only: a bare AsyncOpenAI client per
endpoint, each call sent to the endpoint with the fewest calls in flight under a total of
L x 4 (the reference), against `Runner(Cache(new empty file)).generate` on
`get_model("openai/stub", base_url=[4 URLs], endpoint_limit=L)` (all misses, every result
committed to the cache), same parameters, alternating repetitions, each pass after a
gc.collect(). Twice: with the heap as a Python program leaves it, then with the import-time
objects frozen (gc.freeze), as the `verstehen` command does before it runs a command: the
collector's full passes over those ~100k objects were a third of the runner's overhead. Prints,
for each, calls/s of both, the ratio of median walls (target <= 1.10) and the runner's overhead
per call (wall and client CPU); then the part of it that routing over the endpoints and counting
them costs (measured alone) and each endpoint's calls and peak in flight (the limit full: L on
every endpoint). Run it on an otherwise idle machine; exits 0 either way.

Run: python bench/endpoints_throughput.py [--requests 4000] [--limit 16] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import openai

from verstehen.engine.cache import Cache
from verstehen.engine.runner import Runner
from verstehen.models import GenerateParams, get_model, user
from verstehen.models.base import EndpointUsage
from verstehen.models.endpoints import EndpointPool
from verstehen.testing.ports import free_port, wait_for_port

PARAMS = GenerateParams(max_tokens=16)
ENDPOINTS = 4


async def bare_pass(urls: list[str], prompts: list[str], limit: int
                    ) -> tuple[float, float, list[int]]:
    """Wall and client-CPU seconds, and calls per endpoint, of the bare SDK spreading by hand."""
    clients = [openai.AsyncOpenAI(base_url=url, api_key="x", max_retries=0) for url in urls]
    outstanding, sent = [0] * len(urls), [0] * len(urls)
    total = asyncio.Semaphore(limit * len(urls))

    async def one(prompt: str) -> str:
        async with total:
            i = min(range(len(urls)), key=outstanding.__getitem__)
            outstanding[i] += 1
            sent[i] += 1
            try:
                out = await clients[i].chat.completions.create(
                    model="stub", messages=user(prompt), temperature=PARAMS.temperature,
                    max_tokens=PARAMS.max_tokens, seed=PARAMS.seed)
            finally:
                outstanding[i] -= 1
            return out.choices[0].message.content or ""

    start, cpu = time.perf_counter(), time.process_time()
    texts = await asyncio.gather(*(one(p) for p in prompts))
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    for client in clients:
        await client.close()
    assert all(texts), "empty answer"
    return wall, used, sent


async def runner_pass(urls: list[str], prompts: list[str], limit: int, cache_path: Path
                      ) -> tuple[float, float, tuple[EndpointUsage, ...]]:
    """Wall and client-CPU seconds, and the endpoints' counts, through the runner."""
    model = get_model("openai/stub", base_url=urls, endpoint_limit=limit)
    cache = Cache(cache_path)
    runner = Runner(cache, max_connections=limit)
    start, cpu = time.perf_counter(), time.process_time()
    results = await asyncio.gather(*(runner.generate(model, user(p), PARAMS) for p in prompts))
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    endpoints = model.endpoint_usage()  # type: ignore[attr-defined]
    await model.aclose()
    cache.close()
    bad = [r.error for r in results if not r.ok]
    assert not bad, f"{len(bad)} failed calls, first: {bad[0]}"
    return wall, used, endpoints


async def pool_cost(calls: int = 100_000) -> float:
    """Microseconds per call that routing through a 4-endpoint pool and copying its counts (as
    the runner does after each paid call) add to an instant coroutine."""
    pool = EndpointPool([(f"http://e{i}/v1", i) for i in range(ENDPOINTS)], 16)

    async def instant(endpoint: object) -> int:
        return 1

    start = time.perf_counter()
    for _ in range(calls):
        await instant(None)
    bare = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(calls):
        await pool.call(instant)
        pool.usage()
    return (time.perf_counter() - start - bare) / calls * 1e6


def start_stubs() -> tuple[list[str], list[subprocess.Popen]]:
    """Four instant stub servers; their URLs and processes."""
    ports = [free_port() for _ in range(ENDPOINTS)]
    procs = [subprocess.Popen([sys.executable, "-m", "verstehen.testing.stub_server",
                               "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for port in ports]
    for port, proc in zip(ports, procs, strict=True):
        wait_for_port(port, proc, timeout=15)
    return [f"http://127.0.0.1:{port}/v1" for port in ports], procs


Bare = tuple[float, float, list[int]]
Ours = tuple[float, float, tuple[EndpointUsage, ...]]


def alternate(urls: list[str], prompts: list[str], limit: int, repeats: int, folder: Path,
              tag: str) -> tuple[list[Bare], list[Ours]]:
    """`repeats` passes of each, alternating and flipping the order each time."""
    bare: list[Bare] = []
    ours: list[Ours] = []
    for i in range(repeats):
        for which in ("bare", "ours") if i % 2 == 0 else ("ours", "bare"):
            if which == "bare":
                bare.append(run(bare_pass(urls, prompts, limit)))
            else:
                ours.append(run(runner_pass(urls, prompts, limit,
                                            Path(folder, f"{tag}{i}.sqlite"))))
    return bare, ours


def run(coro: Any) -> Any:
    """asyncio.run, after collecting what the pass before left."""
    gc.collect()
    return asyncio.run(coro)


def row(name: str, value: str, target: str = "", ok: bool | None = None) -> None:
    """One line of the table."""
    mark = "" if ok is None else ("PASS" if ok else "MISS")
    print(f"  {name:<40}{value:>22}  {target:<10}{mark}")


def report(title: str, n: int, bare: list[Bare], ours: list[Ours]) -> None:
    """The throughput rows of one heap condition."""
    med = statistics.median
    wall_bare, wall_ours = med(r[0] for r in bare), med(r[0] for r in ours)
    cpu_bare, cpu_ours = med(r[1] for r in bare), med(r[1] for r in ours)
    ratio = wall_ours / wall_bare
    print(f"  {title}")
    row("bare SDK by hand, calls/s (median)", f"{n / wall_bare:,.0f}")
    row("verstehen runner, calls/s (median)", f"{n / wall_ours:,.0f}")
    row("ratio runner/bare (median wall)", f"{ratio:.3f}", "<= 1.10", ratio <= 1.10)
    row("runner overhead per call, wall", f"{(wall_ours - wall_bare) / n * 1e6:,.0f} us")
    row("client CPU per call, bare / runner",
        f"{cpu_bare / n * 1e6:,.0f} / {cpu_ours / n * 1e6:,.0f} us")
    row("runner overhead per call, client CPU", f"{(cpu_ours - cpu_bare) / n * 1e6:,.0f} us")
    print("    wall per run: bare " + " ".join(f"{r[0]:.3f}" for r in bare)
          + " | runner " + " ".join(f"{r[0]:.3f}" for r in ours))


def main() -> None:
    """Parse flags, start the stubs, run the passes and print the table."""
    ap = argparse.ArgumentParser(description="one model on 4 endpoints: runner vs bare SDK")
    ap.add_argument("--requests", type=int, default=4000)
    ap.add_argument("--limit", type=int, default=16, help="calls in flight per endpoint")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    n, limit = args.requests, args.limit
    prompts = [f"question {i}" for i in range(n)]
    urls, procs = start_stubs()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            run(bare_pass(urls, prompts[:200], limit))  # warm-up: imports, first connections
            run(runner_pass(urls, prompts[:200], limit, Path(tmp, "warm.sqlite")))
            loose = alternate(urls, prompts, limit, args.repeats, Path(tmp), "loose")
            gc.collect()
            gc.freeze()  # what `verstehen` does before a command (cli/main.py)
            frozen = alternate(urls, prompts, limit, args.repeats, Path(tmp), "frozen")
            gc.unfreeze()
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()

    print(f"endpoints throughput: {n} requests over {ENDPOINTS} instant stub endpoints, "
          f"{limit} in flight per endpoint, {args.repeats} alternating repetitions a heap, "
          f"python {sys.version.split()[0]}, openai {openai.__version__}")
    print(f"  {'figure':<40}{'value':>22}  {'target':<10}result")
    report("heap frozen after imports, as the verstehen command runs (gc.freeze):", n, *frozen)
    report("heap not frozen (a Python program that never calls gc.freeze):", n, *loose)
    print("  both heaps:")
    row("of which endpoint routing + counts", f"{run(pool_cost()):,.1f} us")
    last = frozen[1][-1][2]
    full = all(e.peak_outstanding == limit for e in last)
    row("peak in flight per endpoint (runner)",
        " ".join(str(e.peak_outstanding) for e in last), f"= {limit} each", full)
    row("calls per endpoint, runner", " ".join(str(e.calls) for e in last))
    row("calls per endpoint, bare", " ".join(str(c) for c in frozen[0][-1][2]))


if __name__ == "__main__":
    main()
