"""Batched generation on the embedded model, for real: a reply is the same alone, in a batch of
any size and in any order (token for token), sampled replies follow their own seed, and each
call ends on its own terms (stop string, budget, an error, a cancellation)."""

from __future__ import annotations

import asyncio

import pytest

from verstehen.auditing.plan import make_plan
from verstehen.engine.session import RunSettings, Session
from verstehen.errors import CallFailed
from verstehen.methods.certification.run import build_scopes
from verstehen.methods.certification.scopes.draw import question_at
from verstehen.models import GenerateParams, Message, user
from verstehen.models.local import LocalModel
from verstehen.models.loops import LOOP_RULE

pytestmark = pytest.mark.slow

TOKENS = 48  # per reply: enough to cross several decode steps, short enough for the suite


def audit_prompts(per_scope: int = 1) -> list[list[Message]]:
    """The default audit's first certification questions, one scope after another."""
    plan = make_plan()
    scopes = build_scopes([t.scope for t in plan.targets])
    return [user(question_at(scope, plan.seed, i, None).prompt)
            for scope in scopes for i in range(per_scope)]


async def replies(model: LocalModel, prompts: list[list[Message]],
                  params: list[GenerateParams]) -> list[tuple[str, str | None, int, int]]:
    """Every prompt's reply, asked all at once; text, finish reason and token counts."""
    done = await asyncio.gather(*(model.generate(m, p) for m, p in zip(prompts, params,
                                                                       strict=True)))
    return [(c.text, c.finish_reason, c.usage.prompt_tokens, c.usage.completion_tokens)
            for c in done]


async def one_at_a_time(model: LocalModel, prompts: list[list[Message]],
                        params: list[GenerateParams]) -> list[tuple[str, str | None, int, int]]:
    """The same, each reply asked after the last one came back."""
    out = []
    for m, p in zip(prompts, params, strict=True):
        out += await replies(model, [m], [p])
    return out


@pytest.fixture(scope="module")
def prompts() -> list[list[Message]]:
    """Nine audit questions and two short chats (a shared chat template, different lengths)."""
    return [*audit_prompts(), user("Name a prime number."), user("Write one line about rain.")]


def test_batched_greedy_replies_equal_one_at_a_time(prompts):
    """Documented bound: no greedy reply differs, token for token, between one-at-a-time
    decoding and batches of 4 or 16 in either order (continuous batching: with 4 slots the
    later prompts join as earlier replies end)."""
    params = [GenerateParams(max_tokens=TOKENS)] * len(prompts)

    async def go() -> tuple[list, list, list]:
        alone_model = LocalModel("smollm2-135m", sequences=1)
        small = LocalModel("smollm2-135m", sequences=4)
        wide = LocalModel("smollm2-135m", sequences=16)
        try:
            alone = await one_at_a_time(alone_model, prompts, params)
            four = await replies(small, prompts, params)
            backwards = await replies(wide, prompts[::-1], params)
            return alone, four, backwards[::-1]
        finally:
            for m in (alone_model, small, wide):
                await m.aclose()

    alone, four, sixteen = asyncio.run(go())
    assert four == alone
    assert sixteen == alone
    assert all(tokens <= TOKENS for *_, tokens in alone)
    # the budget ends a reply exactly when it is reached
    assert all((finish == "length") == (tokens == TOKENS) for _, finish, _, tokens in alone)


def test_sampled_replies_follow_their_seed_not_the_batch(prompts):
    """At temperature > 0 a reply is drawn with its own seed: the same alone and among others."""
    chosen = prompts[:4]
    params = [GenerateParams(temperature=0.9, max_tokens=24, seed=seed) for seed in (1, 2, 3, 4)]

    async def go() -> tuple[list, list]:
        model = LocalModel("smollm2-135m", sequences=4)
        try:
            together = await replies(model, chosen, params)
            alone = await one_at_a_time(model, chosen, params)
            return together, alone
        finally:
            await model.aclose()

    together, alone = asyncio.run(go())
    assert together == alone


def test_a_stop_string_cuts_the_reply_where_it_first_occurs():
    """The stop string is chosen from the model's own unstopped reply, so the expected text is
    known whatever the model writes."""
    prompt = user("Count from one to twenty in words.")

    async def go() -> tuple[str, tuple[str, str | None]]:
        model = LocalModel("smollm2-135m", sequences=2)
        try:
            free = (await model.generate(prompt, GenerateParams(max_tokens=40))).text
            stop = free[len(free) // 2:len(free) // 2 + 3]
            cut = await model.generate(prompt, GenerateParams(max_tokens=40, stop=(stop,)))
            return free, (stop, cut.text, cut.finish_reason)
        finally:
            await model.aclose()

    free, (stop, text, finish) = asyncio.run(go())
    if len(free) < 6 or not stop.strip():
        pytest.skip("the model wrote too little to choose a stop string from")
    assert text == free[:free.find(stop)]
    assert finish == "stop"


def test_a_prompt_too_long_fails_alone_and_a_cancelled_call_leaves_the_rest():
    """A prompt past the context fails its own call; the others in the batch are answered, and a
    cancelled call is dropped from the batch while the others go on."""
    long_prompt = user("word " * 400)

    async def go() -> tuple[object, str, str]:
        model = LocalModel("smollm2-135m", n_ctx=256, sequences=3)
        try:
            results = await asyncio.gather(
                model.generate(long_prompt, GenerateParams(max_tokens=8)),
                model.generate(user("Say hi."), GenerateParams(max_tokens=8)),
                return_exceptions=True)
            doomed = asyncio.ensure_future(model.generate(user("Tell a long story."),
                                                          GenerateParams(max_tokens=200)))
            kept = asyncio.ensure_future(model.generate(user("Say hi."),
                                                        GenerateParams(max_tokens=8)))
            await asyncio.sleep(0.5)
            doomed.cancel()
            after = await kept
            return results[0], results[1].text, after.text
        finally:
            await model.aclose()

    failure, first, after = asyncio.run(go())
    assert isinstance(failure, CallFailed)
    assert "context of 256 tokens" in str(failure)
    assert first == after  # the same greedy call, alone or beside a failing one


def test_sessions_open_local_models_batched_except_for_one_reply():
    """--max-connections is the replies decoded together; `ask` (one reply) uses the file as
    shipped, under the cache identity it always had."""
    async def go() -> tuple[LocalModel, LocalModel]:
        runs = Session.start(RunSettings(max_connections=3))
        ask = Session.start(RunSettings(), batched=False)
        try:
            return runs.open_model("local/smollm2-135m"), ask.open_model("local/smollm2-135m")
        finally:
            await runs.close()
            await ask.close()

    batched, single = asyncio.run(go())
    assert batched.max_connections == 3 and batched.batched
    assert "bf16 weights" in batched.capabilities.generation
    assert not single.batched and single.max_connections == 1
    assert single.capabilities.generation == LOOP_RULE
