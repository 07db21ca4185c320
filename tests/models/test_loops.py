"""A reply that loops ends at the loop: the detector on token sequences built by hand, and the
in-process model ending a real generation when it fires."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from verstehen.engine.cache import Cache
from verstehen.engine.runner import Runner
from verstehen.models import GenerateParams, get_model, loops, user
from verstehen.models.loops import LoopStop, loops_at_end
from verstehen.testing.scripted import ScriptedModel

SENTENCE = list(range(100, 120))  # a 20-token sentence


def test_a_sentence_repeated_past_the_span_is_a_loop() -> None:
    # period 20: ceil(128 / 20) = 7 copies are needed (140 tokens); 6 are not enough
    opening = [1, 2, 3]
    assert loops_at_end(opening + SENTENCE * 7)
    assert not loops_at_end(opening + SENTENCE * 6)
    assert not loops_at_end(opening + SENTENCE * 7 + [5])  # it went on to something new
    # period 1: 128 copies of one token
    assert loops_at_end([9] + [7] * 128) and not loops_at_end([9] + [7] * 127)
    # period 40: the minimum of 4 copies (160 tokens) decides, not the span
    long = list(range(200, 240))
    assert loops_at_end(long * 4) and not loops_at_end(long[5:] + long * 3)


def test_short_repeats_and_near_repeats_are_not_loops() -> None:
    # a 4x4 matrix of equal cells: 16 copies of a 6-token cell, 96 tokens, under the span
    assert not loops_at_end([50] + [1, 2, 3, 4, 2, 5] * 16)
    # a refrain: the same line 3 times, then other text
    assert not loops_at_end(SENTENCE * 3 + list(range(300, 360)))
    # copies that differ in one token are not a loop
    varied = [[*SENTENCE[:-1], i] for i in range(8)]
    assert not loops_at_end([t for s in varied for t in s])
    assert not loops_at_end([])


def test_the_processor_forces_the_end_token_from_the_loop_on() -> None:
    stop = LoopStop(end_token=2)
    prompt = np.arange(10)
    scores = np.zeros(8, dtype=np.float32)
    assert (stop(prompt, scores.copy()) == 0).all() and stop.prompt_length == 10
    # the prompt itself repeating is not the reply looping
    assert not stop.fired
    looping = np.concatenate([prompt, np.array(SENTENCE * 7)])
    out = stop(looping, np.zeros(300, dtype=np.float32))
    assert stop.fired and out[2] == 0 and np.isneginf(np.delete(out, 2)).all()


def test_the_rule_is_part_of_the_local_models_cache_key(tmp_path) -> None:
    """The generation rule goes into the key of generate calls only (likelihoods do not loop)."""
    plain = ScriptedModel("scripted/m")
    ruled = ScriptedModel("scripted/m")
    ruled.capabilities = type(plain.capabilities)(generate=True, logprobs=True,
                                                 generation=loops.LOOP_RULE)
    runner = Runner(Cache(tmp_path / "calls.sqlite"))

    async def both() -> tuple[bool, bool, bool]:
        first = await runner.generate(plain, user("hi"))
        second = await runner.generate(ruled, user("hi"))
        await runner.logprobs(plain, "a", [" b"])
        third = await runner.logprobs(ruled, "a", [" b"])
        return first.cached, second.cached, third.cached

    assert asyncio.run(both()) == (False, False, True)
    assert len(plain.calls) + len(ruled.calls) == 3


@pytest.mark.slow
@pytest.mark.parametrize("batched", [True, False])
def test_the_embedded_model_ends_its_reply_when_the_detector_fires(monkeypatch,
                                                                   batched: bool) -> None:
    """With a detector that fires once the reply has 5 tokens, the reply ends there, batched
    or one at a time (llama.cpp's own sampling): the end token is the only choice (the model's
    words do not matter)."""
    monkeypatch.setattr(loops, "loops_at_end", lambda tokens: len(tokens) >= 5)
    model = get_model("local/smollm2-135m", batched=batched)
    try:
        out = asyncio.run(model.generate(user("Tell me a long story about a dragon."),
                                         GenerateParams(max_tokens=200)))
    finally:
        asyncio.run(model.aclose())
    assert out.finish_reason == "loop"
    assert 5 <= out.usage.completion_tokens <= 6 and out.text.strip()
