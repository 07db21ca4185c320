"""Reasoning models as their APIs define them: OpenAI's o-series parameters (by name on
api.openai.com, learnt from a 400 on any server), a reasoning budget on top of the answer
budget, reasoning apart from the answer (vLLM's reasoning_content, Anthropic's thinking
blocks), reasoning tokens in usage, and cache keys that stay as they were without a budget.

The stubs (`verstehen.testing.reasoning_stubs`) answer as the documentation says; the expected
request bodies below are worked out from the rules (answer budget 256 by default, plus the
budget), not read from the provider.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from verstehen.engine.cache import Cache, call_key
from verstehen.engine.runner import RetryPolicy, Runner
from verstehen.engine.session import RunSettings, Session
from verstehen.engine.usage import ModelUsage
from verstehen.errors import UserError
from verstehen.models import GenerateParams, Usage, get_model, user
from verstehen.models.openai_api import OpenAIModel
from verstehen.models.refusals import refused_parameter
from verstehen.models.remote import DEFAULT_REASONING_BUDGET, reasoning_by_name
from verstehen.results import from_jsonable, to_jsonable
from verstehen.testing import reasoning_stubs as stubs
from verstehen.testing.stub_endpoints import StubEndpoints

ANSWER_BUDGET = GenerateParams().max_tokens  # 256


def run(coro: Any) -> Any:
    """Run a coroutine to its end."""
    return asyncio.run(coro)


async def ask(model: Any, runner: Runner, prompts: list[str],
              params: GenerateParams | None = None, *, in_turn: bool = False) -> list[Any]:
    """Each prompt through the runner, all at once (or one after another); the model is
    closed after."""
    try:
        if in_turn:
            return [await runner.generate(model, user(p), params) for p in prompts]
        return list(await asyncio.gather(*(runner.generate(model, user(p), params)
                                           for p in prompts)))
    finally:
        await model.aclose()


def runner_on(tmp_path: Path, name: str = "c.sqlite") -> Runner:
    """A runner on a cache file of its own, with no backoff."""
    return Runner(Cache(tmp_path / name), retry=RetryPolicy(base_delay=0.0))


# --- which models reason, and what a 400 says -------------------------------------------


@pytest.mark.parametrize(("name", "reasons"), [
    ("o1", True), ("o1-mini", True), ("o3-mini", True), ("o4-mini-2025-04-16", True),
    ("gpt-5", True), ("gpt-5-nano", True), ("gpt-5-chat-latest", False),
    ("gpt-5.1", False), ("gpt-5.2-2025-12-11", False), ("gpt-5.1-codex", True),
    ("gpt-5.2-pro", True), ("gpt-5.10", False),
    ("gpt-4o-mini", False), ("smollm2", False), ("Qwen3-8B", False),
])
def test_reasoning_models_by_name(name: str, reasons: bool) -> None:
    """OpenAI's o1, o3, o4 and gpt-5 families reason unless asked not to; gpt-5.1 and later
    (but their codex and pro models) reason only when asked; gpt-5-chat and others never."""
    assert reasoning_by_name(name) is reasons


def bad_request(body: dict[str, Any], status: int = 400) -> Any:
    """An object shaped as the openai SDK's APIStatusError for this error body."""
    error = body["error"]
    return SimpleNamespace(status_code=status, param=error.get("param"),
                           code=error.get("code"), message=error["message"])


def test_the_refusals_that_switch_to_reasoning_parameters() -> None:
    """OpenAI's two refusals (the stub holds their documented text) name the parameter; the
    message alone is enough; any other 400, or another status, is not one."""
    refused_cap = stubs.o_series_refusal({"max_tokens": 5})
    refused_temperature = stubs.o_series_refusal({"temperature": 0.0})
    assert refused_cap is not None and refused_temperature is not None
    chat = ("max_tokens", "temperature")
    assert refused_parameter(bad_request(refused_cap), chat) == "max_tokens"
    assert refused_parameter(bad_request(refused_temperature), chat) == "temperature"
    bare = {"error": {"message": refused_cap["error"]["message"]}}
    assert refused_parameter(bad_request(bare), chat) == "max_tokens"
    other = stubs.openai_error("Unsupported parameter: 'stop' is not supported with this "
                               "model.", "stop", "unsupported_parameter")
    assert refused_parameter(bad_request(other), chat) is None
    assert refused_parameter(bad_request(other), (*chat, "stop")) == "stop"
    assert refused_parameter(bad_request(refused_cap, status=404), chat) is None
    assert stubs.o_series_refusal({"temperature": 1, "max_completion_tokens": 9}) is None


# --- OpenAI reasoning models --------------------------------------------------------------


def test_a_reasoning_name_on_openai_sends_reasoning_parameters_from_the_first_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """openai/o3-mini on api.openai.com: max_completion_tokens = 256 + 25000, no temperature,
    no refusal ever; the identity names the budget; the fixed temperature is noted once."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-reasoning")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with StubEndpoints(1, route=stubs.o_series(reasoning_tokens=300)) as stub:
        model = OpenAIModel("o3-mini")
        assert model.identity() == {"provider": "openai", "model": "o3-mini",
                                    "base_url": "https://api.openai.com/v1",
                                    "reasoning_budget": "25000"}
        client = model._pool.endpoints[0].client  # the same requests, sent to the stub
        client.sdk = client.sdk.with_options(base_url=stub.urls[0])
        runner = runner_on(tmp_path)
        [result] = run(ask(model, runner, ["What is 2+2?"]))
    assert result.ok, result.error
    [body] = stub.bodies[0]
    assert body["max_completion_tokens"] == ANSWER_BUDGET + DEFAULT_REASONING_BUDGET
    assert "max_tokens" not in body and "temperature" not in body
    assert result.value.text == stubs.ANSWER and result.value.finish_reason == "stop"
    # 300 hidden reasoning tokens + the two words of the answer
    assert result.value.usage == Usage(prompt_tokens=3, completion_tokens=302,
                                       reasoning_tokens=300)
    assert capsys.readouterr().err.count("fixed at 1") == 1
    runner.count_endpoints()
    assert any("fixed at 1" in n for n in runner.usage["openai/o3-mini"].notes)


def test_a_server_refusing_max_tokens_switches_the_model_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """openai/o3-mini behind a custom URL: the first call sends max_tokens = 256 + 25000 and
    temperature 0, is refused, and is sent again at once with max_completion_tokens; later
    calls go straight there. The refused call is no failure and no second attempt. A new
    model object (a new run) learns it again."""
    with StubEndpoints(1, route=stubs.o_series()) as stub:
        model = OpenAIModel("o3-mini", base_url=stub.urls[0])
        runner = runner_on(tmp_path)
        first = run(ask(model, runner, ["first", "second", "third"], in_turn=True))
        again = OpenAIModel("o3-mini", base_url=stub.urls[0])
        later = run(ask(again, runner, ["fourth"]))
    assert all(r.ok and r.attempts == 1 for r in first + later)
    refused, *resent = stub.bodies[0][:4]
    cap = ANSWER_BUDGET + DEFAULT_REASONING_BUDGET
    assert (refused["max_tokens"], refused["temperature"]) == (cap, 0.0)
    assert [b["max_completion_tokens"] for b in resent] == [cap] * 3
    assert all("temperature" not in b and "max_tokens" not in b for b in resent)
    # one refusal per model life: 1 + 3 bodies for the first, 1 + 1 for the second
    assert len(stub.bodies[0]) == 6 and "max_tokens" in stub.bodies[0][4]
    assert runner.usage["openai/o3-mini"].errors == 0
    assert capsys.readouterr().err.count("refused `max_tokens` with HTTP 400") == 2


def test_calls_at_once_meet_the_refusal_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Eight calls at once: the first goes alone until it has ended, so max_tokens is refused
    once (1 + 8 bodies, not 8 + 8); the switch is said once; the other seven then go together
    (more than one in flight)."""
    with StubEndpoints(1, delay=0.05, route=stubs.o_series()) as stub:
        model = OpenAIModel("o4-mini", base_url=stub.urls[0])
        results = run(ask(model, runner_on(tmp_path), [f"q{i}" for i in range(8)]))
    assert all(r.ok and r.attempts == 1 for r in results)
    bodies = stub.bodies[0]
    refused = [b for b in bodies if "max_tokens" in b]
    assert len(refused) == 1 and len(bodies) == 9 and bodies[0] is refused[0]
    assert stub.peak[0] > 1
    assert capsys.readouterr().err.count("refused `max_tokens` with HTTP 400") == 1


def test_a_plain_name_learns_from_the_refusal_and_a_budget_leaves_it_room(
        tmp_path: Path) -> None:
    """A deployment name the rules do not know: no budget, so the identity is as before; each
    parameter is learnt from its own refusal (max_tokens, then temperature: 3 bodies a model),
    and the switched call asks 256 tokens in all; 300 of reasoning fill them: an empty reply
    cut by the cap (finish_reason "length"), not an error. With --reasoning-budget 1000 the cap
    is 1256 and the answer comes."""
    with StubEndpoints(1, route=stubs.o_series(reasoning_tokens=300)) as stub:
        url = stub.urls[0]
        plain = OpenAIModel("my-deployment", base_url=url)
        assert plain.identity() == {"provider": "openai", "model": "my-deployment",
                                    "base_url": url}
        [cut] = run(ask(plain, runner_on(tmp_path, "a.sqlite"), ["q"]))
        budgeted = OpenAIModel("my-deployment", base_url=url, reasoning_budget=1000)
        [answered] = run(ask(budgeted, runner_on(tmp_path, "b.sqlite"), ["q"]))
    assert cut.ok and (cut.value.text, cut.value.finish_reason) == ("", "length")
    assert cut.value.usage.reasoning_tokens == ANSWER_BUDGET
    bodies = stub.bodies[0]
    assert len(bodies) == 6 and [sorted(b.keys() & {"max_tokens", "temperature"})
                                 for b in bodies[:3]] == [["max_tokens", "temperature"],
                                                          ["temperature"], []]
    assert bodies[2]["max_completion_tokens"] == ANSWER_BUDGET
    assert answered.ok and answered.value.text == stubs.ANSWER
    assert bodies[5]["max_completion_tokens"] == ANSWER_BUDGET + 1000
    assert budgeted.identity()["reasoning_budget"] == "1000"


def test_a_refusal_after_the_switch_is_a_failure_not_a_loop(tmp_path: Path) -> None:
    """A server that refuses max_tokens whatever is sent: two requests, then CallFailed."""
    refusal = stubs.o_series_refusal({"max_tokens": 1})

    async def always_refuse(i: int, method: str, path: str, payload: dict) -> Any:
        return 400, refusal

    with StubEndpoints(1, route=always_refuse) as stub:
        model = OpenAIModel("o3", base_url=stub.urls[0])
        [result] = run(ask(model, runner_on(tmp_path), ["q"]))
    assert not result.ok and "400" in (result.error or "") and result.attempts == 1
    assert len(stub.bodies[0]) == 2


# --- servers with a reasoning parser ------------------------------------------------------


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_parser_output_is_kept_apart(tmp_path: Path, field: str) -> None:
    """vLLM's reasoning_content (newer: reasoning) becomes the completion's reasoning, never
    part of its text; the budget is added to max_tokens, the temperature is sent as asked."""
    route = stubs.reasoning_parser(reasoning_tokens=40, field=field)
    with StubEndpoints(1, route=route) as stub:
        model = OpenAIModel("Qwen3-8B", base_url=stub.urls[0], reasoning_budget=100)
        [result] = run(ask(model, runner_on(tmp_path), ["why?"]))
    assert result.ok
    assert result.value.text == stubs.ANSWER
    assert result.value.reasoning == stubs.thoughts(40)
    [body] = stub.bodies[0]
    assert (body["max_tokens"], body["temperature"]) == (ANSWER_BUDGET + 100, 0.0)
    assert "max_completion_tokens" not in body


def test_a_parser_cut_while_reasoning_gives_no_answer(tmp_path: Path) -> None:
    """max_tokens 10, no budget, 40 tokens of reasoning: no content, finish_reason length,
    the 10 tokens of reasoning kept; a budget of 100 leaves room for the answer."""
    params = GenerateParams(max_tokens=10)
    with StubEndpoints(1, route=stubs.reasoning_parser(reasoning_tokens=40)) as stub:
        bare = OpenAIModel("Qwen3-8B", base_url=stub.urls[0])
        [cut] = run(ask(bare, runner_on(tmp_path, "a.sqlite"), ["q"], params))
        roomy = OpenAIModel("Qwen3-8B", base_url=stub.urls[0], reasoning_budget=100)
        [whole] = run(ask(roomy, runner_on(tmp_path, "b.sqlite"), ["q"], params))
    assert (cut.value.text, cut.value.finish_reason) == ("", "length")
    assert cut.value.reasoning == stubs.thoughts(10)
    assert (whole.value.text, whole.value.finish_reason) == (stubs.ANSWER, "stop")
    assert [b["max_tokens"] for b in stub.bodies[0]] == [10, 110]


# --- the cache ----------------------------------------------------------------------------


def test_reasoning_and_its_tokens_come_back_from_the_cache(tmp_path: Path) -> None:
    """A cached reasoning completion reads back equal, without a call, counted again."""
    with StubEndpoints(1, route=stubs.o_series(reasoning_tokens=50)) as stub:
        url = stub.urls[0]
        first = run(ask(OpenAIModel("o3", base_url=url), runner_on(tmp_path), ["q"]))[0]
        again_runner = runner_on(tmp_path)
        again = run(ask(OpenAIModel("o3", base_url=url), again_runner, ["q"]))[0]
        sent = len(stub.bodies[0])
    assert sent == 2  # the refused call and its resend; the repeat sent nothing
    assert again.cached and again.value == first.value
    usage = again_runner.usage["openai/o3"]
    assert (usage.reasoning_tokens, usage.new_reasoning_tokens) == (50, 0)


def test_an_older_cached_completion_still_reads(tmp_path: Path) -> None:
    """A row stored before reasoning fields existed reads with 0 reasoning tokens and no
    reasoning text."""
    model = OpenAIModel("m", base_url="http://127.0.0.1:9/v1")
    messages, params = user("hi"), GenerateParams()
    key = call_key(model.identity(), "generate",
                   {"messages": messages, "params": params.as_dict(), "sample": 0})

    async def go() -> Any:
        cache = Cache(tmp_path / "c.sqlite")
        await cache.store(key, model.name, "generate", {
            "text": "old", "finish_reason": "stop",
            "usage": {"prompt_tokens": 3, "completion_tokens": 1}})
        result = await Runner(cache).generate(model, messages, params)
        await model.aclose()
        await cache.aclose()
        return result

    result = run(go())
    assert result.cached and result.value.text == "old"
    assert result.value.usage == Usage(3, 1, 0) and result.value.reasoning is None


def test_no_budget_leaves_every_cache_key_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """The identities a session opens without a budget are the three fields they always had
    (written out here by hand), so every key made with them is unchanged; a budget, and the
    default of a reasoning name, change the identity."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    url = "http://127.0.0.1:9/v1"
    chat = get_model("openai/my-model", base_url=url, reasoning_budget=None)
    claude = get_model("anthropic/claude-x", reasoning_budget=None)
    assert chat.identity() == {"provider": "openai", "model": "my-model", "base_url": url}
    assert claude.identity() == {"provider": "anthropic", "model": "claude-x",
                                 "base_url": "https://api.anthropic.com"}
    assert GenerateParams().as_dict() == {"temperature": 0.0, "max_tokens": 256, "seed": 0,
                                          "stop": []}
    assert get_model("openai/my-model", base_url=url,
                     reasoning_budget=0).identity() == chat.identity()
    assert get_model("anthropic/claude-x", reasoning_budget=0).identity() == claude.identity()
    assert get_model("openai/my-model", base_url=url,
                     reasoning_budget=64).identity()["reasoning_budget"] == "64"
    assert get_model("openai/o1", base_url=url).identity()["reasoning_budget"] == "25000"
    assert get_model("openai/o1", base_url=url,
                     reasoning_budget=0).identity()["reasoning_budget"] == "0"
    for model in (chat, claude):
        run(model.aclose())


def test_the_session_passes_the_budget_to_remote_models(tmp_path: Path) -> None:
    """RunSettings(reasoning_budget=N) reaches the models a session opens; a negative one is
    refused in one line."""
    with StubEndpoints(1) as stub:
        session = Session.start(RunSettings(cache=tmp_path / "c.sqlite", reasoning_budget=512))
        model = session.open_model("openai/m", base_url=stub.urls[0])
        assert model.identity()["reasoning_budget"] == "512"
        run(session.close())
    with pytest.raises(UserError, match="reasoning_budget"):
        RunSettings(reasoning_budget=-1)


# --- usage --------------------------------------------------------------------------------


def test_usage_sums_reasoning_tokens_and_keeps_notes() -> None:
    """Reasoning tokens add up over calls, paid ones apart; a job adds its runs; notes are
    kept once; the JSON form reads back, and an older one without the fields still does."""
    counts = ModelUsage()
    counts.add(Usage(10, 310, 300), cached=False)
    counts.add(Usage(10, 310, 300), cached=True)
    counts.notes = ("temperature fixed at 1",)
    assert (counts.reasoning_tokens, counts.new_reasoning_tokens) == (600, 300)
    later = ModelUsage(**json.loads(json.dumps(to_jsonable(counts))))
    later.add(Usage(1, 5, 4), cached=False)
    run_part = later.since(counts)
    assert (run_part.reasoning_tokens, run_part.completion_tokens) == (4, 5)
    assert run_part.notes == counts.notes
    job = ModelUsage()
    job.absorb(counts)
    job.absorb(run_part)
    assert job.reasoning_tokens == 604 and job.notes == ("temperature fixed at 1",)
    data = json.loads(json.dumps(to_jsonable({"m": job})))
    assert from_jsonable(dict[str, ModelUsage], data) == {"m": job}
    old = {"calls": 1, "cache_hits": 0, "errors": 0, "prompt_tokens": 1,
           "completion_tokens": 2, "new_prompt_tokens": 1, "new_completion_tokens": 2,
           "endpoints": []}
    assert ModelUsage(**old).reasoning_tokens == 0 and ModelUsage(**old).notes == ()
