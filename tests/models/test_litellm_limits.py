"""litellm/ calls under the limits openai/ calls have (issue 43): LiteLLM sends every request
through our transport (`models/litellm_transport.py`), so a 100 MB reply or a gzip bomb
fails the call as a server fault (retried, never cached) holding about 8 MiB, a trickled
reply gives up at the timeout, and a reply that did not come through the transport is
refused. Each server is a real socket server on 127.0.0.1; no network.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_http import HostileServer, bomb, chat_with, huge, raw, trickle

from verstehen.engine.runner import RetryPolicy
from verstehen.engine.session import RunSettings, Session
from verstehen.errors import CallFailed, TransientError
from verstehen.models import GenerateParams, user
from verstehen.testing import hostile_server

if importlib.util.find_spec("litellm") is None:
    pytest.skip("the litellm extra is not installed", allow_module_level=True)
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly. qualifier:UserWarning")

from verstehen.models.litellm_api import LiteLLMModel  # noqa: E402
from verstehen.models.litellm_transport import LiteLLMTransport  # noqa: E402

MB = 10**6
# LiteLLM reaches these through the openai SDK (openai) and through its own HTTP handlers
# (the others): each path must be bounded
PROVIDERS = ["openai/stub", "anthropic/claude-x", "mistral/m", "gemini/gemini-1.5-pro",
             "ollama_chat/m"]
BAD = {"100 MB reply": lambda: huge(100 * MB),
       "100 MB undeclared": lambda: huge(100 * MB, declared=False),
       "gzip bomb": lambda: raw(bomb(), extra="content-encoding: gzip\r\n")}


def generate(name: str, url: str, timeout: float = 10.0) -> object:
    """One call of a fresh model at `url`: its completion, or the error it raised."""
    async def main() -> object:
        model = LiteLLMModel(name, base_url=url, timeout=timeout)
        try:
            return await model.generate(user("hi"), GenerateParams())
        except (TransientError, CallFailed) as exc:
            return exc
        finally:
            await model.aclose()

    return asyncio.run(main())


@pytest.mark.parametrize("kind", list(BAD))
@pytest.mark.parametrize("name", PROVIDERS)
def test_a_huge_or_inflating_reply_fails_as_a_server_fault(name: str, kind: str) -> None:
    """Before, LiteLLM read all of it (100 MB, 200 MB inflated) and the call succeeded."""
    with HostileServer(BAD[kind]()) as server:
        result = generate(name, server.url)
    assert isinstance(result, TransientError), result
    assert "reply over 8 MiB" in str(result)


@pytest.mark.parametrize("mode", ["huge", "gzip_bomb"])
def test_through_the_engine_it_is_retried_and_nothing_is_cached(tmp_path: Path,
                                                                 mode: str) -> None:
    """The hostile stub's 100 MB reply and gzip bomb: every attempt fails, the call fails
    with the reason, and the cache holds no row; once the server is healthy the same call
    succeeds and is cached."""
    cache = tmp_path / "calls.sqlite"

    async def ask(url: str) -> object:
        session = Session.start(RunSettings(cache=cache))
        session.runner.retry = RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.02)
        model = session.open_model(LiteLLMModel("openai/stub", base_url=url, timeout=10))
        try:
            return await session.runner.generate(model, user("What is 2 + 2?"))
        finally:
            await model.aclose()
            await session.close()

    with hostile_server.HostileServer(mode) as server:
        bad = asyncio.run(ask(server.url))
        rows = sqlite3.connect(cache).execute("SELECT count(*) FROM calls").fetchone()[0]
        server.set_mode("healthy")
        good = asyncio.run(ask(server.url))
        asked = server.requests["chat"]
    assert not bad.ok and bad.attempts == 2  # type: ignore[attr-defined]
    assert "reply over 8 MiB" in (bad.error or "")  # type: ignore[attr-defined]
    assert rows == 0
    assert good.ok and not good.cached and asked == 3  # type: ignore[attr-defined]


# One process per bad reply: LiteLLM loaded and a healthy call made first (their memory is
# not the reply's), then the peak resident memory (VmHWM) before and after the bad call.
MEASURE = """
import asyncio, json, sys
from verstehen.models import GenerateParams, user
from verstehen.models.litellm_api import LiteLLMModel
from verstehen.testing.hostile_server import HostileServer, gzip_bomb

def peak_mb():
    status = open("/proc/self/status").read()
    return int(status.split("VmHWM:")[1].split()[0]) / 1024

async def ask(url):
    model = LiteLLMModel("openai/stub", base_url=url, timeout=20)
    try:
        return (await model.generate(user("hi"), GenerateParams())).text[:20]
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        await model.aclose()

with HostileServer("healthy") as server:
    gzip_bomb("chat", server.bomb_bytes)  # the server makes it once: counted before the call
    warm = asyncio.run(ask(server.url))
    before = peak_mb()
    server.set_mode(sys.argv[1])
    outcome = asyncio.run(ask(server.url))
    print(json.dumps({"warm": warm, "outcome": outcome, "before": before,
                      "after": peak_mb()}))
"""


@pytest.mark.parametrize("mode", ["huge", "gzip_bomb"])
def test_resident_memory_stays_bounded(mode: str) -> None:
    """The bad call adds under 64 MB to the process's peak resident memory (measured: about
    0 to 20 MB, the 8 MiB buffer and its copy; before, LiteLLM held the whole reply: about
    470 MB for the 100 MB reply and 800 MB for the bomb)."""
    done = subprocess.run([sys.executable, "-c", MEASURE, mode], capture_output=True,
                          text=True, timeout=180, check=True)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    grown = seen["after"] - seen["before"]
    print(f"{mode}: peak {seen['before']:.0f} MB before the call, {seen['after']:.0f} MB "
          f"after (+{grown:.0f} MB): {seen['outcome'][:80]}")
    assert seen["warm"].startswith("echo")
    assert "reply over 8 MiB" in seen["outcome"]
    assert grown < 64, seen


def test_a_trickled_reply_gives_up_at_the_timeout() -> None:
    """One byte a second: the call fails after its 1.5 s, not after the whole reply."""
    with HostileServer(trickle(every=1.0)) as server:
        started = time.monotonic()
        result = generate("openai/stub", server.url, timeout=1.5)
        took = time.monotonic() - started
    assert isinstance(result, TransientError) and "Timeout" in str(result), result
    assert took < 10


def test_a_healthy_reply_passes_through_the_transport() -> None:
    """What the transport hands back is the reply, read whole and decoded (gzip too)."""
    with HostileServer(chat_with(content="forty-two")) as server:
        result = generate("openai/stub", server.url)
    assert getattr(result, "text", None) == "forty-two", result


def test_every_client_litellm_makes_has_our_transport() -> None:
    """Once LiteLLM is loaded, its handlers and the openai SDK clients it builds are made on
    a LiteLLMTransport."""
    model = LiteLLMModel("openai/stub", base_url="http://127.0.0.1:9/v1")
    from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler
    from litellm.llms.openai.common_utils import BaseOpenAILLM

    async def clients() -> list[object]:
        handler = AsyncHTTPHandler()
        sdk_client = BaseOpenAILLM._get_async_http_client()
        made = [handler.client._transport, sdk_client._transport]  # type: ignore[union-attr]
        await handler.close()
        await sdk_client.aclose()  # type: ignore[union-attr]
        return made

    made = asyncio.run(clients())
    asyncio.run(model.aclose())
    assert all(isinstance(t, LiteLLMTransport) for t in made), made


def test_a_reply_that_did_not_come_through_the_transport_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Were LiteLLM to reach a server some other way (a provider on its own aiohttp client),
    its reply would be unbounded: it is refused, not taken."""
    model = LiteLLMModel("openai/stub", base_url="http://127.0.0.1:9/v1")

    async def answered(**request: object) -> dict:
        return json.loads(json.dumps({"choices": [{"message": {"content": "sneaked in"},
                                                   "finish_reason": "stop"}]}))

    monkeypatch.setattr(model._litellm, "acompletion", answered)

    async def main() -> None:
        try:
            await model.generate(user("hi"), GenerateParams())
        finally:
            await model.aclose()

    with pytest.raises(CallFailed, match="without sending through verstehen's transport"):
        asyncio.run(main())
