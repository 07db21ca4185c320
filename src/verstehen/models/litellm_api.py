"""The hosted providers LiteLLM reaches (Gemini, Bedrock, Vertex, Mistral, Together, Groq,
Ollama...), named `litellm/<provider>/<model>`: one `litellm.acompletion` per attempt, with
the engine's cache, retries, concurrency and usage around it as for any other provider.

LiteLLM's own retries are off (the engine retries), and so is its network at import
(`models/litellm_runtime.py`). Its errors are the openai SDK's with a status code, mapped as
the other providers map theirs: 408, 429 and 5xx and dropped connections are retried, other
refusals fail the call.
"""

from __future__ import annotations

import asyncio
from typing import NotRequired, TypedDict

from verstehen.errors import TransientError, UnsupportedCapability, UserError
from verstehen.models.base import Capabilities, Completion, GenerateParams, Message
from verstehen.models.litellm_runtime import known_provider, load_litellm, release
from verstehen.models.openai_api import completion_of
from verstehen.models.remote import (
    DEFAULT_TIMEOUT,
    api_key,
    classify_sdk_error,
    effective_budget,
    public_url,
)
from verstehen.models.replies import as_object

EXAMPLE = "litellm/gemini/gemini-1.5-pro or litellm/openai/gpt-4o-mini"
# sent to a server named by base_url when no key variable is named, so that LiteLLM does not
# send it the provider's own key from the environment (a local server must not get a paid key)
NO_KEY = "no-key"


class CompletionRequest(TypedDict):
    """The keyword arguments of one `litellm.acompletion` (LiteLLM's and its own retries off)."""

    model: str
    messages: list[Message]
    temperature: float
    max_tokens: int
    seed: int
    timeout: float
    num_retries: int
    max_retries: int
    drop_params: bool
    stop: NotRequired[list[str]]
    api_base: NotRequired[str]  # with base_url: the server to reach
    api_key: NotRequired[str]


class LiteLLMModel:
    """A chat model LiteLLM routes by `<provider>/<model>` (e.g. "gemini/gemini-1.5-pro").

    Without `base_url` LiteLLM reaches the provider's own API with the key in the provider's
    own variable (GEMINI_API_KEY, AWS_* for Bedrock...). With `base_url` (LiteLLM's
    `api_base`) the server gets the key in the variable `api_key_env` names, or none.
    `timeout` bounds one attempt (seconds). Parameters a provider does not take (a seed, for
    some) are dropped by LiteLLM, so there only the cache reproduces samples. Generation only.
    """

    max_connections = 8
    _open = 0  # models of this class not yet closed: the last to close releases LiteLLM's

    def __init__(
        self, model: str, *, base_url: str | None = None, timeout: float | None = None,
        api_key_env: str | None = None, reasoning_budget: int | None = None,
    ) -> None:
        self.name = f"litellm/{model}"
        provider, slash, served = model.partition("/")
        if not slash or not provider or not served.strip():
            raise UserError(f"malformed model name {self.name!r}: write "
                            f"litellm/<provider>/<model>, e.g. {EXAMPLE}")
        if effective_budget(reasoning_budget, None):
            raise UserError(f"{self.name}: litellm/ models take no --reasoning-budget (use "
                            "openai/ or anthropic/ for a reasoning budget)")
        self._litellm = load_litellm(self.name)
        if not known_provider(self._litellm, provider):
            raise UserError(f"LiteLLM has no provider {provider!r} (in {self.name!r}): write "
                            f"litellm/<provider>/<model>, e.g. {EXAMPLE}")
        self.model = model
        self.base_url = base_url or None
        self.timeout = timeout or DEFAULT_TIMEOUT
        self._key = (api_key("", "", self.base_url, api_key_env, "litellm")
                     if api_key_env else None)
        self.capabilities = Capabilities(generate=True, logprobs=False,
                                         note="generation only: LiteLLM gives no prompt logprobs")
        self._closed = False
        type(self)._open += 1

    def identity(self) -> dict[str, str]:
        """Provider ("litellm"), the LiteLLM model name and the base URL ("" for LiteLLM's
        default endpoint of the provider)."""
        return {"provider": "litellm", "model": self.model,
                "base_url": public_url(self.base_url) if self.base_url else ""}

    def _request(self, messages: list[Message], params: GenerateParams) -> CompletionRequest:
        """The keyword arguments of one `litellm.acompletion`."""
        request: CompletionRequest = {
            "model": self.model, "messages": [m.copy() for m in messages],
            "temperature": params.temperature, "max_tokens": params.max_tokens,
            "seed": params.seed, "timeout": self.timeout,
            "num_retries": 0, "max_retries": 0, "drop_params": True,
        }
        if params.stop:
            request["stop"] = list(params.stop)
        if self.base_url:
            request["api_base"] = self.base_url
            request["api_key"] = self._key or NO_KEY
        elif self._key:
            request["api_key"] = self._key
        return request

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """One chat completion through LiteLLM; TransientError for faults worth retrying."""
        try:
            reply = await asyncio.wait_for(
                self._litellm.acompletion(**self._request(messages, params)), self.timeout)
        except asyncio.TimeoutError:
            raise TransientError(f"no reply within {self.timeout:g} s") from None
        except Exception as exc:  # LiteLLM's errors (openai SDK classes), mapped
            raise classify_sdk_error(exc, self._key) from exc
        return completion_of(as_object(_plain(reply), "the reply"))

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """Not offered through LiteLLM."""
        raise UnsupportedCapability(
            f"{self.name} cannot score continuations (LiteLLM gives no prompt logprobs): use "
            "local/, or openai/ with --base-url of a server that echoes them (vLLM, llama.cpp)")

    async def aclose(self) -> None:
        """The last litellm/ model to close releases LiteLLM's clients on this event loop."""
        if self._closed:
            return
        self._closed = True
        type(self)._open -= 1
        if type(self)._open == 0:
            await release(self._litellm)


def _plain(reply: object) -> object:
    """LiteLLM's reply object as plain JSON-like data (its pydantic `model_dump`)."""
    dump = getattr(reply, "model_dump", None)
    return dump() if callable(dump) else reply
