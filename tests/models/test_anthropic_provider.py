"""AnthropicModel against a local stand-in for the Anthropic Messages API."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from verstehen.engine.cache import Cache
from verstehen.engine.runner import RetryPolicy, Runner
from verstehen.errors import UnsupportedCapability, UserError
from verstehen.models import get_model
from verstehen.models.anthropic_api import AnthropicModel
from verstehen.models.base import GenerateParams, Message

KEY = "sk-ant-test-123"

REPLY = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
    "content": [{"type": "text", "text": "Hello"},
                {"type": "thinking", "thinking": "hidden", "signature": "sig"},
                {"type": "text", "text": ", world"}],
    "stop_reason": "end_turn", "stop_sequence": None,
    "usage": {"input_tokens": 17, "output_tokens": 4},
}


class FakeAnthropic:
    """Records each request to /v1/messages and answers from a script, then with REPLY."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.script: list[tuple[int, dict[str, str], dict[str, Any]]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                fake.requests.append({"path": self.path, "body": body, "time": time.monotonic(),
                                      "headers": {k.lower(): v for k, v in self.headers.items()}})
                status, headers, payload = fake.script.pop(0) if fake.script else (200, {}, REPLY)
                data = json.dumps(payload).encode()
                self.send_response(status)
                for name, value in {"content-type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def fail_once(self, status: int, headers: dict[str, str] | None = None) -> None:
        """Answer the next request with an API error of this status."""
        error = {"type": "error", "error": {"type": "api_error", "message": f"status {status}"}}
        self.script.append((status, headers or {}, error))


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    """A running stand-in server, with ANTHROPIC_API_KEY set."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    server = FakeAnthropic()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


MESSAGES: list[Message] = [{"role": "system", "content": "Be brief."},
                           {"role": "user", "content": "Say hello."}]


def generate(fake: FakeAnthropic, params: GenerateParams) -> Any:
    """One direct AnthropicModel.generate call."""
    async def go() -> Any:
        model = AnthropicModel("claude-test", base_url=fake.url, api_key_env="ANTHROPIC_API_KEY")
        try:
            return await model.generate(MESSAGES, params)
        finally:
            await model.aclose()
    return asyncio.run(go())


def run_once(fake: FakeAnthropic, tmp_path: Path) -> Any:
    """One call through a Runner with a fresh cache and no backoff of its own."""
    async def go() -> Any:
        model = AnthropicModel("claude-test", base_url=fake.url, api_key_env="ANTHROPIC_API_KEY")
        runner = Runner(Cache(tmp_path / "c.sqlite"), retry=RetryPolicy(base_delay=0.0))
        try:
            return await runner.generate(model, MESSAGES, GenerateParams(max_tokens=8))
        finally:
            await model.aclose()
            runner.cache.close()
    return asyncio.run(go())


def test_request_shape_and_headers(fake: FakeAnthropic) -> None:
    """System goes to `system`, parameters and the key are sent."""
    generate(fake, GenerateParams(temperature=0.7, max_tokens=33, stop=("END", "###")))
    [request] = fake.requests
    body = request["body"]
    assert request["path"] == "/v1/messages"
    assert body["model"] == "claude-test"
    assert body["system"] == "Be brief."
    assert body["messages"] == [{"role": "user", "content": "Say hello."}]
    assert body["max_tokens"] == 33
    assert body["temperature"] == 0.7
    assert body["stop_sequences"] == ["END", "###"]
    headers = request["headers"]  # SDK 2.x sends the key as a Bearer token, 0.x as x-api-key
    assert headers.get("x-api-key") == KEY or headers.get("authorization") == f"Bearer {KEY}"
    assert "anthropic-version" in request["headers"]


def test_no_system_no_stop(fake: FakeAnthropic) -> None:
    """Without system turns or stops, neither field is sent."""
    async def go() -> None:
        model = AnthropicModel("claude-test", base_url=fake.url, api_key_env="ANTHROPIC_API_KEY")
        await model.generate([{"role": "user", "content": "hi"}], GenerateParams())
        await model.aclose()
    asyncio.run(go())
    body = fake.requests[0]["body"]
    assert "system" not in body and "stop_sequences" not in body


def test_response_text_and_usage(fake: FakeAnthropic) -> None:
    """Text blocks are joined, other blocks skipped; usage maps to prompt/completion."""
    out = generate(fake, GenerateParams())
    assert out.text == "Hello, world"
    assert out.finish_reason == "end_turn"
    assert (out.usage.prompt_tokens, out.usage.completion_tokens) == (17, 4)


@pytest.mark.parametrize("status", [529, 429])
def test_overloaded_then_ok(fake: FakeAnthropic, tmp_path: Path, status: int) -> None:
    """A 529/429 with retry-after is retried after waiting, then succeeds."""
    fake.fail_once(status, {"retry-after": "0.3"})
    result = run_once(fake, tmp_path)
    assert result.ok and result.value.text == "Hello, world"
    assert result.attempts == 2 and len(fake.requests) == 2
    assert fake.requests[1]["time"] - fake.requests[0]["time"] >= 0.3


def test_bad_request_not_retried(fake: FakeAnthropic, tmp_path: Path) -> None:
    """A 400 ends as an error result after one attempt."""
    fake.fail_once(400)
    result = run_once(fake, tmp_path)
    assert not result.ok and "400" in result.error
    assert result.attempts == 1 and len(fake.requests) == 1


def test_logprobs_unsupported(fake: FakeAnthropic) -> None:
    """Scoring raises UnsupportedCapability without calling the API."""
    model = AnthropicModel("claude-test", base_url=fake.url, api_key_env="ANTHROPIC_API_KEY")
    assert model.capabilities.logprobs is False
    with pytest.raises(UnsupportedCapability):
        asyncio.run(model.logprobs("The sky is", [" blue"]))
    asyncio.run(model.aclose())
    assert fake.requests == []


def test_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ANTHROPIC_API_KEY, get_model names the variable."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(UserError, match="ANTHROPIC_API_KEY"):
        get_model("anthropic/x")
