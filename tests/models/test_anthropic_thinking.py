"""Anthropic's extended thinking as the Messages API defines it: asked with a budget of at
least 1024 below max_tokens and no temperature; the thinking blocks kept as the completion's
reasoning, apart from its text. The stub (`reasoning_stubs.anthropic_thinking`) refuses what
the API refuses, in its error shape; the expected bodies are worked out from the rules
(answer budget 256 by default, plus the budget), not read from the provider.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import anthropic
import pytest

from verstehen.engine.cache import Cache
from verstehen.engine.runner import CallResult, RetryPolicy, Runner
from verstehen.errors import UserError
from verstehen.models import GenerateParams, user
from verstehen.models.anthropic_api import REDACTED, AnthropicModel
from verstehen.testing import reasoning_stubs as stubs
from verstehen.testing.stub_endpoints import StubEndpoints

ANSWER_BUDGET = GenerateParams().max_tokens  # 256


def claude(url: str, budget: int | None) -> AnthropicModel:
    """An Anthropic model on the stub (no key needed off api.anthropic.com)."""
    return AnthropicModel("claude-test", base_url=url.removesuffix("/v1"),
                          reasoning_budget=budget)


def generate(model: AnthropicModel, tmp_path: Path,
             params: GenerateParams | None = None) -> CallResult:
    """One call through a runner on a fresh cache; the model is closed after."""
    async def go() -> CallResult:
        runner = Runner(Cache(tmp_path / "c.sqlite"), retry=RetryPolicy(base_delay=0.0))
        try:
            return await runner.generate(model, user("why?"), params)
        finally:
            await model.aclose()
            await runner.cache.aclose()
    return asyncio.run(go())


def test_thinking_is_asked_as_the_api_defines_it(tmp_path: Path) -> None:
    """Budget 2048: thinking enabled with budget_tokens 2048, max_tokens 256 + 2048, no
    temperature; the thinking (and a redacted block) is the reasoning, the text the answer."""
    route = stubs.anthropic_thinking(thinking_tokens=1500, redacted=True)
    with StubEndpoints(1, route=route) as stub:
        result = generate(claude(stub.urls[0], 2048), tmp_path)
    assert result.ok, result.error
    [body] = stub.bodies[0]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == ANSWER_BUDGET + 2048 and "temperature" not in body
    assert result.value.text == stubs.ANSWER and result.value.finish_reason == "end_turn"
    assert result.value.reasoning == stubs.thoughts(1500) + "\n\n" + REDACTED
    assert result.value.usage.completion_tokens == 1502  # thinking counts in output_tokens


def test_without_a_budget_claude_is_asked_as_before(tmp_path: Path) -> None:
    """No budget: no thinking field, the temperature as asked, max_tokens the answer budget."""
    with StubEndpoints(1, route=stubs.anthropic_thinking()) as stub:
        result = generate(claude(stub.urls[0], None), tmp_path)
    [body] = stub.bodies[0]
    assert "thinking" not in body and body["temperature"] == 0.0
    assert body["max_tokens"] == ANSWER_BUDGET
    assert result.value.reasoning is None and result.value.text == stubs.ANSWER


def test_a_reply_cut_while_answering_stops_at_max_tokens(tmp_path: Path) -> None:
    """Thinking spends its whole budget (2048), one answer token is left of 1 + 2048:
    stop_reason max_tokens, the answer cut to its first word."""
    route = stubs.anthropic_thinking(thinking_tokens=4000)
    with StubEndpoints(1, route=route) as stub:
        result = generate(claude(stub.urls[0], 2048), tmp_path, GenerateParams(max_tokens=1))
    assert (result.value.text, result.value.finish_reason) == ("ANSWER:", "max_tokens")


def test_a_thinking_budget_under_1024_is_refused_in_one_line() -> None:
    """Anthropic's floor is 1024: a smaller budget is a UserError before any call."""
    with pytest.raises(UserError, match="at least 1024"):
        claude("http://127.0.0.1:9", 1000)


@pytest.mark.parametrize(("extra", "needle"), [
    ({"thinking": {"type": "enabled", "budget_tokens": 512}, "max_tokens": 2000},
     "greater than or equal to 1024"),
    ({"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 2048},
     "`max_tokens` must be greater than `thinking.budget_tokens`"),
    ({"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 4000,
      "temperature": 0}, "`temperature` may only be set to 1"),
    ({"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 4000,
      "top_k": 5}, "top_k"),
    ({"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 4000,
      "top_p": 0.5}, "top_p"),
])
def test_the_anthropic_stub_refuses_as_the_api_does(extra: dict, needle: str) -> None:
    """The SDK reads the stub's refusals as a 400 invalid_request_error naming the rule."""
    async def send(url: str) -> None:
        client = anthropic.AsyncAnthropic(api_key="none", base_url=url, max_retries=0)
        try:
            await client.messages.create(model="m", messages=[{"role": "user", "content": "q"}],
                                         max_tokens=extra["max_tokens"],
                                         extra_body={k: v for k, v in extra.items()
                                                     if k != "max_tokens"})
        finally:
            await client.close()

    with (StubEndpoints(1, route=stubs.anthropic_thinking()) as stub,
          pytest.raises(anthropic.BadRequestError) as caught):
        asyncio.run(send(stub.urls[0].removesuffix("/v1")))
    assert caught.value.status_code == 400
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    assert needle in caught.value.body["error"]["message"]
