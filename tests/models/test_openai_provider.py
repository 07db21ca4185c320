"""The OpenAI provider against a real llama.cpp server, a stub behind a fault proxy, and echoes."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from collections import Counter

import pytest

from verstehen.engine.cache import Cache
from verstehen.engine.runner import RetryPolicy, Runner
from verstehen.engine.store import RunStore
from verstehen.errors import CallFailed
from verstehen.models import GenerateParams, get_model, user
from verstehen.models.local_scoring import score_continuations
from verstehen.models.openai_api import OpenAIModel, continuation_logprob

from fault_proxy import FAULTS, FaultProxy

CONTEXT = "<|im_start|>The capital of France is"  # BOS first: llama.cpp aligns only then


@pytest.mark.slow
def test_generate_is_counted_and_cached(llama_server, tmp_path):
    """Two fresh caches both reach the server; a repeat through a filled cache never does.

    Greedy text is not compared across the two server calls: llama.cpp's server reuses its
    prompt KV cache for the second, and the different batch shapes can flip a near-tie.
    """
    messages, params = user("Name one primary color."), GenerateParams(max_tokens=12)

    async def main(proxy: FaultProxy) -> tuple:
        model = OpenAIModel("smollm2", base_url=proxy.url, timeout=60)
        first = await Runner(Cache(tmp_path / "a.sqlite")).generate(model, messages, params)
        fresh = await Runner(Cache(tmp_path / "b.sqlite")).generate(model, messages, params)
        sent = proxy.forwarded
        again_runner = Runner(Cache(tmp_path / "a.sqlite"))
        again = await again_runner.generate(model, messages, params)
        await model.aclose()
        return first, fresh, again, sent, again_runner.usage[model.name]

    with FaultProxy(llama_server.port) as proxy:
        first, fresh, again, sent, usage = asyncio.run(main(proxy))
        assert (sent, proxy.forwarded) == (2, 2)  # the cache hit sent nothing
    assert first.ok and fresh.ok and not first.cached and not fresh.cached
    assert first.value.text.strip() and fresh.value.text.strip()
    assert first.value.usage.prompt_tokens > 0 and first.value.usage.completion_tokens > 0
    assert again.cached and again.value == first.value
    assert (usage.cache_hits, usage.new_prompt_tokens, usage.new_completion_tokens) == (1, 0, 0)


@pytest.mark.slow
def test_server_logprobs_match_the_local_provider(llama_server):
    """Scores echoed by the server equal the in-process ones on the file as shipped (different
    code, same weights; the provider itself scores on an f32 copy, tested in test_local_model)."""
    continuations = [" Paris", " Berlin", " a city in Europe"]

    async def remote_scores() -> list[float]:
        model = OpenAIModel("smollm2", base_url=llama_server.url, timeout=60)
        try:
            return await model.logprobs(CONTEXT, continuations)
        finally:
            await model.aclose()

    remote = asyncio.run(remote_scores())
    local_model = get_model("local/smollm2-135m")
    try:
        local = score_continuations(local_model._model(), CONTEXT, continuations)
    finally:
        asyncio.run(local_model.aclose())
    assert remote == pytest.approx(local, abs=0.05)
    assert remote[0] > remote[1] and all(v < 0 for v in remote)


PROMPT = "The capital of France is Paris"
TOKENS = ["The", " capital", " of", " France", " is", " Paris"]
VALUES = [None, -3.0, -1.0, -2.0, -0.5, -0.25]
ECHO, ECHO_VALUES = [*TOKENS, "."], [*VALUES, -0.75]  # with one generated token


@pytest.mark.parametrize(("tokens", "values", "prompt", "chars", "expected"), [
    (ECHO, ECHO_VALUES, PROMPT, 6, -0.25),  # vLLM: all tokens + one generated
    (ECHO, ECHO_VALUES, PROMPT, 9, -0.75),  # two tokens: " is" + " Paris"
    (ECHO, ECHO_VALUES, "<|im_start|>" + PROMPT, 6, -0.25),  # llama.cpp, no BOS
    (TOKENS, VALUES, "<|im_start|>" + PROMPT, 27, -6.75),  # no generated token echoed
])
def test_continuation_logprob_finds_the_continuation(tokens, values, prompt, chars, expected):
    """The continuation's tokens are found whatever the server adds or leaves out."""
    assert continuation_logprob(tokens, values, prompt, chars) == pytest.approx(expected)


@pytest.mark.parametrize(("tokens", "values", "chars", "message"), [
    (TOKENS, VALUES, 4, "spans"),  # "aris": the boundary falls inside " Paris"
    (TOKENS, [*VALUES[:5], None], 6, "no log-probability"),
    (TOKENS, VALUES, len(PROMPT), "no log-probability"),  # the first token has no score
    (["Hello", "."], [None, -1.0], 6, "echoed less"),  # an echo of some other prompt
])
def test_continuation_logprob_refuses_inexact_echoes(tokens, values, chars, message):
    """A split token, a missing score or a foreign echo raise CallFailed, never a guess."""
    with pytest.raises(CallFailed, match=message):
        continuation_logprob(tokens, values, PROMPT, chars)


def test_continuation_logprob_skips_an_echoed_bos():
    """vLLM echoes the BOS its tokenizer added (Llama, Mistral): the prompt text lacks it."""
    tokens, values = ["<|begin_of_text|>", *ECHO], [None, -9.0, *ECHO_VALUES[1:]]
    assert continuation_logprob(tokens, values, PROMPT, 6) == -0.25


def test_faults_are_retried_and_each_answer_recorded_once(stub_server, cache_path, tmp_path):
    """429, 500, dropped and timed-out requests all end in one right, cached, recorded answer."""
    stub = stub_server()
    prompts = [f"question {i}" for i in range(20)]
    script = {prompts[0]: ["429"], prompts[1]: ["500"], prompts[2]: ["drop"],
              prompts[3]: ["delay"], prompts[4]: ["500", "drop", "429"]}
    store = RunStore.create(tmp_path / "runs", command="test", argv=[], config={}, seed=0,
                            models=[])
    runner = Runner(Cache(cache_path), max_connections=4,
                    retry=RetryPolicy(max_attempts=6, base_delay=0.05, max_delay=0.5))
    elapsed: dict[str, float] = {}

    async def ask(model: OpenAIModel, prompt: str):
        start = time.monotonic()
        result = await runner.generate(model, user(prompt))
        elapsed[prompt] = time.monotonic() - start
        store.append({"id": prompt, "ok": result.ok, "text": result.ok and result.value.text})
        return result

    async def main(url: str) -> list:
        model = OpenAIModel("stub", base_url=url, timeout=1.0)
        try:
            return await asyncio.gather(*(ask(model, p) for p in prompts))
        finally:
            await model.aclose()

    with FaultProxy(stub.port, by_prompt=script, by_seq={6: "drop", 11: "500"}) as proxy:
        results = asyncio.run(main(proxy.url))
    with urllib.request.urlopen(f"http://127.0.0.1:{stub.port}/stats") as answer:
        served = json.load(answer)["chat"]

    assert [r.value.text for r in results if r.ok] == [f"echo: {p}" for p in prompts]
    assert set(proxy.injected) == set(FAULTS) and proxy.injected.total() >= 7
    assert runner.progress.retries == proxy.injected.total()
    assert sum(r.attempts - 1 for r in results) == proxy.injected.total()
    assert results[4].attempts >= 4 and not any(r.cached for r in results)
    assert served == proxy.forwarded == 20  # no answer was fetched twice
    assert runner.cache.stats()["entries"] == 20
    assert elapsed[prompts[0]] >= 1.0 > elapsed[prompts[1]]  # Retry-After: 1 was waited out
    assert 1.0 <= elapsed[prompts[3]] < proxy.delay  # the client's timeout ended the wait
    records = list(store.records())
    assert Counter(r["id"] for r in records) == Counter(prompts)
    assert all(r["ok"] and r["text"] == f"echo: {r['id']}" for r in records)
