"""Anthropic's Messages API through the official anthropic SDK (generation only).

With a reasoning budget the model thinks first (extended thinking): the request carries
`thinking={"type": "enabled", "budget_tokens": N}` with N >= 1024 and `max_tokens` = answer
budget + N (the thinking counts in max_tokens), and no temperature (the API takes none but 1
with thinking on). The reply's `thinking` and `redacted_thinking` blocks come before its text;
they become the completion's reasoning. `output_tokens` counts the thinking too, and the API
gives no count of its own for it, so `Usage.reasoning_tokens` stays 0.
"""

from __future__ import annotations

from typing import Literal, TypedDict

import anthropic

from verstehen.errors import UnsupportedCapability, UserError
from verstehen.models.base import Capabilities, Completion, GenerateParams, Message, Usage
from verstehen.models.remote import (
    DEFAULT_TIMEOUT,
    KEY_OF,
    MIN_THINKING_BUDGET,
    api_key,
    classify_sdk_error,
    effective_budget,
    env_base_url,
    note,
    public_url,
    refuse_credentials,
)
from verstehen.models.replies import (
    as_object,
    kind_of,
    malformed,
    optional_text,
    reply_object,
    text_of,
    token_count,
)
from verstehen.models.transport import bounded_client


class Thinking(TypedDict):
    """Extended thinking on, with its budget (at least MIN_THINKING_BUDGET tokens)."""

    type: Literal["enabled"]
    budget_tokens: int


class SamplingBody(TypedDict, total=False):
    """The sampling fields sent in the body: thinking, or else the temperature asked."""

    temperature: float
    thinking: Thinking


class Sampling(TypedDict):
    """A request's `max_tokens` and the sampling fields the SDK sends as `extra_body`."""

    max_tokens: int
    extra_body: SamplingBody


class SystemAndStops(TypedDict, total=False):
    """A request's system text and stop sequences, sent only when there are some."""

    system: str
    stop_sequences: list[str]


REDACTED = "[redacted thinking]"  # stands for a redacted_thinking block in the reasoning text


class AnthropicModel:
    """Claude models; `seed` is not an API parameter, so only the cache reproduces samples.

    ANTHROPIC_API_KEY goes to api.anthropic.com only; another server gets the key in the
    variable `api_key_env` names, or none. `timeout` bounds one attempt's wait (seconds).
    `reasoning_budget` N turns extended thinking on with budget_tokens N (at least 1024; None
    or 0: off, the default, as in the API); it is then part of the identity.
    """

    max_connections = 8

    def __init__(
        self, model: str, *, base_url: str | None = None, timeout: float | None = None,
        api_key_env: str | None = None, reasoning_budget: int | None = None,
    ) -> None:
        self.name = f"anthropic/{model}"
        self.model = model
        if base_url:
            refuse_credentials(base_url)
        # ANTHROPIC_BASE_URL (which the SDK would read) is a base URL as --base-url's is
        self.base_url = base_url or env_base_url("ANTHROPIC_BASE_URL")
        self.capabilities = Capabilities(generate=True, logprobs=False, note="no logprobs API")
        self.reasoning_budget = effective_budget(reasoning_budget, None)
        if self.reasoning_budget is not None and self.reasoning_budget < MIN_THINKING_BUDGET:
            raise UserError(f"{self.name} thinks with a budget of at least "
                            f"{MIN_THINKING_BUDGET} tokens, not {self.reasoning_budget}: give "
                            f"--reasoning-budget {MIN_THINKING_BUDGET} or more (0: no thinking)")
        self._key = api_key(*KEY_OF["anthropic"], self.base_url,
                            api_key_env, "anthropic")
        deadline = timeout or DEFAULT_TIMEOUT  # bounds the whole reply (models/transport.py)
        self._client = anthropic.AsyncAnthropic(
            api_key=self._key or "no-key",
            base_url=self.base_url,
            max_retries=0,
            timeout=deadline,
            http_client=bounded_client(deadline),
        )
        self._notes: tuple[str, ...] = ()
        if self.reasoning_budget:
            self._notes = (f"{self.name} thinks before it answers (extended thinking, "
                           f"budget_tokens {self.reasoning_budget}, sent max_tokens = answer "
                           "budget + that): the API then fixes its temperature at 1, so its "
                           "answers are samples, not greedy, and only the cache reproduces them",)
            note(self._notes[0])

    def identity(self) -> dict[str, str]:
        """Provider, model, base URL, and the reasoning budget when there is one."""
        identity = {
            "provider": "anthropic",
            "model": self.model,
            "base_url": public_url(self.base_url or "https://api.anthropic.com"),
        }
        if self.reasoning_budget is not None:
            identity["reasoning_budget"] = str(self.reasoning_budget)
        return identity

    def notes(self) -> tuple[str, ...]:
        """What a run's reader must know about how this model is asked (its fixed temperature)."""
        return self._notes

    def _sampling(self, params: GenerateParams) -> Sampling:
        """max_tokens and the body's sampling fields: thinking, or the temperature asked."""
        if not self.reasoning_budget:
            # SDK 1.0 dropped `temperature` from the signature; the API still takes it
            return {"max_tokens": params.max_tokens,
                    "extra_body": {"temperature": params.temperature}}
        thinking: Thinking = {"type": "enabled", "budget_tokens": self.reasoning_budget}
        return {"max_tokens": params.max_tokens + self.reasoning_budget,
                "extra_body": {"thinking": thinking}}

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """One message; system turns become the `system` parameter."""
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        turns = [{"role": m["role"], "content": m["content"]} for m in messages
                 if m["role"] != "system"]
        extra: SystemAndStops = {}
        if system:
            extra["system"] = system
        if params.stop:
            extra["stop_sequences"] = list(params.stop)
        try:
            raw = await self._client.messages.with_raw_response.create(
                model=self.model,
                # the SDK wants its own message TypedDicts (which differ between its versions)
                messages=turns,  # type: ignore[arg-type]
                **self._sampling(params),
                **extra,
            )
        except Exception as exc:
            raise classify_sdk_error(exc, self._key) from exc
        return message_of(reply_object(raw.http_response.content))

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """Not offered by the API."""
        raise UnsupportedCapability(
            f"{self.name} cannot score continuations (the API has no logprobs): use local/ "
            "or an OpenAI-compatible server with --base-url"
        )

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.close()


def message_of(reply: dict[str, object]) -> Completion:
    """The completion a Messages API reply (its JSON object) holds: the text blocks' text, the
    thinking apart, the token counts; TransientError for a reply of another shape."""
    content = reply.get("content")
    if not isinstance(content, list):
        raise malformed(f"content is {kind_of(content)}, not a list of blocks")
    blocks = [as_object(block, f"content[{i}]") for i, block in enumerate(content)]
    if not all(isinstance(block.get("type"), str) for block in blocks):
        raise malformed("content holds a block of no type")
    usage = as_object(reply.get("usage"), "usage")
    return Completion(
        text="".join(text_of(block.get("text"), f"content[{i}].text")
                     for i, block in enumerate(blocks) if block["type"] == "text"),
        finish_reason=optional_text(reply.get("stop_reason"), "stop_reason"),
        usage=Usage(token_count(usage.get("input_tokens"), "usage.input_tokens"),
                    token_count(usage.get("output_tokens"), "usage.output_tokens")),
        reasoning=thinking_of(blocks),
    )


def thinking_of(blocks: list[dict[str, object]]) -> str | None:
    """The thinking blocks' text, in order (a redacted block as REDACTED); None without any."""
    parts = [text_of(block.get("thinking"), "a thinking block's thinking")
             if block["type"] == "thinking" else REDACTED
             for block in blocks if block["type"] in {"thinking", "redacted_thinking"}]
    return "\n\n".join(parts) if parts else None
