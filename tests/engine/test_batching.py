"""The runner's likelihood batches, with a scripted model that scores many requests at once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from verstehen.engine.cache import Cache
from verstehen.engine.runner import RetryPolicy, Runner
from verstehen.errors import TransientError, UserError
from verstehen.models.base import Capabilities
from verstehen.testing.scripted import ScriptedModel


class BatchModel(ScriptedModel):
    """Scores up to 8 requests per call; 'long' contexts fail alone, 'flaky' batches once."""

    capabilities = Capabilities(logprobs=True, logprobs_batch=8, scoring="test")
    max_connections = 1

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []
        self.flaky_left = 1

    async def logprobs_batch(self, requests: Sequence[tuple[str, Sequence[str]]]
                             ) -> list[list[float] | Exception]:
        """Minus each continuation's length plus the context's; errors as scripted."""
        self.batches.append([context for context, _ in requests])
        await asyncio.sleep(0)
        if any("flaky" in c for c, _ in requests) and self.flaky_left:
            self.flaky_left -= 1
            raise TransientError("server hiccup")
        return [UserError(f"{context} is too long") if "long" in context
                else [-float(len(c) + len(context)) for c in continuations]
                for context, continuations in requests]


def scores(runner: Runner, model: BatchModel, contexts: list[str]) -> list:
    """Every context's call made at once, as a procedure's gather makes them."""
    async def main():
        return await asyncio.gather(*(runner.logprobs(model, c, [" a", " bb"])
                                      for c in contexts), return_exceptions=True)
    return asyncio.run(main())


def test_calls_made_together_go_out_in_batches(cache_path):
    """20 concurrent calls reach the model as batches of at most 8 in call order, each caller
    gets its own scores, and a second run is served from the cache without a batch."""
    model, contexts = BatchModel(), [f"c{i:02d}" for i in range(20)]
    first = scores(Runner(Cache(cache_path)), model, contexts)
    assert [len(b) for b in model.batches] == [8, 8, 4]
    assert [c for b in model.batches for c in b] == contexts
    assert [r.value for r in first] == [[-(2 + len(c)), -(3 + len(c))] for c in contexts]
    again = scores(Runner(Cache(cache_path)), model, contexts)
    assert len(model.batches) == 3 and all(r.cached for r in again)
    assert [r.value for r in again] == [r.value for r in first]


def test_the_scoring_kind_is_part_of_the_key(cache_path):
    """A model that scores another way does not get these scores from the cache."""
    model = BatchModel()
    scores(Runner(Cache(cache_path)), model, ["c"])

    class Other(BatchModel):
        capabilities = Capabilities(logprobs=True, logprobs_batch=8, scoring="other")

    other = Other()
    (result,) = scores(Runner(Cache(cache_path)), other, ["c"])
    assert not result.cached and other.batches == [["c"]]


def test_an_error_in_its_place_fails_that_call_only(cache_path):
    """A request the model cannot score raises for its caller; the batch's others succeed."""
    model = BatchModel()
    out = scores(Runner(Cache(cache_path)), model, ["c1", "long one", "c2"])
    assert isinstance(out[1], UserError)
    assert out[0].ok and out[2].ok and len(model.batches) == 1


def test_a_failed_batch_is_retried(cache_path):
    """A transient fault of the whole batch makes each caller retry; all end with scores."""
    model = BatchModel()
    # no backoff: the three retries rejoin in one tick, so they make one batch again (with a
    # jittered delay, a retry could land after the batch had left: a third batch, 1 run in 10)
    runner = Runner(Cache(cache_path), retry=RetryPolicy(max_attempts=3, base_delay=0.0))
    out = scores(runner, model, ["flaky", "c1", "c2"])
    assert all(r.ok for r in out) and [r.attempts for r in out] == [2, 2, 2]
    assert len(model.batches) == 2
