"""OpenAI and every OpenAI-compatible server (vLLM, SGLang, llama.cpp server, Ollama)."""

from __future__ import annotations

import itertools
import os
from typing import Any

import openai

from verstehen.errors import CallFailed, UnsupportedCapability
from verstehen.models.base import (
    Capabilities,
    Completion,
    GenerateParams,
    Message,
    Usage,
    split_trailing_space,
)
from verstehen.models.remote import DEFAULT_TIMEOUT, api_key, classify_sdk_error, public_url

NO_LOGPROBS = (
    "{server} gave no prompt log-probabilities for {model}: exact logprobs need a server "
    "that echoes them on /completions (vLLM, llama.cpp server); use local/ with a GGUF "
    "file, or pick answers by generation instead"
)


class OpenAIModel:
    """A chat model behind the official openai SDK; our engine does the retries.

    OPENAI_API_KEY goes to api.openai.com only; another server gets the key in the variable
    `api_key_env` names, or none. `timeout` bounds one attempt's wait for a reply (seconds).
    """

    max_connections = 8

    def __init__(
        self, model: str, *, base_url: str | None = None, timeout: float | None = None,
        api_key_env: str | None = None,
    ) -> None:
        self.name = f"openai/{model}"
        self.model = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self._key = api_key("OPENAI_API_KEY", "api.openai.com", self.base_url, api_key_env,
                            "openai")
        self.capabilities = Capabilities(
            generate=True,
            logprobs=self.base_url is not None,
            note="logprobs only where the server echoes prompt log-probabilities",
        )
        self._client = openai.AsyncOpenAI(
            api_key=self._key or "no-key", base_url=self.base_url, max_retries=0,
            timeout=timeout or DEFAULT_TIMEOUT,
        )

    def identity(self) -> dict[str, str]:
        """Provider, model and base URL."""
        return {
            "provider": "openai",
            "model": self.model,
            "base_url": public_url(self.base_url or "https://api.openai.com/v1"),
        }

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """One chat completion."""
        extra: dict[str, Any] = {"stop": list(params.stop)} if params.stop else {}
        try:
            out = await self._client.chat.completions.create(
                model=self.model,
                messages=list(messages),  # type: ignore[arg-type]
                temperature=params.temperature,
                max_tokens=params.max_tokens,
                seed=params.seed,
                **extra,
            )
        except Exception as exc:  # the SDK's errors, mapped to retry or give up
            raise classify_sdk_error(exc, self._key) from exc
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
        return [await self._score(context, c) for c in continuations]

    async def _score(self, context: str, continuation: str) -> float:
        context, continuation = split_trailing_space(context, continuation)
        prompt = context + continuation
        try:
            out = await self._client.completions.create(
                model=self.model, prompt=prompt, echo=True, logprobs=1, max_tokens=1,
                temperature=0.0,
            )
        except Exception as exc:
            mapped = classify_sdk_error(exc, self._key)
            if getattr(exc, "status_code", None) in {400, 404, 405, 422, 501}:
                raise self._unsupported() from exc
            raise mapped from exc
        logprobs = out.choices[0].logprobs if out.choices else None
        if logprobs is None or not logprobs.tokens or not logprobs.token_logprobs:
            raise self._unsupported()
        return continuation_logprob(
            list(logprobs.tokens), list(logprobs.token_logprobs), prompt, len(continuation)
        )

    def _unsupported(self) -> UnsupportedCapability:
        server = public_url(self.base_url or "api.openai.com")
        return UnsupportedCapability(NO_LOGPROBS.format(server=server, model=self.name))

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.close()


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
