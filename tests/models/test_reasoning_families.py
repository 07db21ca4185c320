"""Model families as their providers document them today (issue 47): each row of the README's
table is a stub (`verstehen.testing.reasoning_stubs`) that refuses what the documentation says
the family refuses, in the words of the real 400s, and a model on it meets each refusal at most
once, however many calls are in flight, and is never told a temperature was fixed when it was
sent.

The expected requests are counted from the rules (answer budget 256, eight calls at once, the
first alone until it has ended), not read from the code.
"""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from family_rows import CASES, FAMILIES, Row, readme_families

from verstehen.engine.cache import Cache
from verstehen.engine.runner import CallResult, RetryPolicy, Runner
from verstehen.models import GenerateParams, Message, get_model, user
from verstehen.models.anthropic_api import message_of
from verstehen.models.openai_api import OpenAIModel
from verstehen.models.refusals import refused_parameter
from verstehen.testing import reasoning_stubs as stubs
from verstehen.testing.stub_endpoints import StubEndpoints
from verstehen.testing.stub_families import JSON, FamilyStub

ANSWER_BUDGET = GenerateParams().max_tokens  # 256
PROMPTS = [f"q{i}" for i in range(8)]
HAS_LITELLM = importlib.util.find_spec("litellm") is not None
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly. qualifier:UserWarning")


def ask(model: Any, tmp_path: Path, conversations: list[list[Message]],
        params: GenerateParams | None = None) -> tuple[list[CallResult], Runner]:
    """The conversations through a runner on a fresh cache, all at once; the model closed."""
    async def go() -> tuple[list[CallResult], Runner]:
        runner = Runner(Cache(tmp_path / "c.sqlite"), retry=RetryPolicy(base_delay=0.0))
        try:
            return list(await asyncio.gather(*(runner.generate(model, c, params)
                                               for c in conversations))), runner
        finally:
            await model.aclose()
            await runner.cache.aclose()
    return asyncio.run(go())


def skip_without_litellm(row: Row) -> None:
    """litellm/ rows need the extra."""
    if row.model.startswith("litellm/") and not HAS_LITELLM:
        pytest.skip("the litellm extra is not installed")


def test_the_readme_table_has_one_row_per_family_stub() -> None:
    """The README's rows are the families stubbed here, in the same order."""
    assert readme_families() == list(dict.fromkeys(row for row, _ in FAMILIES))


def sdk_error(body: JSON) -> SimpleNamespace:
    """A 400 as the SDKs raise it for this error body (OpenAI's fields, or Anthropic's)."""
    error = body["error"]
    return SimpleNamespace(status_code=400, param=error.get("param"), code=error.get("code"),
                           message=f"Error code: 400 - {body}")


SYSTEM_TURN: Message = {"role": "system", "content": "Be brief."}
BASE = {"model": "m", "messages": [SYSTEM_TURN, *user("q")]}
# (stub, request, the parameter it refuses: as the stub counts it, as verstehen reads it)
DOCUMENTED = [
    (stubs.chat_model(), {"max_tokens": 9, "temperature": 0.0, "stop": ["x"]}, None, None),
    (stubs.o_series(refuses_stop=False), {"max_tokens": 9}, "max_tokens", "max_tokens"),
    (stubs.o_series(refuses_stop=False), {"temperature": 0.0}, "temperature", "temperature"),
    (stubs.o_series(refuses_stop=False), {"temperature": 1, "stop": ["x"]}, None, None),
    (stubs.o_series(), {"max_completion_tokens": 9, "stop": ["x"]}, "stop", "stop"),
    (stubs.o_series(refuses_system=True), {"max_completion_tokens": 9}, "system", "system"),
    (stubs.gpt_5_1(), {"max_tokens": 9}, "max_tokens", "max_tokens"),
    (stubs.gpt_5_1(), {"max_completion_tokens": 9, "temperature": 0.0}, None, None),
    (stubs.gpt_5_1(), {"temperature": 0.0, "reasoning_effort": "medium"}, "temperature",
     "temperature"),
    (stubs.reasoning_parser(), {"max_tokens": 9, "temperature": 0.0}, None, None),
    (stubs.anthropic_thinking(), {"max_tokens": 9, "temperature": 0.0}, None, None),
    (stubs.anthropic_thinking(), {"max_tokens": 4000, "thinking": {
        "type": "enabled", "budget_tokens": 2048}, "temperature": 0.0}, "thinking", None),
    (stubs.anthropic_adaptive(), {"max_tokens": 4000, "thinking": {
        "type": "enabled", "budget_tokens": 2048}}, "thinking", "thinking.type.enabled"),
    (stubs.anthropic_adaptive(), {"max_tokens": 9, "temperature": 0.0}, "temperature",
     "temperature"),
    (stubs.anthropic_adaptive(), {"max_tokens": 9, "top_p": 0.9}, "top_p", None),
    (stubs.anthropic_adaptive(), {"max_tokens": 9, "thinking": {"type": "adaptive"}}, None,
     None),
]


@pytest.mark.parametrize(("stub", "extra", "counted", "read"), DOCUMENTED)
def test_each_stub_refuses_what_its_documentation_says(
        stub: FamilyStub, extra: JSON, counted: str | None, read: str | None) -> None:
    """A request a family refuses is a 400 in its API's error shape, counted by parameter;
    verstehen reads which parameter it names (an Anthropic temperature refused *because*
    thinking is on, or a top_p, which verstehen never sends, is not one it drops)."""
    payload = {**BASE, **extra}
    status, body = asyncio.run(stub(0, "POST", stub.path, payload)) or (0, {})
    assert (status == 400) is (counted is not None)
    assert stub.refused == ({counted: 1} if counted else {})
    if counted is not None:
        learnable = ("max_tokens", "temperature", "stop", "system", "thinking.type.enabled")
        assert refused_parameter(sdk_error(body), learnable) == read
        assert refused_parameter(SimpleNamespace(**{**vars(sdk_error(body)),
                                                    "status_code": 404}), learnable) is None


@pytest.mark.parametrize("text", [
    "`temperature` may only be set to 1 when thinking is enabled.",
    "`max_tokens` must be greater than `thinking.budget_tokens`.",
    "max_tokens is too large: 300000. This model supports at most 128000 completion tokens",
    "Unsupported value: 'messages[0].role' does not support 'developer' with this model.",
])
def test_other_400s_name_no_parameter_to_drop(text: str) -> None:
    """A 400 that mentions a parameter without refusing it is no refusal: it fails the call."""
    error = SimpleNamespace(status_code=400, message=text)
    assert refused_parameter(error, ("max_tokens", "temperature", "system")) is None


@pytest.mark.parametrize(("name", "row"), CASES, ids=[name for name, _ in CASES])
def test_a_model_on_each_family_meets_each_refusal_once(
        tmp_path: Path, name: str, row: Row) -> None:
    """Eight calls at once: all answered at the first attempt, each refusal the row expects
    met once (the first call goes alone), every request either that refusal or an answer,
    and each change kept in the model's notes."""
    skip_without_litellm(row)
    with StubEndpoints(1, route=(stub := row.stub(stubs.fixed_answer))) as server:
        model = get_model(row.model, base_url=row.url(server.ports[0]),
                          reasoning_budget=row.budget)
        results, runner = ask(model, tmp_path, [user(p) for p in PROMPTS])
        posted = sum(server.received[0].values())
    assert all(r.ok and r.attempts == 1 and r.value.text == stubs.ANSWER for r in results)
    assert dict(stub.refused) == row.refusals and stub.answered == len(PROMPTS)
    assert posted == len(PROMPTS) + sum(row.refusals.values())
    runner.count_endpoints()
    usage = runner.usage[row.model]
    assert usage.errors == 0 and len(usage.notes) >= len(row.refusals)


def test_gpt_5_1_takes_the_temperature_and_is_never_told_it_is_fixed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """openai/gpt-5.1 on api.openai.com: no default reasoning budget (the identity as for any
    chat model), max_completion_tokens = 256 from the first call, the temperature asked sent
    with every request, no refusal; the note says the temperature is sent, never that it is
    fixed."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-gpt51")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with StubEndpoints(1, route=(stub := stubs.gpt_5_1())) as server:
        model = OpenAIModel("gpt-5.1")
        assert "reasoning_budget" not in model.identity()
        client = model._pool.endpoints[0].client  # the same requests, sent to the stub
        client.sdk = client.sdk.with_options(base_url=server.urls[0])
        results, runner = ask(model, tmp_path, [user(p) for p in PROMPTS],
                              GenerateParams(temperature=0.7))
        bodies = server.bodies[0]
    assert all(r.ok for r in results) and not stub.refused and len(bodies) == 8
    assert all(b["temperature"] == 0.7 and b["max_completion_tokens"] == ANSWER_BUDGET
               and "max_tokens" not in b for b in bodies)
    runner.count_endpoints()
    notes, err = runner.usage["openai/gpt-5.1"].notes, capsys.readouterr().err
    assert "fixed at 1" not in err and not any("fixed at 1" in n for n in notes)
    assert err.count("its temperature is sent as asked") == 1


def test_an_unknown_name_learns_each_parameter_from_its_own_refusal(tmp_path: Path) -> None:
    """A deployment name no rule knows, on o1-mini's stub, with a system message: max_tokens,
    temperature and the system role are each refused once (3 + 8 requests); the system text
    then goes first in the user's message."""
    with StubEndpoints(1, route=(stub := stubs.o_series(refuses_system=True,
                                                        refuses_stop=False))) as server:
        model = OpenAIModel("my-deployment", base_url=server.urls[0], reasoning_budget=1000)
        results, runner = ask(model, tmp_path, [[SYSTEM_TURN, *user(p)] for p in PROMPTS])
        bodies = server.bodies[0]
    assert all(r.ok for r in results)
    assert stub.refused == {"max_tokens": 1, "temperature": 1, "system": 1}
    assert len(bodies) == 11
    assert all([m["role"] for m in b["messages"]] == ["user"]
               and b["messages"][0]["content"].startswith("Be brief.\n\nq") for b in bodies[3:])
    runner.count_endpoints()
    assert len(runner.usage["openai/my-deployment"].notes) == 3


def test_stop_sequences_a_model_refuses_are_cut_here(tmp_path: Path) -> None:
    """o3 behind a URL with stop sequences: max_tokens refused once, and with it the family's
    set (no temperature, no stop); the replies are cut at the stop sequence here, as the
    server would have cut them."""
    route = stubs.o_series(answer=lambda prompt: "ANSWER: Yes\nEND and more")
    with StubEndpoints(1, route=route) as server:
        model = OpenAIModel("o3", base_url=server.urls[0])
        results, _ = ask(model, tmp_path, [user(p) for p in PROMPTS],
                         GenerateParams(stop=("\nEND",)))
        bodies = server.bodies[0]
    assert route.refused == {"max_tokens": 1} and len(bodies) == 9
    assert all("stop" not in b and "temperature" not in b for b in bodies[1:])
    assert all((r.value.text, r.value.finish_reason) == ("ANSWER: Yes", "stop")
               for r in results)


def test_claude_opus_4_7_thinks_adaptively_within_the_same_max_tokens(tmp_path: Path) -> None:
    """Budget 2048 on Claude Opus 4.7's stub: `enabled` refused once, then every request asks
    adaptive thinking with its text summarized, max_tokens 256 + 2048, no temperature; the
    summarized thinking is the reasoning."""
    with StubEndpoints(1, route=(stub := stubs.anthropic_adaptive())) as server:
        model = get_model("anthropic/claude-opus-4-7", base_url=f"http://127.0.0.1:"
                          f"{server.ports[0]}", reasoning_budget=2048)
        results, _ = ask(model, tmp_path, [user(p) for p in PROMPTS])
        refused, *sent = server.bodies[0]
    assert refused["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert stub.refused == {"thinking": 1} and len(sent) == 8
    assert all(b["thinking"] == {"type": "adaptive", "display": "summarized"}
               and b["max_tokens"] == ANSWER_BUDGET + 2048 and "temperature" not in b
               for b in sent)
    assert all(r.value.reasoning == stubs.thoughts(1500) for r in results)


def test_thinking_omitted_by_default_is_no_reasoning() -> None:
    """A thinking block whose text is omitted (Opus 4.7's default display) adds no reasoning
    text; a redacted one still says it was there."""
    reply = {"content": [{"type": "thinking", "thinking": "", "signature": "s"},
                         {"type": "text", "text": "ANSWER: Yes"}],
             "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 9}}
    assert message_of(reply).reasoning is None
    reply["content"].insert(1, {"type": "redacted_thinking", "data": "x"})
    assert message_of(reply).reasoning == "[redacted thinking]"


def test_a_dropped_temperature_keeps_the_key_of_the_request_asked(tmp_path: Path) -> None:
    """The cache key is the request the procedure asked for: a second run of Claude Opus 4.7
    at temperature 0 with the same cache gets the stored reply and sends nothing, refusal
    included."""
    with StubEndpoints(1, route=(stub := stubs.anthropic_adaptive())) as server:
        url = f"http://127.0.0.1:{server.ports[0]}"
        first, _ = ask(get_model("anthropic/claude-opus-4-7", base_url=url), tmp_path,
                       [user("q")])
        again, _ = ask(get_model("anthropic/claude-opus-4-7", base_url=url), tmp_path,
                       [user("q")])
        sent = len(server.bodies[0])
    assert stub.refused == {"temperature": 1} and sent == 2
    assert again[0].cached and again[0].value == first[0].value


@pytest.mark.skipif(not HAS_LITELLM, reason="the litellm extra is not installed")
def test_litellm_drops_what_its_provider_refuses_once_each(tmp_path: Path) -> None:
    """litellm/openai/ with a name LiteLLM does not know, on o3's stub, with stop sequences:
    max_tokens (replaced by max_completion_tokens), temperature and stop are each refused
    once; the replies (10 tokens of reasoning, then the answer) are cut at the stop sequence
    here."""
    route = stubs.o_series(10, lambda prompt: "ANSWER: Yes\nEND and more")
    with StubEndpoints(1, route=route) as server:
        model = get_model("litellm/openai/my-reasoner", base_url=server.urls[0])
        results, runner = ask(model, tmp_path, [user(p) for p in PROMPTS],
                              GenerateParams(stop=("\nEND",)))
    assert route.refused == {"max_tokens": 1, "temperature": 1, "stop": 1}
    assert all(r.ok and r.value.text == "ANSWER: Yes" for r in results)
    runner.count_endpoints()
    assert len(runner.usage["litellm/openai/my-reasoner"].notes) == 3
