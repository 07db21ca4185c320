"""Engine overhead: verstehen's Runner against a bare openai client, on a local stub server.

Starts `python -m verstehen.testing.stub_server` (it answers at once) on a free port and, in
the same run, measures the wall time of N distinct chat requests at concurrency C:
  bare      openai.AsyncOpenAI + asyncio.Semaphore(C) + asyncio.gather (the reference)
  verstehen Runner(Cache(fresh file), max_connections=C).generate, all misses
Both sides send the same parameters; the repetitions alternate, each verstehen one on a new
empty cache, and the ratio uses the medians. Then it replays the requests through a new
Runner on the full cache (all hits) and reports peak memory: ru_maxrss, and the tracemalloc
peak of one extra, untimed verstehen pass. Only the gather is timed, not client setup.

Run: python bench/engine_overhead.py [--requests 2000] [--concurrency 64] [--repeats 3]
Exits 0 whatever the figures; the table says PASS or MISS against each target.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import socket
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

PARAMS = GenerateParams(max_tokens=16)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, proc: subprocess.Popen, timeout: float = 15.0) -> None:
    """Block until the server accepts connections, or fail if it died or timed out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"stub server exited with code {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"stub server did not listen on port {port} within {timeout}s")


async def bare_pass(url: str, prompts: list[str], concurrency: int) -> float:
    """Seconds for the prompts through a bare AsyncOpenAI client under a semaphore."""
    client = openai.AsyncOpenAI(base_url=url, api_key="x", max_retries=0)
    limit = asyncio.Semaphore(concurrency)

    async def one(prompt: str) -> str:
        async with limit:
            out = await client.chat.completions.create(
                model="stub", messages=user(prompt), temperature=PARAMS.temperature,
                max_tokens=PARAMS.max_tokens, seed=PARAMS.seed)
            return out.choices[0].message.content or ""

    start = time.perf_counter()
    texts = await asyncio.gather(*(one(p) for p in prompts))
    elapsed = time.perf_counter() - start
    await client.close()
    assert len(texts) == len(prompts)
    return elapsed


async def runner_pass(url: str, prompts: list[str], concurrency: int, cache_path: Path,
                      expect_hits: bool = False) -> float:
    """Seconds for the prompts through Runner.generate on the given cache file."""
    model = get_model("openai/stub", base_url=url)
    cache = Cache(cache_path)
    runner = Runner(cache, max_connections=concurrency)
    start = time.perf_counter()
    results = await asyncio.gather(*(runner.generate(model, user(p), PARAMS) for p in prompts))
    elapsed = time.perf_counter() - start
    await model.aclose()
    cache.close()
    bad = [r.error for r in results if not r.ok]
    assert not bad, f"{len(bad)} failed calls, first: {bad[0]}"
    hits = runner.usage[model.name].cache_hits
    want = len(prompts) if expect_hits else 0
    assert hits == want, f"{hits} cache hits, expected {want}"
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
    url = f"http://127.0.0.1:{port}/v1"
    server = subprocess.Popen(
        [sys.executable, "-m", "verstehen.testing.stub_server", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(port, server)
        with tempfile.TemporaryDirectory() as tmp:
            run = asyncio.run
            run(bare_pass(url, prompts[:200], c))  # warm-up: imports, first connections
            run(runner_pass(url, prompts[:200], c, Path(tmp, "warm.sqlite")))
            bare, ours = [], []
            for i in range(args.repeats):
                bare.append(run(bare_pass(url, prompts, c)))
                ours.append(run(runner_pass(url, prompts, c, Path(tmp, f"r{i}.sqlite"))))
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
            server.wait()
    ratio = statistics.median(ours) / statistics.median(bare)
    rate = n / statistics.median(replay)

    def row(name: str, value: str, target: str, ok: bool | None) -> None:
        mark = "" if ok is None else ("PASS" if ok else "MISS")
        print(f"  {name:<34}{value:>16}  {target:<10}{mark}")

    def times(xs: list[float]) -> str:
        return f"{min(xs):.3f}/{statistics.median(xs):.3f} s"

    print(f"engine overhead: {n} requests, concurrency {c}, {args.repeats} alternating "
          f"repetitions, python {sys.version.split()[0]}, openai {openai.__version__}")
    print(f"  {'figure':<34}{'value':>16}  {'target':<10}result")
    row("bare openai, best/median", times(bare), "", None)
    row("verstehen Runner, best/median", times(ours), "", None)
    row("ratio verstehen/bare (medians)", f"{ratio:.3f}", "<= 1.10", ratio <= 1.10)
    row("cache replay, best/median", times(replay), "", None)
    row("cache replay rate (median)", f"{rate:,.0f} calls/s", ">= 5,000", rate >= 5000)
    row("peak RSS (ru_maxrss, timed runs)", f"{rss_mib:.1f} MiB", "", None)
    row("tracemalloc peak, verstehen pass", f"{traced_mib:.1f} MiB", "", None)
    print("  per-run seconds: bare " + " ".join(f"{x:.3f}" for x in bare)
          + " | verstehen " + " ".join(f"{x:.3f}" for x in ours))


if __name__ == "__main__":
    main()
