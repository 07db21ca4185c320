"""How results reach the cache file: committed on the event loop that stored them, many to a
commit, each caller told once its row is in; the key recipe unchanged for files already made;
the stored values of the shapes their types declare."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from verstehen.engine.cache import Cache, call_key
from verstehen.engine.cache.values import (
    GenerationValue,
    LogprobsValue,
    UsageCounts,
    checked_logprobs,
    completion_value,
)
from verstehen.engine.runner import Runner
from verstehen.models import GenerateParams, user
from verstehen.models.base import Completion, Usage
from verstehen.testing.scripted import ScriptedModel


def committed(path: Path) -> dict[str, str]:
    """Every committed row's response, read with a connection of the test's own."""
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT key, response FROM calls"))
    finally:
        db.close()


def writer_threads() -> list[str]:
    """Names of the cache's writer threads alive now."""
    return [t.name for t in threading.enumerate() if t.name == "verstehen-cache-writer"]


def test_results_are_committed_from_the_loop_before_the_callers_see_them(cache_path):
    """200 calls at once: each result is in the file when its call returns (read by another
    connection before the cache is closed), and no writer thread was needed for it."""
    model = ScriptedModel()
    prompts = [f"q{i}" for i in range(200)]

    async def body() -> tuple[dict[str, str], list[str]]:
        cache = Cache(cache_path)
        runner = Runner(cache)
        results = await asyncio.gather(*(runner.generate(model, user(p)) for p in prompts))
        assert all(r.ok for r in results)
        seen, threads = committed(cache_path), writer_threads()
        await cache.aclose()
        return seen, threads

    seen, threads = asyncio.run(body())
    assert len(seen) == 200
    assert sorted(json.loads(text)["text"] for text in seen.values()) == sorted(
        f"answer to {p}" for p in prompts)
    assert threads == []  # a thread beside the loop traded the GIL with it on every commit


def test_two_stores_of_one_key_at_once_both_return_and_the_last_is_kept(cache_path):
    """Storing a key again before the first row is written: both callers are told it is in
    (before, the first one's wait was dropped and it waited for ever)."""
    async def body() -> list[bool]:
        cache = Cache(cache_path)
        try:
            return list(await asyncio.wait_for(asyncio.gather(
                cache.store("k", "m", "generate", {"text": "first"}),
                cache.store("k", "m", "generate", {"text": "second"})), timeout=10))
        finally:
            await cache.aclose()

    assert asyncio.run(body()) == [True, True]
    assert json.loads(committed(cache_path)["k"]) == {"text": "second"}


def test_a_cache_used_from_two_threads_writes_every_row(cache_path):
    """Two threads, each with its own event loop, store into one Cache: the second thread's
    rows go through the writer thread, and all of them are written."""
    cache = Cache(cache_path)

    def one_thread(tag: str) -> None:
        async def body() -> list[bool]:
            return list(await asyncio.gather(*(
                cache.store(f"{tag}{i}", "m", "generate", {"text": f"{tag}{i}"})
                for i in range(50))))
        assert all(asyncio.run(body()))

    threads = [threading.Thread(target=one_thread, args=(tag,)) for tag in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    cache.close()
    rows = committed(cache_path)
    assert sorted(rows) == sorted(f"{tag}{i}" for tag in ("a", "b") for i in range(50))


def test_the_key_recipe_is_the_documented_one():
    """SHA-256 of the canonical JSON (sorted keys, no spaces, UTF-8 as is) of model identity,
    kind and request: rows already in users' caches keep being found."""
    identity = {"provider": "openai", "model": "m", "base_url": "http://h/v1"}
    request = {"messages": user("Größe? ✓"), "params": GenerateParams().as_dict(), "sample": 0}
    canonical = json.dumps({"model": identity, "kind": "generate", "request": request},
                           sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert call_key(identity, "generate", request) == hashlib.sha256(
        canonical.encode("utf-8")).hexdigest()


def test_stored_values_hold_the_keys_their_types_declare():
    """`GenerationValue`, `UsageCounts` and `LogprobsValue` name every key a stored value
    holds, and no other: a value with reasoning and reasoning tokens holds all of them, one
    without holds all but those two (optional, so that older rows stay readable)."""
    full = completion_value(Completion("t", "stop", Usage(1, 2, 3), "why"))
    plain = completion_value(Completion("t", None, Usage(1, 2, 0), None))
    assert set(full) == set(GenerationValue.__annotations__)
    assert set(plain) == set(GenerationValue.__annotations__) - {"reasoning"}
    assert set(full["usage"]) == set(UsageCounts.__annotations__)
    assert set(plain["usage"]) == set(UsageCounts.__annotations__) - {"reasoning_tokens"}
    assert set(checked_logprobs({"logprobs": [-1.0]}, 1)) == set(LogprobsValue.__annotations__)
