"""Where keys may go, for every provider and entry point (issue 43).

- A base URL from the environment (OPENAI_BASE_URL, OPENAI_API_BASE, ANTHROPIC_BASE_URL,
  ANTHROPIC_API_BASE, MISTRAL_API_BASE...) is a base URL like --base-url's: its server gets
  the key of --api-key-env or none, never the provider's own, for openai/, anthropic/ and
  litellm/ alike (before, litellm/ sent the provider's key there).
- A URL holding a user name or password is refused in one line (exit 2) wherever a URL is
  given: --base-url, @FILE, NAME@URL, --judge-base-url, the environment, the API; nothing is
  sent (before, they went as Basic auth in place of the key, and a 401 echoing the header
  stored base64(user:password) in the run's files).

The server (tests/models/hostile_http.py) answers every request with a chat completion and
keeps each request's headers; no network.
"""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from hostile_http import HostileServer, chat_with

import verstehen.models as models
from verstehen.errors import CallFailed, UserError
from verstehen.models import ProviderInfo, ProviderPlugin, get_model
from verstehen.models.anthropic_api import AnthropicModel
from verstehen.models.openai_api import OpenAIModel
from verstehen.models.transport import BoundedTransport

from conftest import Cli, cli_error

HAS_LITELLM = importlib.util.find_spec("litellm") is not None
needs_litellm = pytest.mark.skipif(not HAS_LITELLM, reason="the litellm extra is not installed")
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly. qualifier:UserWarning")

KEY = "sk-provider-own-key-0123456789"
SERVER_KEY = "server-key-of-mine-98765"
USER, PASSWORD = "alice", "hunter2pass"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()


@pytest.fixture
def server() -> Iterator[HostileServer]:
    """A server answering chat completions, keeping every request's headers."""
    with HostileServer(chat_with(content="42")) as running:
        yield running


def with_credentials(url: str) -> str:
    """`url` with the test's user name and password in it."""
    return url.replace("http://", f"http://{USER}:{PASSWORD}@")


def sent(server: HostileServer) -> str:
    """Every header value the server received, as one text."""
    return json.dumps(server.headers)


# (model, the variable its base URL is read from, the provider's own key variable)
ENV_BASES = [
    ("openai/m", "OPENAI_BASE_URL", "OPENAI_API_KEY"),
    ("anthropic/claude-x", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"),
    pytest.param("litellm/openai/m", "OPENAI_BASE_URL", "OPENAI_API_KEY", marks=needs_litellm),
    pytest.param("litellm/openai/m", "OPENAI_API_BASE", "OPENAI_API_KEY", marks=needs_litellm),
    pytest.param("litellm/anthropic/claude-x", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY",
                 marks=needs_litellm),
    pytest.param("litellm/anthropic/claude-x", "ANTHROPIC_API_BASE", "ANTHROPIC_API_KEY",
                 marks=needs_litellm),
    pytest.param("litellm/mistral/m", "MISTRAL_API_BASE", "MISTRAL_API_KEY",
                 marks=needs_litellm),
]


@pytest.mark.parametrize(("model", "variable", "key_variable"), ENV_BASES)
def test_an_environment_base_url_gets_no_provider_key(
        cli: Cli, server: HostileServer, monkeypatch: pytest.MonkeyPatch,
        model: str, variable: str, key_variable: str) -> None:
    """The provider's key is set, its base URL variable names the local server: the server
    is asked, and receives no key of the provider's."""
    monkeypatch.setenv(key_variable, KEY)
    monkeypatch.setenv(variable, server.url)
    done = cli(["ask", model, "hi", "--max-attempts", "1"])
    assert "Traceback" not in done.stderr, done.stderr
    assert server.requests >= 1, done.stderr
    assert KEY not in sent(server) and KEY[:12] not in sent(server)


@pytest.mark.parametrize(("model", "variable", "key_variable"), ENV_BASES)
def test_an_environment_base_url_gets_the_key_api_key_env_names(
        cli: Cli, server: HostileServer, monkeypatch: pytest.MonkeyPatch,
        model: str, variable: str, key_variable: str) -> None:
    monkeypatch.setenv(key_variable, KEY)
    monkeypatch.setenv("MY_SERVER_KEY", SERVER_KEY)
    monkeypatch.setenv(variable, server.url)
    cli(["ask", model, "hi", "--max-attempts", "1", "--api-key-env", "MY_SERVER_KEY"])
    assert server.requests >= 1
    assert SERVER_KEY in sent(server) and KEY not in sent(server)


@needs_litellm
def test_the_official_host_in_the_environment_is_the_providers_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """OPENAI_BASE_URL naming api.openai.com leaves LiteLLM its own key, as openai/ sends
    OPENAI_API_KEY there; any other host is a server of its own (no request is made)."""
    from verstehen.models.litellm_api import NO_KEY, LiteLLMModel

    monkeypatch.setenv("OPENAI_API_KEY", "sk-official-0123456789")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    official = LiteLLMModel("openai/gpt-4o-mini")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    elsewhere = LiteLLMModel("openai/gpt-4o-mini")
    assert "api_key" not in official._request([], models.GenerateParams())
    assert official.identity()["base_url"] == ""  # as without the variable: same cache key
    assert elsewhere._request([], models.GenerateParams())["api_key"] == NO_KEY
    assert elsewhere.identity()["base_url"] == "http://127.0.0.1:9/v1"


@needs_litellm
def test_which_variables_and_keys_are_looked_at(monkeypatch: pytest.MonkeyPatch) -> None:
    from verstehen.models.litellm_api import base_variables, withheld_keys

    assert base_variables("openai")[:2] == ("OPENAI_BASE_URL", "OPENAI_API_BASE")
    assert {"MISTRAL_API_BASE", "MISTRAL_BASE_URL"} <= set(base_variables("mistral"))
    assert "TOGETHERAI_API_BASE" in base_variables("together_ai")
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    monkeypatch.setenv("MY_SERVER_KEY", SERVER_KEY)
    monkeypatch.setenv("SHORT_TOKEN", "abc123")  # too short to tell from an ordinary header
    withheld = dict(withheld_keys(SERVER_KEY))
    assert withheld["GEMINI_API_KEY"] == KEY
    assert "MY_SERVER_KEY" not in withheld and "SHORT_TOKEN" not in withheld


@needs_litellm
def test_a_key_litellm_would_add_by_itself_is_not_sent_to_a_base_url(
        server: HostileServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Were LiteLLM to put a key from the environment in a request to a base URL's server
    (here through its global extra headers), the transport refuses the request unsent."""
    from verstehen.models.litellm_api import LiteLLMModel

    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    model = LiteLLMModel("openai/m", base_url=server.url)
    monkeypatch.setattr(model._litellm, "headers", {"x-goog-api-key": KEY})

    async def main() -> None:
        try:
            await model.generate(models.user("hi"), models.GenerateParams())
        finally:
            await model.aclose()

    with pytest.raises(CallFailed, match="refused to send the key in GEMINI_API_KEY") as caught:
        asyncio.run(main())
    assert server.requests == 0 and KEY not in str(caught.value)


# --- credentials in URLs: refused everywhere, before any request -------------------------

MODELS = ["openai/m", "anthropic/claude-x",
          pytest.param("litellm/openai/m", marks=needs_litellm)]


def refused(cli: Cli, args: list[str], server: HostileServer, *needles: str) -> str:
    """The one-line refusal (exit 2) of `args`; nothing reached the server, and neither the
    password nor its Basic form was printed."""
    line = cli_error(cli, args, "user name or password", "--api-key-env", *needles)
    assert PASSWORD not in line and BASIC not in line
    assert server.requests == 0
    return line


@pytest.mark.parametrize("model", MODELS)
def test_base_url_flag_with_credentials_is_refused(cli: Cli, server: HostileServer,
                                                    model: str) -> None:
    refused(cli, ["ask", model, "hi", "--base-url", with_credentials(server.url)], server,
            "--base-url", f"127.0.0.1:{server.port}")


def test_a_url_file_with_credentials_is_refused_naming_its_line(
        cli: Cli, server: HostileServer, tmp_path: Path) -> None:
    urls = tmp_path / "endpoints"
    urls.write_text(f"{server.url}\n{with_credentials(server.url)}\n")
    refused(cli, ["ask", "openai/m", "hi", "--base-url", f"@{urls}"], server, f"{urls}:2")


def test_name_at_url_and_judge_urls_with_credentials_are_refused(
        cli: Cli, server: HostileServer) -> None:
    bad = with_credentials(server.url)
    refused(cli, ["audit", "--model", f"openai/m@{bad}"], server, "openai/m")
    refused(cli, ["audit", "--judge", f"openai/j@{bad}"], server)
    refused(cli, ["audit", "--judge", "openai/j", "--judge-base-url", bad], server)


ENV_CREDENTIALS = [
    ("openai/m", "OPENAI_BASE_URL"),
    ("anthropic/claude-x", "ANTHROPIC_BASE_URL"),
    pytest.param("litellm/openai/m", "OPENAI_API_BASE", marks=needs_litellm),
    pytest.param("litellm/anthropic/claude-x", "ANTHROPIC_BASE_URL", marks=needs_litellm),
    pytest.param("litellm/mistral/m", "MISTRAL_API_BASE", marks=needs_litellm),
]


@pytest.mark.parametrize(("model", "variable"), ENV_CREDENTIALS)
def test_an_environment_base_url_with_credentials_is_refused(
        cli: Cli, server: HostileServer, monkeypatch: pytest.MonkeyPatch,
        model: str, variable: str) -> None:
    monkeypatch.setenv(variable, with_credentials(server.url))
    refused(cli, ["ask", model, "hi"], server, variable)


@pytest.mark.parametrize(("model", "variable"), ENV_CREDENTIALS)
def test_an_audit_refuses_them_before_its_run_folder_is_made(
        cli: Cli, server: HostileServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        model: str, variable: str) -> None:
    for key_variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MISTRAL_API_KEY"):
        monkeypatch.setenv(key_variable, KEY)
    monkeypatch.setenv(variable, with_credentials(server.url))
    refused(cli, ["audit", "--model", model, "--no-progress"], server, variable)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("model", MODELS)
def test_the_api_refuses_credentials_for_every_provider(server: HostileServer,
                                                        model: str) -> None:
    bad = with_credentials(server.url)
    with pytest.raises(UserError, match=r"user name or password.*--api-key-env") as caught:
        get_model(model, base_url=bad)
    assert PASSWORD not in str(caught.value)
    assert server.requests == 0


def test_the_api_refuses_credentials_in_replicas_and_provider_classes(
        server: HostileServer) -> None:
    bad = with_credentials(server.url)
    for make in (lambda: get_model("openai/m", base_url=[server.url, bad]),
                 lambda: OpenAIModel("m", base_url=[server.url, bad]),
                 lambda: AnthropicModel("claude-x", base_url=bad)):
        with pytest.raises(UserError, match="user name or password"):
            make()
    assert server.requests == 0


def test_a_plugin_provider_never_gets_a_url_with_credentials(
        server: HostileServer, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[object] = []
    plugin = ProviderPlugin(ProviderInfo("echo", "echo/x", None, "generate"),
                            lambda model, settings: made.append(settings))  # type: ignore[arg-type,func-returns-value]
    monkeypatch.setattr(models, "provider_plugin", lambda name: plugin)
    monkeypatch.setattr(models, "split_name", lambda name: tuple(name.split("/", 1)))
    with pytest.raises(UserError, match="user name or password"):
        get_model("echo/x", base_url=with_credentials(server.url))
    assert made == []


def test_the_library_api_refuses_credentials(server: HostileServer, tmp_path: Path) -> None:
    import verstehen.api as vs

    with pytest.raises(UserError, match="user name or password"):
        vs.certify("openai/m", "arithmetic", questions=8, pg=0.6, rid=0.4,
                   base_url=with_credentials(server.url), runs_dir=tmp_path / "runs",
                   cache=tmp_path / "c.sqlite", progress=False)
    assert server.requests == 0


def test_the_transports_never_send_a_url_with_credentials(server: HostileServer) -> None:
    """The last guard, below every entry point: a request whose URL holds credentials is
    refused by the transport itself."""
    async def through_sdk_transport() -> None:
        transport = BoundedTransport(5.0)
        try:
            await transport.handle_async_request(
                httpx2.Request("POST", with_credentials(server.url) + "/chat/completions"))
        finally:
            await transport.aclose()

    with pytest.raises(CallFailed, match="never sent"):
        asyncio.run(through_sdk_transport())
    if HAS_LITELLM:
        from verstehen.models.litellm_transport import LiteLLMTransport

        async def through_litellm_transport() -> None:
            transport = LiteLLMTransport()
            try:
                await transport.handle_async_request(
                    httpx.Request("POST", with_credentials(server.url) + "/chat/completions"))
            finally:
                await transport.aclose()

        with pytest.raises(CallFailed, match="never sent"):
            asyncio.run(through_litellm_transport())
    assert server.requests == 0
