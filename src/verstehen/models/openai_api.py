"""OpenAI and every OpenAI-compatible server (vLLM, SGLang, llama.cpp server, Ollama).

One model may have several endpoints (replicas of the same weights): each call goes to the
live one with the fewest calls in flight (`models/endpoints.py`). Prompt log-probabilities are
asked for the way the server kind answers them (`models/servers.py`).

Reasoning models (OpenAI's o1, o3, o4-mini and gpt-5 families) take `max_completion_tokens`,
which counts their hidden reasoning too, and no temperature but 1; gpt-5.1 and later take a
temperature, since they reason only when asked. On api.openai.com a family is known by name; on
any server a 400 refusing `max_tokens`, `temperature`, `stop` or the system role changes that
parameter for the rest of the model's life, and the refused call is sent again at once
(`models/chat_request.py`).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from dataclasses import replace
from urllib.parse import urlparse

import openai

from verstehen.errors import CallFailed, TransientError, UnsupportedCapability
from verstehen.models.base import (
    Capabilities,
    Completion,
    EndpointUsage,
    GenerateParams,
    Message,
    split_trailing_space,
)
from verstehen.models.chat_request import ChatAsking
from verstehen.models.endpoints import (
    Endpoint,
    EndpointPool,
    describe_endpoint,
    endpoint_list,
    pool_identity,
)
from verstehen.models.remote import (
    DEFAULT_REASONING_BUDGET,
    DEFAULT_TIMEOUT,
    KEY_OF,
    api_key,
    classify_sdk_error,
    effective_budget,
    env_base_url,
    public_url,
    reasoning_by_name,
    refuse_credentials,
)
from verstehen.models.replies import (
    completion_of,
    first_of,
    logprob,
    optional_object,
    reply_object,
    token_count,
)
from verstehen.models.servers import (
    PROBE,
    check_kind,
    echo_tokens,
    find_bos,
    kind_from_owners,
    vllm_prompt_tokens,
    warn_unlisted,
)
from verstehen.models.transport import bounded_client

NO_LOGPROBS = (
    "{server} gave no prompt log-probabilities for {model}: exact logprobs need a server "
    "that echoes them on /completions (vLLM, llama.cpp server), or local/ with a GGUF file"
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
    (None: asked of its /v1/models on the first likelihood call). A reply must be whole
    within `timeout` and at most MAX_REPLY_BYTES, and of the shape expected
    (`models/replies.py`); one that is not is a transient fault of its endpoint.

    `reasoning_budget` is the tokens a reply may spend reasoning on top of the answer budget
    (`GenerateParams.max_tokens`): sent in `max_completion_tokens` to a reasoning model, in
    `max_tokens` to another (a server with a reasoning parser counts its reasoning there).
    Reasoning models by name default to DEFAULT_REASONING_BUDGET, others to none; 0 is none.
    A budget is part of the identity; no budget leaves the identity as it always was.
    """

    max_connections = 8

    def __init__(
        self, model: str, *, base_url: str | Sequence[str] | None = None,
        timeout: float | None = None, api_key_env: str | None = None,
        server_kind: str | None = None, endpoint_limit: int | None = None,
        reasoning_budget: int | None = None,
    ) -> None:
        self.name = f"openai/{model}"
        self.model = model
        # OPENAI_BASE_URL (which the SDK would read) is a base URL as --base-url's is
        urls = endpoint_list(base_url) or endpoint_list(env_base_url("OPENAI_BASE_URL"))
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
        known = reasoning_by_name(model)
        self.reasoning_budget = effective_budget(
            reasoning_budget, DEFAULT_REASONING_BUDGET if known else None)
        if self.reasoning_budget is not None:
            self._identity["reasoning_budget"] = str(self.reasoning_budget)
        # a family's parameters from the first call: by name, on OpenAI's own API only
        self.asking = ChatAsking(self.name, model, self.reasoning_budget, all(
            urlparse(u).hostname == "api.openai.com" for u in urls))
        self._bos: str | None = None
        self._probing: tuple[object, asyncio.Lock] = (None, asyncio.Lock())
        self.capabilities = Capabilities(
            generate=True,
            logprobs=bool(urls),
            note="logprobs only where the server echoes prompt log-probabilities",
        )

    @staticmethod
    def _connect(url: str | None, timeout: float | None, api_key_env: str | None) -> Client:
        if url is not None:
            refuse_credentials(url)
        key = api_key(*KEY_OF["openai"], url, api_key_env, "openai")
        deadline = timeout or DEFAULT_TIMEOUT
        sdk = openai.AsyncOpenAI(api_key=key or "no-key", base_url=url, max_retries=0,
                                 timeout=deadline, http_client=bounded_client(deadline))
        return Client(sdk, key)

    def identity(self) -> dict[str, str]:
        """Provider, model and base URL (several: sorted, space-separated; whichever replica
        answers, the key is the same)."""
        return dict(self._identity)

    def endpoint_usage(self) -> tuple[EndpointUsage, ...]:
        """Calls, errors, peak in flight and times down of each endpoint (none for one)."""
        return self._pool.usage() if self.endpoint_count > 1 else ()

    def notes(self) -> tuple[str, ...]:
        """What a run's reader must know about how this model is asked (what its API refused
        and what was sent instead)."""
        return self.asking.learned.notes()

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """One chat completion; a 400 refusing a parameter changes it and sends the call again
        at once (no failure). Until one call has ended, calls go one at a time."""
        asking = self.asking

        async def on(endpoint: Endpoint[Client]) -> Completion:
            client = endpoint.client
            while True:
                body = asking.request(self.model, messages, params)
                try:
                    # the SDK wants its own message TypedDicts
                    raw = await client.sdk.chat.completions.with_raw_response.create(
                        **body)  # type: ignore[arg-type]
                except Exception as exc:  # the SDK's errors, mapped to retry or give up
                    if not asking.learn(exc, body, public_url(endpoint.url or "api.openai.com")):
                        raise classify_sdk_error(exc, client.key) from exc
                    continue
                # checked here, inside the pool: a malformed reply is its endpoint's fault
                return asking.finish(completion_of(reply_object(raw.http_response.content)),
                                     params)

        return await asking.first.run(lambda: self._pool.call(on))

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """Exact scores from /completions with echo; UnsupportedCapability where absent."""
        kind, bos = await self._server()
        return [await self._score(context, c, kind, bos) for c in continuations]

    async def check_logprobs(self) -> None:
        """UnsupportedCapability unless one probe gets prompt log-probabilities (then never)."""
        if not self.capabilities.logprobs:
            raise self._unsupported()
        try:
            await self._score(PROBE, " world", *await self._server())
        except UnsupportedCapability:
            self.capabilities = replace(self.capabilities, logprobs=False)
            raise
        except (TransientError, CallFailed):
            return

    def check_listed(self, timeout: float = 3.0) -> None:
        """Say on stderr once where a server's /v1/models lists other models only."""
        for endpoint in self._pool.endpoints:
            if endpoint.url:
                listed = describe_endpoint(endpoint.url, endpoint.client.key, timeout).models
                warn_unlisted(endpoint.public, self.model, listed)

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
            raw = await endpoint.client.sdk.models.with_raw_response.list()
        except Exception as exc:
            mapped = classify_sdk_error(exc, endpoint.client.key)
            if isinstance(mapped, TransientError):
                raise mapped from exc
            return "openai"  # no /models: a server of no kind we know
        listing = reply_object(raw.http_response.content).get("data")
        entries = listing if isinstance(listing, list) else []
        warn_unlisted(endpoint.public, self.model,
                      [m.get("id") for m in entries if isinstance(m, dict)])
        return kind_from_owners([m.get("owned_by") for m in entries if isinstance(m, dict)])

    async def _probe(self, prompt: str) -> tuple[list[str], int]:
        """The echoed tokens of `prompt` and the prompt tokens the server counted."""
        async def on(endpoint: Endpoint[Client]) -> tuple[list[str], int]:
            reply = await self._complete(endpoint, prompt, "llamacpp")
            echoed = echo_tokens(first_of(reply.get("choices"), "choices"))
            counted = optional_object(reply.get("usage"), "usage").get("prompt_tokens")
            if echoed is None or counted is None:
                raise self._unsupported()
            return echoed[0], token_count(counted, "usage.prompt_tokens")

        return await self._pool.call(on)

    async def _complete(self, endpoint: Endpoint[Client], prompt: str, kind: str
                        ) -> dict[str, object]:
        """The reply of /completions with the prompt echoed and its log-probabilities."""
        client = endpoint.client
        extra = {"prompt_logprobs": 1, "return_token_ids": True} if kind == "vllm" else None
        try:
            raw = await client.sdk.completions.with_raw_response.create(
                model=self.model, prompt=prompt, echo=True, logprobs=1, max_tokens=1,
                temperature=0.0, extra_body=extra,
            )
        except Exception as exc:
            mapped = classify_sdk_error(exc, client.key)
            if getattr(exc, "status_code", None) in UNSUPPORTED_STATUS:
                raise self._unsupported() from exc
            raise mapped from exc
        return reply_object(raw.http_response.content)

    async def _score(self, context: str, continuation: str, kind: str, bos: str) -> float:
        context, continuation = split_trailing_space(context, continuation)
        if bos and not context.startswith(bos):
            context = bos + context
        prompt = context + continuation

        async def on(endpoint: Endpoint[Client]) -> float:
            # read inside the pool: a reply of the wrong shape is its endpoint's fault
            reply = await self._complete(endpoint, prompt, kind)
            choice = first_of(reply.get("choices"), "choices")
            scored = (vllm_prompt_tokens(choice, prompt) if kind == "vllm" else None) or (
                echo_tokens(choice))
            if scored is None:
                raise self._unsupported()
            return continuation_logprob(*scored, prompt, len(continuation))

        return await self._pool.call(on)

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
    # each is finite and <= 0 (`echo_tokens`); their sum may still overflow to -inf
    return logprob(float(sum(picked)), "the continuation's log-probability")  # type: ignore[arg-type]
