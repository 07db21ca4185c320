"""Engine logic with a scripted model: cache keys, retries, usage, store, progress."""

from __future__ import annotations

import asyncio
import io
import json
import random
import sqlite3

import pytest

from verstehen.engine.cache import Cache, call_key
from verstehen.engine.progress import PlainProgress
from verstehen.engine.runner import RetryPolicy, Runner
from verstehen.engine.session import RunSettings, Session
from verstehen.engine.store import RunStore
from verstehen.errors import CallFailed, TransientError, UnsupportedCapability
from verstehen.models import GenerateParams, user
from verstehen.testing.scripted import ScriptedModel

FAST = RetryPolicy(max_attempts=4, base_delay=0.001, max_delay=0.01)


def run(coro):
    """Run a coroutine to completion."""
    return asyncio.run(coro)


def test_key_depends_on_every_part():
    """Changing the model, its weights, the kind or any parameter changes the key."""
    ident = {"provider": "local", "model": "m", "sha256": "aa"}
    request = {"messages": user("hi"), "params": GenerateParams().as_dict(), "sample": 0}
    base = call_key(ident, "generate", request)
    assert base == call_key(dict(ident), "generate", json.loads(json.dumps(request)))
    variants = [
        call_key({**ident, "sha256": "bb"}, "generate", request),
        call_key({**ident, "model": "n"}, "generate", request),
        call_key({**ident, "base_url": "http://x"}, "generate", request),
        call_key(ident, "logprobs", request),
        call_key(ident, "generate", {**request, "sample": 1}),
        call_key(ident, "generate", {**request, "messages": user("hi!")}),
    ]
    for field, value in [("temperature", 0.5), ("max_tokens", 9), ("seed", 1), ("stop", ["x"])]:
        params = {**request["params"], field: value}
        variants.append(call_key(ident, "generate", {**request, "params": params}))
    assert len({base, *variants}) == len(variants) + 1


def test_cache_is_wal_and_survives_reopening(cache_path):
    """Entries persist across connections; the file is in WAL mode."""
    cache = Cache(cache_path)
    cache.put("k", "m", "generate", {"text": "x"})
    cache.close()
    assert Cache(cache_path).get("k") == {"text": "x"}
    mode = sqlite3.connect(cache_path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_sample_index_matters_only_above_temperature_zero(cache_path):
    """Greedy calls share one entry across indices; sampled calls get one per index."""
    model, runner = ScriptedModel(), Runner(Cache(cache_path))
    greedy = [run(runner.generate(model, user("q"), sample_index=i)) for i in range(3)]
    assert [r.cached for r in greedy] == [False, True, True]
    hot = GenerateParams(temperature=0.8, seed=3)
    sampled = [run(runner.generate(model, user("q"), hot, sample_index=i)) for i in range(3)]
    assert [r.cached for r in sampled] == [False, False, False]
    assert len(set(model.seeds[1:])) == 3 and model.seeds[1] == 3


def test_transient_faults_are_retried_then_cached(cache_path):
    """Two 429s then success: one ok result, two retries counted, stored once."""
    def script(prompt, attempt):
        return TransientError("429", retry_after=0.0) if attempt <= 2 else None

    model, runner = ScriptedModel(script=script), Runner(Cache(cache_path), retry=FAST)
    result = run(runner.generate(model, user("q")))
    assert result.ok and result.attempts == 3 and runner.progress.retries == 2
    assert run(runner.generate(model, user("q"))).cached
    assert len(model.calls) == 3


def test_out_of_attempts_is_an_error_and_not_cached(cache_path):
    """A call that keeps failing ends with an error after max_attempts and is retried later."""
    model = ScriptedModel(script=lambda p, a: TransientError("503"))
    runner = Runner(Cache(cache_path), retry=FAST)
    result = run(runner.generate(model, user("q")))
    assert not result.ok and "4 attempts" in result.error and len(model.calls) == 4
    assert run(Runner(Cache(cache_path), retry=FAST).generate(model, user("q"))).cached is False


def test_permanent_failure_is_not_retried(cache_path):
    """CallFailed ends the call at once."""
    model = ScriptedModel(script=lambda p, a: CallFailed("HTTP 400: bad"))
    result = run(Runner(Cache(cache_path), retry=FAST).generate(model, user("q")))
    assert result.error == "HTTP 400: bad" and len(model.calls) == 1


def test_user_errors_propagate(cache_path):
    """A capability the model lacks is the user's to fix, not a counted failure."""
    model = ScriptedModel(script=lambda p, a: UnsupportedCapability("no logprobs"))
    with pytest.raises(UnsupportedCapability):
        run(Runner(Cache(cache_path)).generate(model, user("q")))


def test_retry_after_is_honoured_and_capped():
    """The wait is at least Retry-After, at most the cap; plain backoff stays in bounds."""
    policy, rng = RetryPolicy(base_delay=0.5, max_delay=4, max_retry_after=60), random.Random(1)
    assert policy.delay(1, 2.0, rng) >= 2.0
    assert policy.delay(1, 1e6, rng) == 60
    assert all(0 <= policy.delay(a, None, rng) <= min(4, 0.5 * 2 ** (a - 1))
               for a in range(1, 10))


def test_usage_separates_new_and_cached_tokens(cache_path):
    """Tokens of cache hits count in totals but not as newly paid."""
    model, runner = ScriptedModel(), Runner(Cache(cache_path))
    for _ in range(2):
        run(runner.generate(model, user("one two three")))
    usage = runner.usage["scripted/m"]
    assert usage.calls == 2 and usage.cache_hits == 1
    assert usage.prompt_tokens == 6 and usage.new_prompt_tokens == 3


class InFlight:
    """Counts calls inside `async with`, remembering the most at once."""

    def __init__(self) -> None:
        self.now = self.peak = 0

    async def __aenter__(self) -> None:
        self.now += 1
        self.peak = max(self.peak, self.now)

    async def __aexit__(self, *exc: object) -> None:
        self.now -= 1


def test_concurrency_limit_is_respected(cache_path):
    """No more than max_connections calls are in flight at once."""
    counter = InFlight()

    class Slow(ScriptedModel):
        async def generate(self, messages, params):
            async with counter:
                await asyncio.sleep(0.01)
            return await super().generate(messages, params)

    runner = Runner(Cache(cache_path), max_connections=3)

    async def many():
        await asyncio.gather(*(runner.generate(Slow(), user(f"q{i}")) for i in range(20)))

    run(many())
    assert counter.peak == 3


def test_store_drops_a_torn_line_and_keeps_secrets_out(tmp_path):
    """A half-written last record is dropped on reopening; keys never reach run.json."""
    store = RunStore.create(tmp_path, command="t", argv=["x"], seed=0, models=[],
                            config={"model": "m", "api_key": "sk-123", "auth_token": "t"})
    store.append({"id": 1})
    with store.records_path.open("a") as handle:
        handle.write('{"id": 2, "te')
    reopened = RunStore.open(store.path)
    assert list(reopened.records()) == [{"id": 1}]
    reopened.append({"id": 3})
    assert [r["id"] for r in reopened.records()] == [1, 3]
    info = reopened.info()
    assert "sk-123" not in json.dumps(info) and info["config"] == {"model": "m"}
    assert info["versions"]["verstehen"] != "not installed"


def test_plain_progress_prints_counts():
    """Plain progress lines carry done/total, cached, retries and errors."""
    stream = io.StringIO()
    progress = PlainProgress("job", stream=stream, every=0)
    progress.add_total(3)
    progress.advance(cached=True, error=False)
    progress.retry()
    progress.advance(cached=False, error=True)
    progress.close()
    last = stream.getvalue().splitlines()[-1]
    assert "2/3 done" in last and "1 cached" in last and "1 retry," in last
    assert "1 error," in last


def test_two_servers_of_one_model_name_get_a_limit_each(cache_path):
    """The limit follows the identity (base URL included), not the name.

    (Instances of one endpoint share a limit: test_concurrency_limit_is_respected.)
    """
    counter = InFlight()

    class Server(ScriptedModel):
        max_connections = 1

        def identity(self):
            return {**super().identity(), "base_url": f"http://{id(self)}"}

        async def generate(self, messages, params):
            async with counter:
                await asyncio.sleep(0.01)
            return await super().generate(messages, params)

    runner, first, second = Runner(Cache(cache_path)), Server(), Server()

    async def both():
        await asyncio.gather(*(runner.generate(m, user(f"q{i}"))
                               for i in range(5) for m in (first, second)))

    run(both())
    assert counter.peak == 2
    assert len(first.calls) == len(second.calls) == 5  # different base URLs: no shared cache



class SlowModel(ScriptedModel):
    """Takes a moment per call, so that two calls overlap."""

    async def generate(self, messages, params):
        """Wait, then reply as the script says."""
        await asyncio.sleep(0.02)
        return await super().generate(messages, params)


def test_identical_calls_in_flight_are_paid_once(cache_path):
    """Two identical requests at once: one provider call, the same answer, the second a hit."""
    model = SlowModel()

    async def both():
        runner = Runner(Cache(cache_path))
        first, second = await asyncio.gather(runner.generate(model, user("same")),
                                             runner.generate(model, user("same")))
        return runner, first, second

    runner, first, second = run(both())
    assert model.calls == ["same"]
    assert first.value.text == second.value.text == "answer to same"
    assert (first.cached, second.cached) == (False, True)
    assert runner.usage["scripted/m"].cache_hits == 1


def test_a_failed_call_in_flight_fails_its_twin_without_a_second_call(cache_path):
    """The waiting twin gets the first call's error; nothing is cached, so a later call retries."""
    model = SlowModel(script=lambda prompt, attempt: CallFailed("bad request"))

    async def both():
        runner = Runner(Cache(cache_path), retry=FAST)
        pair = await asyncio.gather(runner.generate(model, user("x")),
                                    runner.generate(model, user("x")))
        later = await runner.generate(model, user("x"))
        return pair, later

    (first, second), later = run(both())
    assert first.error == second.error == "bad request"
    assert model.calls == ["x", "x"]  # one for the overlapping pair, one for the later call
    assert later.error == "bad request"


def test_a_session_opens_each_model_once(cache_path):
    """Opening the same name (and base URL) again gives the instance already open."""
    session = Session.start(RunSettings(cache=cache_path))
    first = session.open_model("local/smollm2-135m")
    assert session.open_model("local/smollm2-135m") is first
    assert session.models == [first]
    run(session.close())
