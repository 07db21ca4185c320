"""The hosted providers LiteLLM reaches (Gemini, Bedrock, Vertex, Mistral, Together, Groq,
Ollama...), named `litellm/<provider>/<model>`: one `litellm.acompletion` per attempt, with
the engine's cache, retries, concurrency and usage around it as for any other provider.

LiteLLM's own retries are off (the engine retries), and so is its network at import
(`models/litellm_runtime.py`). Every request goes through our transport
(`models/litellm_transport.py`: the reply's size, decompression and time bounded as for
openai/, no key where it was not given for). Its errors are the openai SDK's with a status
code, mapped as the other providers map theirs: 408, 429 and 5xx and dropped connections are
retried, other refusals fail the call.

A base URL, given or read from the environment where LiteLLM would read it (OPENAI_BASE_URL,
OPENAI_API_BASE, ANTHROPIC_BASE_URL, MISTRAL_API_BASE...), gets the key of --api-key-env or
none, as for openai/: only the official host of openai and anthropic gets their own key.
Without either, a provider whose key LiteLLM reads from variables none of which is set
(`litellm.validate_environment`, which reads the environment only) is refused in one line when
the model is made, as openai/ is without OPENAI_API_KEY; a call LiteLLM refuses for want of a
key before sending it ends the run in one line too (UserError: never retried).

A parameter LiteLLM sends that the provider refuses with a 400 naming it, which `drop_params`
did not know to drop (`temperature` to Claude Opus 4.7, `stop` to o3), is dropped for the rest
of the model's life (`max_tokens` is replaced by `max_completion_tokens`, system messages go
first in the user's message, stop sequences are cut here), said once and kept in the model's
notes, and the refused call is sent again at once (`models/refusals.py`).
"""

from __future__ import annotations

import asyncio
import os
import re
from types import ModuleType
from typing import NotRequired, TypedDict
from urllib.parse import urlparse

from verstehen.errors import CallFailed, TransientError, UnsupportedCapability, UserError
from verstehen.models.base import Capabilities, Completion, GenerateParams, Message
from verstehen.models.litellm_runtime import (
    known_provider,
    load_litellm,
    release,
    unset_key_variables,
)
from verstehen.models.litellm_transport import CallRules, call_rules
from verstehen.models.refusals import (
    MAX_TOKENS,
    SEED,
    STOP,
    SYSTEM,
    TEMPERATURE,
    FirstCall,
    Learned,
    cut_at_stop,
    refused_parameter,
    refused_why,
    system_in_user_turn,
)
from verstehen.models.remote import (
    DEFAULT_TIMEOUT,
    KEY_OF,
    api_key,
    classify_sdk_error,
    effective_budget,
    env_base_url,
    public_url,
    redact,
    refuse_credentials,
)
from verstehen.models.replies import as_object, completion_of

EXAMPLE = "litellm/gemini/gemini-1.5-pro or litellm/openai/gpt-4o-mini"
# sent to a server named by base_url when no key variable is named, so that LiteLLM does not
# send it the provider's own key from the environment (a local server must not get a paid key)
NO_KEY = "no-key"
# where LiteLLM reads a provider's base URL besides <PROVIDER>_API_BASE and <PROVIDER>_BASE_URL,
# in the order it reads them
BASE_VARIABLES = {
    "openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "text-completion-openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "anthropic": ("ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL"),
    "together_ai": ("TOGETHER_AI_API_BASE", "TOGETHERAI_API_BASE"),
    "fireworks_ai": ("FIREWORKS_API_BASE", "FIREWORKS_AI_API_BASE"),
    "huggingface": ("HUGGINGFACE_API_BASE", "HF_API_BASE"),
    "vertex_ai": ("VERTEXAI_API_BASE", "VERTEX_API_BASE"),
    "watsonx": ("WATSONX_URL", "WX_URL", "WML_URL", "WATSONX_API_BASE"),
    "bedrock": ("AWS_BEDROCK_RUNTIME_ENDPOINT", "BEDROCK_API_BASE"),
    "friendliai": ("FRIENDLI_API_BASE",),
}
# the providers whose own host may get the key LiteLLM reads for them from the environment
OFFICIAL_HOST = {"openai": KEY_OF["openai"][1], "text-completion-openai": KEY_OF["openai"][1],
                 "anthropic": KEY_OF["anthropic"][1]}
# variables whose value a base URL's server must not get (keys LiteLLM may read by itself)
SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)$")
# providers LiteLLM reaches by another HTTP client than the one it builds on our transport
UNBOUNDED = {"aiohttp_openai"}
# how LiteLLM's providers say they found no key ("Missing Gemini API key", "Missing Anthropic
# API Key", "Missing credentials"): raised at the call, as an HTTP 500 by some
MISSING_KEY = re.compile(r"\bMissing\b[^.\n]{0,40}?\b(API[ _-]?key|credentials)\b",
                         re.IGNORECASE)


class CompletionRequest(TypedDict):
    """The keyword arguments of one `litellm.acompletion` (LiteLLM's and its own retries off)."""

    model: str
    messages: list[Message]
    temperature: NotRequired[float]  # each NotRequired: none once the provider refused it
    max_tokens: NotRequired[int]
    max_completion_tokens: NotRequired[int]
    seed: NotRequired[int]
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
    `api_base`), or one from the environment, the server gets the key in the variable
    `api_key_env` names, or none (the official host of openai and anthropic: their own).
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
        if provider in UNBOUNDED:
            raise UserError(f"{self.name}: LiteLLM's {provider} provider sends outside the "
                            "limits verstehen puts on replies: use litellm/openai/<model> with "
                            "--base-url instead")
        self.model = model
        if base_url:
            refuse_credentials(base_url)
        official = OFFICIAL_HOST.get(provider)
        self.base_url = base_url or env_elsewhere(provider)
        self.timeout = timeout or DEFAULT_TIMEOUT
        self._key = (api_key("", "", self.base_url, api_key_env, "litellm")
                     if api_key_env else None)
        if not self.base_url and not self._key:
            refuse_unset_key(self._litellm, self.name, model)
        # a server other than the provider's own: the key named, or none, and no other key
        self._elsewhere = bool(self.base_url) and urlparse(self.base_url).hostname != official
        self._withheld = withheld_keys(self._key) if self._elsewhere else ()
        self.capabilities = Capabilities(generate=True, logprobs=False,
                                         note="generation only: LiteLLM gives no prompt logprobs")
        self.learned = Learned()  # what the provider refused, and what is sent instead
        self.first = FirstCall()
        self._closed = False
        type(self)._open += 1

    def identity(self) -> dict[str, str]:
        """Provider ("litellm"), the LiteLLM model name and the base URL ("" for LiteLLM's
        default endpoint of the provider)."""
        return {"provider": "litellm", "model": self.model,
                "base_url": public_url(self.base_url) if self.base_url else ""}

    def notes(self) -> tuple[str, ...]:
        """What a run's reader must know about how this model is asked (what its provider
        refused and what was sent instead)."""
        return self.learned.notes()

    def _request(self, messages: list[Message], params: GenerateParams) -> CompletionRequest:
        """The keyword arguments of one `litellm.acompletion`, without what the provider
        refused."""
        learned = self.learned
        request: CompletionRequest = {
            "model": self.model, "timeout": self.timeout, "messages": (
                system_in_user_turn(messages) if SYSTEM in learned
                else [m.copy() for m in messages]),
            "num_retries": 0, "max_retries": 0, "drop_params": True,
        }
        if MAX_TOKENS in learned:
            request["max_completion_tokens"] = params.max_tokens
        else:
            request["max_tokens"] = params.max_tokens
        if TEMPERATURE not in learned:
            request["temperature"] = params.temperature
        if SEED not in learned:
            request["seed"] = params.seed
        if params.stop and STOP not in learned:
            request["stop"] = list(params.stop)
        if self.base_url:
            request["api_base"] = self.base_url
        if self._elsewhere:
            request["api_key"] = self._key or NO_KEY
        elif self._key:
            request["api_key"] = self._key
        return request

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """One chat completion through LiteLLM and our transport (a 400 refusing a parameter:
        dropped, sent again at once); until one call has ended, calls go one at a time."""
        async def call() -> Completion:
            while (done := await self._once(self._request(messages, params))) is None:
                pass
            return done if STOP not in self.learned else cut_at_stop(done, params.stop)

        return await self.first.run(call)

    async def _once(self, request: CompletionRequest) -> Completion | None:
        """One `litellm.acompletion`; None when the provider refused a parameter, now dropped
        or replaced (send it again)."""
        with call_rules(CallRules(self.timeout, self._withheld)) as seen:
            try:
                reply = await asyncio.wait_for(
                    self._litellm.acompletion(**request), self.timeout)
            except asyncio.TimeoutError:
                raise TransientError(f"Timeout: no whole reply within {self.timeout:g} s "
                                     "(the server is silent or sends too slowly)") from None
            except Exception as exc:  # LiteLLM's errors (openai SDK classes), mapped
                if seen.fault is not None:  # ours, however LiteLLM wrapped it
                    raise seen.fault from exc
                if not seen.requests and (said := missing_key(str(exc))):
                    # no call can succeed: one line, and the run ends (no retry)
                    raise UserError(f"{self.name}: LiteLLM has no key to send: {said}") from None
                if self._learn(exc, request):
                    return None
                raise classify_sdk_error(exc, self._key) from exc
        if not seen.requests:
            raise CallFailed(f"{self.name}: LiteLLM answered without sending through "
                             "verstehen's transport, so its reply is not taken")
        return completion_of(as_object(_plain(reply), "the reply"))

    def _learn(self, exc: BaseException, request: CompletionRequest) -> bool:
        """True when `exc` is a 400 refusing a parameter `request` carried, now dropped or
        replaced; False for any other error."""
        system = any(m["role"] == "system" for m in request["messages"])
        sent = [name for name, present in (
            (MAX_TOKENS, "max_tokens" in request), (TEMPERATURE, "temperature" in request),
            (STOP, "stop" in request), (SEED, "seed" in request), (SYSTEM, system)) if present]
        refused = refused_parameter(exc, sent)
        if refused is None:
            return False
        server = public_url(self.base_url) if self.base_url else self.model.partition("/")[0]
        said = {MAX_TOKENS: "max_completion_tokens is sent instead",
                TEMPERATURE: "no temperature is sent: it samples at the provider's default, so "
                             "its answers are samples, not greedy, and only the cache "
                             "reproduces them",
                STOP: "no stop sequences are sent: its replies are cut at them here",
                SEED: "no seed is sent: only the cache reproduces its samples",
                SYSTEM: "its system messages go first in the user's message"}[refused]
        self.learned.record(refused, f"{self.name}: {refused_why(server, refused)}, so {said}")
        return True

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


def env_elsewhere(provider: str) -> str | None:
    """The base URL LiteLLM would read from the environment for `provider`, unless it is the
    provider's own host (which LiteLLM reads there itself)."""
    from_env = env_base_url(*base_variables(provider))
    if from_env and urlparse(from_env).hostname == OFFICIAL_HOST.get(provider):
        return None
    return from_env


def check_key(name: str, base_url: str | None = None, api_key_env: str | None = None) -> None:
    """The refusal `LiteLLMModel(...)` would make of `name` ("litellm/<provider>/<model>") for
    want of a key, before any run folder is made (as `check_openable` does for openai/)."""
    provider, slash, served = name.removeprefix("litellm/").partition("/")
    if not (slash and provider and served.strip()):
        return  # malformed: opening the model says so
    litellm = load_litellm(name)
    if api_key_env:
        api_key("", "", base_url, api_key_env, "litellm")
    elif known_provider(litellm, provider) and not (base_url or env_elsewhere(provider)):
        refuse_unset_key(litellm, name, name.removeprefix("litellm/"))


def refuse_unset_key(litellm: ModuleType, name: str, model: str) -> None:
    """UserError, one line, when LiteLLM reads the provider's key from variables none of which
    is set (as openai/ without OPENAI_API_KEY): no call is made that cannot succeed."""
    unset = unset_key_variables(litellm, model)
    if not unset:
        return
    where = f"(LiteLLM reads the key of {model.split('/')[0]}/ models there)"
    if len(unset) == 1:
        raise UserError(f"{unset[0]} is not set: export it to use {name} {where}")
    raise UserError(f"none of {', '.join(unset)} is set: export one of them to use {name} "
                    f"{where}")


def missing_key(message: str) -> str | None:
    """LiteLLM's words that it found no key (from "Missing" to the end of that line, at most
    300 characters, control characters escaped); None when the message says no such thing."""
    found = MISSING_KEY.search(message)
    if found is None:
        return None
    return redact(message[found.start():].splitlines()[0], None)[:300]


def base_variables(provider: str) -> tuple[str, ...]:
    """The environment variables LiteLLM may read `provider`'s base URL from, in its order."""
    stem = re.sub(r"[^A-Z0-9]", "_", provider.upper())
    named = (*BASE_VARIABLES.get(provider, ()), f"{stem}_API_BASE", f"{stem}_BASE_URL")
    return tuple(dict.fromkeys(named))


def withheld_keys(allowed: str | None) -> tuple[tuple[str, str], ...]:
    """The (variable, value) of the environment's keys, tokens and secrets but `allowed`:
    what a base URL's server must not be sent (values under 16 characters, no provider's
    key, are left out: they could be part of an ordinary header)."""
    return tuple((name, value.strip()) for name, value in sorted(os.environ.items())
                 if SECRET_NAME.search(name.upper()) and len(value.strip()) >= 16
                 and value.strip() != allowed)


def _plain(reply: object) -> object:
    """LiteLLM's reply object as plain JSON-like data (its pydantic `model_dump`)."""
    dump = getattr(reply, "model_dump", None)
    return dump() if callable(dump) else reply
