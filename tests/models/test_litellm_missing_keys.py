"""A `litellm/` model whose provider key is not set (issue 44, item 5): one line naming the
variable LiteLLM reads it from, exit 2, no call and no retry, as `openai/` without
OPENAI_API_KEY (before: "HTTP 500", retried for 10 to 14 s, exit 1). Told from LiteLLM's own
`validate_environment`, which reads the environment only; no test touches the network."""

from __future__ import annotations

import asyncio
import importlib.util
import socket
import time
from pathlib import Path

import pytest

from verstehen.engine.cache import Cache
from verstehen.engine.runner import RetryPolicy, Runner
from verstehen.errors import UserError
from verstehen.models import user

from conftest import Cli

if importlib.util.find_spec("litellm") is None:
    pytest.skip("the litellm extra is not installed", allow_module_level=True)
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly. qualifier:UserWarning")

from verstehen.models.litellm_api import LiteLLMModel  # noqa: E402
from verstehen.models.litellm_runtime import (  # noqa: E402
    LOGIN_PROVIDERS,
    load_litellm,
    unset_key_variables,
)

KEYS = ("MISTRAL_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GROQ_API_KEY", "OPENAI_API_KEY",
        "OLLAMA_API_BASE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "MY_SERVER_KEY")


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """No provider key in the environment, and every connection or name lookup refused (and
    counted); LiteLLM's acompletion counted too."""
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)
    tried: list[str] = []

    def refuse(*args: object, **kwargs: object) -> None:
        tried.append(repr(args[:2]))
        raise OSError("the network is not to be used by this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    litellm = load_litellm("litellm/test")
    real = litellm.acompletion

    async def counted(**request: object) -> object:
        tried.append(f"acompletion {request.get('model')}")
        return await real(**request)

    monkeypatch.setattr(litellm, "acompletion", counted)
    return tried


@pytest.mark.parametrize(("model", "needles"), [
    ("mistral/mistral-small", ["MISTRAL_API_KEY is not set: export it to use "
                               "litellm/mistral/mistral-small", "mistral/ models"]),
    ("groq/llama3-8b-8192", ["GROQ_API_KEY is not set"]),
    ("openai/gpt-4o-mini", ["OPENAI_API_KEY is not set"]),
    ("gemini/gemini-1.5-pro", ["none of GOOGLE_API_KEY, GEMINI_API_KEY is set: export one of "
                               "them"]),
])
def test_an_unset_key_is_one_line_and_exit_2_before_any_call(
        cli: Cli, offline: list[str], model: str, needles: list[str]) -> None:
    started = time.monotonic()
    done = cli(["ask", f"litellm/{model}", "Name a prime number."])
    assert done.returncode == 2 and done.stdout == ""
    line = done.stderr.strip()
    assert "\n" not in line and line.startswith("verstehen: error: ")
    assert all(needle in line for needle in needles), line
    assert "HTTP 500" not in line and "retry" not in line
    assert offline == []  # no request, no lookup
    assert time.monotonic() - started < 10  # no retries (before: 10 to 14 s of them)


def test_the_same_from_python_raises_before_the_model_is_made(offline: list[str]) -> None:
    with pytest.raises(UserError, match="MISTRAL_API_KEY is not set"):
        LiteLLMModel("mistral/mistral-small")
    assert offline == []


def test_a_key_a_base_url_or_a_named_variable_lets_the_model_be_made(
        offline: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is of the key LiteLLM would read: a server of one's own gets --api-key-env's
    key or none, so it needs no provider key."""
    LiteLLMModel("mistral/mistral-small", base_url="http://127.0.0.1:9/v1")
    monkeypatch.setenv("MY_SERVER_KEY", "server-key-0123456789")
    LiteLLMModel("mistral/mistral-small", api_key_env="MY_SERVER_KEY")
    monkeypatch.setenv("MISTRAL_API_KEY", "mistral-key-0123456789")
    LiteLLMModel("mistral/mistral-small")
    monkeypatch.setenv("GOOGLE_API_KEY", "google-key-0123456789")  # either of gemini's two
    LiteLLMModel("gemini/gemini-1.5-pro")
    assert offline == []


@pytest.mark.parametrize("model", ["ollama/llama3", "bedrock/anthropic.claude-v2",
                                   "vertex_ai/gemini-pro", "azure/my-deployment"])
def test_a_provider_that_may_need_no_key_variable_is_not_refused(
        offline: list[str], model: str) -> None:
    """Ollama has a default host; Bedrock reads AWS profiles and roles, Vertex Google's
    application credentials, Azure a base URL and version besides: LiteLLM lists variables
    there that are not keys, so nothing is refused before the call."""
    assert unset_key_variables(load_litellm("litellm/test"), model) == ()
    LiteLLMModel(model)
    assert offline == []


def test_a_key_that_litellm_finds_missing_at_the_call_ends_the_run_without_retry(
        offline: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """GEMINI_API_KEY set but empty passes the environment check (LiteLLM counts a set
    variable); at the call LiteLLM says "Missing Gemini API key" (as an HTTP 500, which was
    retried): now a UserError after one attempt, quoting LiteLLM."""
    monkeypatch.setenv("GEMINI_API_KEY", "")
    model = LiteLLMModel("gemini/gemini-1.5-pro")

    async def main() -> None:
        runner = Runner(Cache(tmp_path / "c.sqlite"),
                        retry=RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.02))
        try:
            await runner.generate(model, user("Name a prime number."))
        finally:
            await model.aclose()
            await runner.cache.aclose()

    with pytest.raises(UserError) as raised:
        asyncio.run(main())
    line = str(raised.value)
    assert "\n" not in line
    assert line.startswith("litellm/gemini/gemini-1.5-pro: LiteLLM has no key to send: "
                           "Missing Gemini API key")
    assert offline == ["acompletion gemini/gemini-1.5-pro"]  # one attempt, no request


def test_checking_every_provider_touches_no_network(offline: list[str]) -> None:
    """`validate_environment` resolves the provider; for GitHub Copilot and ChatGPT that is
    a login over the network, so they are never asked; every other provider LiteLLM knows is
    answered from the environment alone."""
    litellm = load_litellm("litellm/test")
    providers = sorted({str(getattr(p, "value", p)) for p in litellm.provider_list})
    assert set(providers) >= LOGIN_PROVIDERS
    unset = {p: unset_key_variables(litellm, f"{p}/some-model") for p in providers}
    assert offline == []
    assert unset["mistral"] == ("MISTRAL_API_KEY",)
    assert all(unset[p] == () for p in LOGIN_PROVIDERS)
    assert sum(bool(names) for names in unset.values()) > 20  # the check covers many


def test_check_key_refuses_as_making_the_model_would(
        offline: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`check_key`, for a command to ask before it makes a run folder: the same line as
    `LiteLLMModel(...)`, and nothing where the model could be made."""
    from verstehen.models.litellm_api import check_key

    with pytest.raises(UserError, match="MISTRAL_API_KEY is not set: export it to use "
                                        "litellm/mistral/mistral-small"):
        check_key("litellm/mistral/mistral-small")
    with pytest.raises(UserError, match="--api-key-env names MY_SERVER_KEY, which is not set"):
        check_key("litellm/mistral/mistral-small", "http://127.0.0.1:9/v1", "MY_SERVER_KEY")
    check_key("litellm/mistral/mistral-small", "http://127.0.0.1:9/v1")
    check_key("litellm/ollama/llama3")
    check_key("litellm/nonsense")  # malformed: opening the model says so
    monkeypatch.setenv("MISTRAL_API_KEY", "mistral-key-0123456789")
    check_key("litellm/mistral/mistral-small")
    assert offline == []


@pytest.mark.parametrize("command", [
    ["certify", "--model", "litellm/mistral/mistral-small", "--scope", "arithmetic"],
    ["audit", "--model", "litellm/mistral/mistral-small"],
])
def test_a_run_is_refused_before_its_folder_is_made(
        cli: Cli, offline: list[str], cli_env: dict[str, str], command: list[str]) -> None:
    done = cli(command)
    assert done.returncode == 2, done.stderr
    assert "MISTRAL_API_KEY is not set" in done.stderr
    assert offline == []
    runs = Path(cli_env["VERSTEHEN_RUNS_DIR"])
    assert not runs.exists() or not any(runs.iterdir())  # nothing to clean up or resume
