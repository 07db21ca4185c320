"""The litellm/ provider through LiteLLM's own routing (`litellm/openai/stub` with the stub's
URL as its api_base), under the engine: cache, retries, usage, concurrency. No network."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from verstehen.engine.cache import Cache
from verstehen.engine.runner import RetryPolicy, Runner
from verstehen.engine.session import RunSettings, Session
from verstehen.errors import TransientError, UnsupportedCapability, UserError
from verstehen.models import GenerateParams, Model, user
from verstehen.testing.stub_endpoints import StubEndpoints

# whether the extra is installed, without importing it: a bare `import litellm` fetches its
# cost map from the internet (verstehen's load_litellm sets LITELLM_LOCAL_MODEL_COST_MAP first)
if importlib.util.find_spec("litellm") is None:
    pytest.skip("the litellm extra is not installed", allow_module_level=True)
# LiteLLM's own types, seen by pydantic as it imports them
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly. qualifier:UserWarning")

from verstehen.models.litellm_api import NO_KEY, LiteLLMModel  # noqa: E402

PROMPT = "Name a primary colour."
FAST = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.05)


def scripted(replies: dict[str, list[int]]):
    """A stub route answering each prompt's scripted statuses first, then normally."""
    pending = {prompt: list(statuses) for prompt, statuses in replies.items()}

    async def route(i: int, method: str, path: str, payload: dict):
        messages = payload.get("messages") or [{}]
        statuses = pending.get(messages[-1].get("content", ""))
        if statuses:
            status = statuses.pop(0)
            return status, {"error": {"message": f"scripted {status}", "type": "stub"}}
        return None

    return route


def ask_in_session(cache, url: str, prompts: list[str], *, retry: RetryPolicy = FAST,
                   limit: int | None = None, params: GenerateParams | None = None):
    """Each prompt asked once through a fresh Session's runner; its results and usage."""

    async def main():
        session = Session.start(RunSettings(cache=cache, max_connections=limit))
        session.runner.retry = retry
        model = session.open_model(LiteLLMModel("openai/stub", base_url=url, timeout=5))
        try:
            results = await asyncio.gather(*(
                session.runner.generate(model, user(p), params or GenerateParams())
                for p in prompts))
        finally:
            await model.aclose()
            await session.close()
        return results, session.runner

    return asyncio.run(main())


def test_a_call_answers_and_the_same_call_again_is_a_cache_hit(tmp_path):
    cache = tmp_path / "calls.sqlite"
    with StubEndpoints(1) as stub:
        (first,), runner_one = ask_in_session(cache, stub.urls[0], [PROMPT])
        (again,), runner_two = ask_in_session(cache, stub.urls[0], [PROMPT])
        received = stub.chats(0)
    # the stub answers "echo: " + the last message (verstehen.testing.stub_server)
    assert first.ok and first.value.text == f"echo: {PROMPT}" and not first.cached
    assert again.cached and again.value == first.value
    assert received == 1  # the repeat sent nothing
    # the stub counts words: 4 in the prompt, 5 in "echo: Name a primary colour."
    usage = runner_one.usage["litellm/openai/stub"]
    assert (usage.calls, usage.cache_hits, usage.new_prompt_tokens,
            usage.new_completion_tokens) == (1, 0, 4, 5)
    usage = runner_two.usage["litellm/openai/stub"]
    assert (usage.calls, usage.cache_hits, usage.prompt_tokens, usage.completion_tokens,
            usage.new_prompt_tokens, usage.new_completion_tokens) == (1, 1, 4, 5, 0, 0)


@pytest.mark.parametrize("status", [429, 500, 503])
def test_a_retryable_status_is_retried_by_the_engine_and_succeeds(tmp_path, status):
    with StubEndpoints(1, route=scripted({PROMPT: [status]})) as stub:
        (result,), runner = ask_in_session(tmp_path / "c.sqlite", stub.urls[0], [PROMPT])
        received = stub.received[0][PROMPT]
    assert result.ok and result.value.text == f"echo: {PROMPT}"
    # one refused attempt and one answered: LiteLLM's own retries are off
    assert (result.attempts, received, runner.progress.retries) == (2, 2, 1)
    usage = runner.usage["litellm/openai/stub"]
    assert (usage.calls, usage.errors, usage.new_prompt_tokens) == (1, 0, 4)


class RateLimited(BaseHTTPRequestHandler):
    """Every request refused with 429 and `retry-after: 7`."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        body = json.dumps({"error": {"message": "slow down", "type": "rate"}}).encode()
        self.send_response(429)
        for name, value in (("retry-after", "7"), ("content-type", "application/json"),
                            ("content-length", str(len(body)))):
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_429_keeps_the_servers_retry_after():
    """The engine waits what the server asked (7 s here) before the next attempt."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), RateLimited)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    async def main() -> None:
        model = LiteLLMModel("openai/stub", base_url=f"http://127.0.0.1:{server.server_port}/v1")
        try:
            await model.generate(user(PROMPT), GenerateParams())
        finally:
            await model.aclose()

    try:
        with pytest.raises(TransientError) as raised:
            asyncio.run(main())
    finally:
        server.shutdown()
        server.server_close()
    assert str(raised.value) == "HTTP 429" and raised.value.retry_after == 7.0


def test_a_429_then_a_500_then_an_answer(tmp_path):
    with StubEndpoints(1, route=scripted({PROMPT: [429, 500]})) as stub:
        (result,), _ = ask_in_session(tmp_path / "c.sqlite", stub.urls[0], [PROMPT])
        received = stub.received[0][PROMPT]
    assert result.ok and (result.attempts, received) == (3, 3)


@pytest.mark.parametrize("status", [400, 401, 404])
def test_a_refusal_fails_the_call_at_once(tmp_path, status):
    with StubEndpoints(1, route=scripted({PROMPT: [status] * 4})) as stub:
        (result,), runner = ask_in_session(tmp_path / "c.sqlite", stub.urls[0], [PROMPT])
        received = stub.received[0][PROMPT]
    assert not result.ok and (result.attempts, received) == (1, 1)
    assert f"HTTP {status}" in (result.error or "")
    assert runner.usage["litellm/openai/stub"].errors == 1


def test_out_of_attempts_the_call_fails_with_the_last_fault(tmp_path):
    with StubEndpoints(1, route=scripted({PROMPT: [500] * 9})) as stub:
        (result,), _ = ask_in_session(tmp_path / "c.sqlite", stub.urls[0], [PROMPT])
        received = stub.received[0][PROMPT]
    assert not result.ok and received == FAST.max_attempts == result.attempts
    assert "gave up after 4 attempts" in (result.error or "") and "HTTP 500" in result.error


def test_generate_params_reach_the_server(tmp_path):
    params = GenerateParams(temperature=0.7, max_tokens=33, seed=5, stop=("\n\n", "END"))
    with StubEndpoints(1) as stub:
        ask_in_session(tmp_path / "c.sqlite", stub.urls[0], [PROMPT], params=params)
        body = stub.bodies[0][-1]
    assert body["model"] == "stub"  # LiteLLM's routing took "openai/" off
    assert body["messages"] == [{"role": "user", "content": PROMPT}]
    assert (body["temperature"], body["max_tokens"], body["seed"], body["stop"]) == (
        0.7, 33, 5, ["\n\n", "END"])


def test_the_engine_bounds_concurrent_calls(tmp_path):
    prompts = [f"question {i}" for i in range(8)]
    with StubEndpoints(1, delay=0.05) as stub:
        results, runner = ask_in_session(tmp_path / "c.sqlite", stub.urls[0], prompts, limit=2)
        peak, received = stub.peak[0], stub.received[0]
    assert [r.value.text for r in results] == [f"echo: {p}" for p in prompts]
    assert received == Counter(prompts) and 1 <= peak <= 2
    assert runner.usage["litellm/openai/stub"].calls == 8


def test_a_slow_reply_is_a_transient_fault():
    async def main(url: str) -> None:
        model = LiteLLMModel("openai/stub", base_url=url, timeout=0.3)
        try:
            await model.generate(user(PROMPT), GenerateParams())
        finally:
            await model.aclose()

    with StubEndpoints(1, delay=2.0) as stub, pytest.raises(TransientError):
        asyncio.run(main(stub.urls[0]))


def test_identity_capabilities_and_no_logprobs(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-key-0123456789")
    model = LiteLLMModel("openai/stub", base_url="http://127.0.0.1:9/v1")
    other = LiteLLMModel("gemini/gemini-1.5-pro")
    assert isinstance(model, Model) and model.name == "litellm/openai/stub"
    assert model.identity() == {"provider": "litellm", "model": "openai/stub",
                                "base_url": "http://127.0.0.1:9/v1"}
    assert other.identity() == {"provider": "litellm", "model": "gemini/gemini-1.5-pro",
                                "base_url": ""}
    assert model.capabilities.generate and not model.capabilities.logprobs
    with pytest.raises(UnsupportedCapability, match="no prompt logprobs"):
        asyncio.run(model.logprobs("The sky is", [" blue"]))
    asyncio.run(model.aclose())
    asyncio.run(other.aclose())


def test_a_server_named_by_base_url_gets_no_key_from_the_environment(monkeypatch):
    """LiteLLM would send OPENAI_API_KEY to any api_base; only a named variable's key goes."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-paid-key-0123456789")
    monkeypatch.setenv("STUB_KEY", "stub-key-9876543210")
    sent: list[dict] = []

    async def main(model: LiteLLMModel) -> None:
        async def capture(**request):
            sent.append(request)
            raise RuntimeError("captured")

        monkeypatch.setattr(model._litellm, "acompletion", capture)
        with pytest.raises(Exception, match="captured"):
            await model.generate(user(PROMPT), GenerateParams())

    plain = LiteLLMModel("openai/stub", base_url="http://127.0.0.1:9/v1")
    keyed = LiteLLMModel("openai/stub", base_url="http://127.0.0.1:9/v1", api_key_env="STUB_KEY")
    hosted = LiteLLMModel("openai/gpt-4o-mini")
    for model in (plain, keyed, hosted):
        asyncio.run(main(model))
    assert [s.get("api_key") for s in sent] == [NO_KEY, "stub-key-9876543210", None]
    assert [s.get("api_base") for s in sent] == ["http://127.0.0.1:9/v1"] * 2 + [None]
    assert all((s["num_retries"], s["max_retries"]) == (0, 0) for s in sent)


@pytest.mark.parametrize(("name", "message"), [
    ("gpt-4o-mini", "write litellm/<provider>/<model>"),
    ("openai/", "write litellm/<provider>/<model>"),
    ("no-such-provider/model", "LiteLLM has no provider 'no-such-provider'"),
])
def test_a_malformed_or_unknown_name_is_one_line(name, message):
    with pytest.raises(UserError, match=message) as raised:
        LiteLLMModel(name)
    assert "\n" not in str(raised.value)


def test_a_reasoning_budget_or_an_unset_key_variable_is_refused():
    with pytest.raises(UserError, match="reasoning-budget"):
        LiteLLMModel("openai/gpt-4o-mini", reasoning_budget=2048)
    os.environ.pop("NOT_SET_ANYWHERE", None)
    with pytest.raises(UserError, match="NOT_SET_ANYWHERE, which is not set"):
        LiteLLMModel("openai/stub", base_url="http://127.0.0.1:9/v1",
                     api_key_env="NOT_SET_ANYWHERE")


def test_through_get_model(tmp_path):
    """Skipped only until `litellm` is registered in models/providers.py and get_model."""
    from verstehen.models import PROVIDERS, get_model

    if "litellm" not in PROVIDERS:
        pytest.skip("the litellm provider is not registered in models/providers.py yet")
    with StubEndpoints(1) as stub:
        model = get_model("litellm/openai/stub", base_url=stub.urls[0])
        assert isinstance(model, LiteLLMModel) and model.name == "litellm/openai/stub"

        async def main():
            runner = Runner(Cache(tmp_path / "c.sqlite"), retry=FAST)
            try:
                return await runner.generate(model, user(PROMPT))
            finally:
                await model.aclose()
                await runner.cache.aclose()

        result = asyncio.run(main())
    assert result.ok and result.value.text == f"echo: {PROMPT}"


def test_without_the_extra_one_line_says_what_to_install(monkeypatch):
    from verstehen.models import litellm_runtime

    monkeypatch.setattr(litellm_runtime, "_loaded", [])
    monkeypatch.setitem(sys.modules, "litellm", None)  # import fails as if absent
    with pytest.raises(UserError) as raised:
        LiteLLMModel("openai/gpt-4o-mini")
    assert "pip install 'verstehen[litellm]'" in str(raised.value)
    assert "\n" not in str(raised.value)


def test_importing_verstehen_and_its_commands_imports_no_litellm():
    code = ("import sys, verstehen, verstehen.cli.main as m; m.build_parser(); "
            "import verstehen.models, verstehen.engine.session; "
            "print(sorted(x for x in sys.modules if x.split('.')[0] == 'litellm'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "[]"


# every host the process looks up or connects to, while it loads LiteLLM and asks the stub
AUDIT = """
import asyncio, sys
seen = []
sys.addaudithook(lambda event, args: seen.append(args[0] if event == "socket.getaddrinfo"
                                                 else args[1][:2])
                 if event in ("socket.getaddrinfo", "socket.connect") else None)
from verstehen.models import GenerateParams, user
from verstehen.models.litellm_api import LiteLLMModel
from verstehen.testing.stub_endpoints import StubEndpoints

async def ask(url):
    model = LiteLLMModel("openai/stub", base_url=url)
    try:
        print((await model.generate(user("hello"), GenerateParams())).text)
    finally:
        await model.aclose()

with StubEndpoints(1) as stub:
    asyncio.run(ask(stub.urls[0]))
    print(stub.ports[0])
print(seen)
"""


def test_loading_litellm_and_calling_reaches_nothing_but_the_stub():
    """Without LITELLM_LOCAL_MODEL_COST_MAP LiteLLM fetches its cost map on import (a lookup
    of raw.githubusercontent.com, which the hook counts); load_litellm sets it first."""
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    done = subprocess.run([sys.executable, "-c", AUDIT], capture_output=True, text=True,
                          timeout=120, check=True, env=env)
    answer, port, seen = done.stdout.strip().splitlines()[-3:]
    assert answer == "echo: hello"
    assert seen == str([("127.0.0.1", int(port))])  # one connection, kept alive
