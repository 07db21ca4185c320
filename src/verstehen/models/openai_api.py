"""OpenAI and every OpenAI-compatible server (vLLM, SGLang, llama.cpp server, Ollama).

One model may have several endpoints (replicas of the same weights): each call goes to the
live one with the fewest calls in flight (`models/endpoints.py`). Prompt log-probabilities are
asked for the way the server kind answers them (`models/servers.py`).
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Sequence
from typing import Any

import openai

from verstehen.errors import CallFailed, TransientError, UnsupportedCapability
from verstehen.models.base import (
    Capabilities,
    Completion,
    EndpointUsage,
    GenerateParams,
    Message,
    Usage,
    split_trailing_space,
)
from verstehen.models.endpoints import (
    Endpoint,
    EndpointPool,
    endpoint_list,
    pool_identity,
)
from verstehen.models.remote import DEFAULT_TIMEOUT, api_key, classify_sdk_error, public_url
from verstehen.models.servers import (
    check_kind,
    echo_tokens,
    find_bos,
    kind_from_owners,
    vllm_prompt_tokens,
)

NO_LOGPROBS = (
    "{server} gave no prompt log-probabilities for {model}: exact logprobs need a server "
    "that echoes them on /completions (vLLM, llama.cpp server); use local/ with a GGUF "
    "file, or pick answers by generation instead"
)
UNSUPPORTED_STATUS = {400, 404, 405, 422, 501}


class Client:
    """One endpoint's SDK client and the key it sends (hidden in error texts)."""

    __slots__ = ("key", "sdk")

    def __init__(self, sdk: openai.AsyncOpenAI, key: str | None) -> None:
        self.sdk, self.key = sdk, key


class OpenAIModel:
    """A chat model behind the official openai SDK; our engine does the retries.

    OPENAI_API_KEY goes to api.openai.com only; another server gets the key in the variable
    `api_key_env` names, or none. `timeout` bounds one attempt's wait for a reply (seconds).
    Several base URLs are replicas of one model, each with at most `endpoint_limit` calls in
    flight (default 8); `server_kind` says how the server gives prompt log-probabilities
    (None: asked of its /v1/models on the first likelihood call).
    """

    max_connections = 8

    def __init__(
        self, model: str, *, base_url: str | Sequence[str] | None = None,
        timeout: float | None = None, api_key_env: str | None = None,
        server_kind: str | None = None, endpoint_limit: int | None = None,
    ) -> None:
        self.name = f"openai/{model}"
        self.model = model
        urls = endpoint_list(base_url) or endpoint_list(os.environ.get("OPENAI_BASE_URL") or None)
        self.base_urls = urls
        self.base_url = urls[0] if urls else None
        try:
            self.server_kind = check_kind(server_kind)
        except ValueError as exc:
            raise UnsupportedCapability(str(exc)) from None
        clients = [(url or "", self._connect(url, timeout, api_key_env))
                   for url in urls or (None,)]
        self._client, self._key = clients[0][1].sdk, clients[0][1].key
        limit = endpoint_limit or type(self).max_connections
        self.endpoint_count = len(clients)
        if len(clients) > 1:
            self.max_connections = limit * len(clients)
        self._pool = EndpointPool(clients, limit)
        url = (pool_identity(urls) if len(urls) > 1
               else public_url(self.base_url or "https://api.openai.com/v1"))
        self._identity = {"provider": "openai", "model": model, "base_url": url}
        self._bos: str | None = None
        self._probing: tuple[object, asyncio.Lock] = (None, asyncio.Lock())
        self.capabilities = Capabilities(
            generate=True,
            logprobs=bool(urls),
            note="logprobs only where the server echoes prompt log-probabilities",
        )

    @staticmethod
    def _connect(url: str | None, timeout: float | None, api_key_env: str | None) -> Client:
        key = api_key("OPENAI_API_KEY", "api.openai.com", url, api_key_env, "openai")
        sdk = openai.AsyncOpenAI(api_key=key or "no-key", base_url=url, max_retries=0,
                                 timeout=timeout or DEFAULT_TIMEOUT)
        return Client(sdk, key)

    def identity(self) -> dict[str, str]:
        """Provider, model and base URL (several: sorted, space-separated; whichever replica
        answers, the key is the same)."""
        return dict(self._identity)

    def endpoint_usage(self) -> tuple[EndpointUsage, ...]:
        """Calls, errors, peak in flight and times down of each endpoint (none for one)."""
        return self._pool.usage() if self.endpoint_count > 1 else ()

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """One chat completion."""
        extra: dict[str, Any] = {"stop": list(params.stop)} if params.stop else {}

        async def on(endpoint: Endpoint[Client]) -> Any:
            client = endpoint.client
            try:
                return await client.sdk.chat.completions.create(
                    model=self.model,
                    messages=list(messages),  # type: ignore[arg-type]
                    temperature=params.temperature,
                    max_tokens=params.max_tokens,
                    seed=params.seed,
                    **extra,
                )
            except Exception as exc:  # the SDK's errors, mapped to retry or give up
                raise classify_sdk_error(exc, client.key) from exc

        out = await self._pool.call(on)
        if not out.choices:
            raise CallFailed("the server answered with no choices")
        choice = out.choices[0]
        usage = out.usage
        return Completion(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason,
            usage=Usage(
                usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0
            ),
        )

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """Exact scores from /completions with echo; UnsupportedCapability where absent."""
        kind, bos = await self._server()
        return [await self._score(context, c, kind, bos) for c in continuations]

    async def _server(self) -> tuple[str, str]:
        """The server kind and the BOS text to put first (found once, on the first call)."""
        if self.server_kind != "auto" and (self.server_kind != "llamacpp" or self._bos is not None):
            return self.server_kind, self._bos or ""
        loop = asyncio.get_running_loop()
        if self._probing[0] is not loop:  # a lock serves the loop it was made on
            self._probing = (loop, asyncio.Lock())
        async with self._probing[1]:
            if self.server_kind == "auto":
                self.server_kind = await self._pool.call(self._kind_of)
            if self.server_kind == "llamacpp" and self._bos is None:
                self._bos = await find_bos(self._probe)
        return self.server_kind, self._bos or ""

    async def _kind_of(self, endpoint: Endpoint[Client]) -> str:
        try:
            listing = await endpoint.client.sdk.models.list()
        except Exception as exc:
            mapped = classify_sdk_error(exc, endpoint.client.key)
            if isinstance(mapped, TransientError):
                raise mapped from exc
            return "openai"  # no /models: a server of no kind we know
        return kind_from_owners([getattr(m, "owned_by", None) for m in listing.data])

    async def _probe(self, prompt: str) -> tuple[list[str], int]:
        """The echoed tokens of `prompt` and the prompt tokens the server counted."""
        out = await self._pool.call(lambda endpoint: self._complete(endpoint, prompt, "llamacpp"))
        choice = out.choices[0].model_dump() if out.choices else {}
        echoed = echo_tokens(choice)
        if echoed is None or out.usage is None:
            raise self._unsupported()
        return echoed[0], out.usage.prompt_tokens

    async def _complete(self, endpoint: Endpoint[Client], prompt: str, kind: str) -> Any:
        client = endpoint.client
        extra = {"prompt_logprobs": 1, "return_token_ids": True} if kind == "vllm" else None
        try:
            return await client.sdk.completions.create(
                model=self.model, prompt=prompt, echo=True, logprobs=1, max_tokens=1,
                temperature=0.0, extra_body=extra,
            )
        except Exception as exc:
            mapped = classify_sdk_error(exc, client.key)
            if getattr(exc, "status_code", None) in UNSUPPORTED_STATUS:
                raise self._unsupported() from exc
            raise mapped from exc

    async def _score(self, context: str, continuation: str, kind: str, bos: str) -> float:
        context, continuation = split_trailing_space(context, continuation)
        if bos and not context.startswith(bos):
            context = bos + context
        prompt = context + continuation
        out = await self._pool.call(lambda endpoint: self._complete(endpoint, prompt, kind))
        choice = out.choices[0].model_dump() if out.choices else {}
        scored = (vllm_prompt_tokens(choice, prompt) if kind == "vllm" else None) or (
            echo_tokens(choice))
        if scored is None:
            raise self._unsupported()
        return continuation_logprob(*scored, prompt, len(continuation))

    def _unsupported(self) -> UnsupportedCapability:
        server = public_url(self.base_url or "api.openai.com")
        return UnsupportedCapability(NO_LOGPROBS.format(server=server, model=self.name))

    async def aclose(self) -> None:
        """Close the HTTP clients."""
        for endpoint in self._pool.endpoints:
            await endpoint.client.sdk.close()


def continuation_logprob(
    tokens: list[str], values: list[float | None], prompt: str, continuation_chars: int
) -> float:
    """Sum the echoed log-probs of the tokens that spell the prompt's last characters.

    Servers differ in what they echo: a leading BOS may be left out or added, and a
    generated token may follow. The echoed prompt is the longest run of leading tokens whose
    text is a suffix of the prompt, or ends with it; the continuation is its tail.
    """
    echoed = "".join(tokens)
    cut = list(itertools.accumulate((len(t) for t in tokens), initial=0))
    # the echo may lack a leading special token (llama.cpp) or add a BOS of its own (vLLM)
    end = next(e for e in range(len(tokens), -1, -1)
               if prompt.endswith(echoed[: cut[e]]) or echoed[: cut[e]].endswith(prompt))
    boundary = cut[end] - continuation_chars
    if boundary < 0:
        raise CallFailed("the server echoed less of the prompt than the continuation")
    start = next((i for i in range(end + 1) if cut[i] == boundary), None)
    if start is None:
        raise CallFailed("a token spans the context/continuation boundary; not exact")
    picked = values[start:end]
    if any(v is None for v in picked):
        raise CallFailed("the server gave no log-probability for a continuation token")
    return float(sum(picked))  # type: ignore[arg-type]
