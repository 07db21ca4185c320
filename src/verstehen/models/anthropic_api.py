"""Anthropic's Messages API through the official anthropic SDK (generation only).

With a reasoning budget the model thinks first (extended thinking): the request carries
`thinking={"type": "enabled", "budget_tokens": N}` with N >= 1024 and `max_tokens` = answer
budget + N (the thinking counts in max_tokens), and no temperature (the API takes none but 1
with thinking on). The reply's `thinking` and `redacted_thinking` blocks come before its text;
they become the completion's reasoning. `output_tokens` counts the thinking too, and the API
gives no count of its own for it, so `Usage.reasoning_tokens` stays 0.

Claude Opus 4.7 and later refuse `thinking.type: "enabled"` with a 400 and think only
adaptively, and refuse `temperature`: the first such 400 switches the model to
`thinking={"type": "adaptive", "display": "summarized"}` (the documented replacement: the model
decides how much to think, within the same `max_tokens`; "summarized" returns the thinking
text, which these models omit by default), or stops sending the temperature; the refused call
is sent again at once, the change said once and kept in the model's notes
(`models/refusals.py`). Until one call has ended, calls go one at a time, so a refusal is met
once.
"""

from __future__ import annotations

from typing import Literal, TypedDict

import anthropic

from verstehen.errors import UnsupportedCapability, UserError
from verstehen.models.base import Capabilities, Completion, GenerateParams, Message, Usage
from verstehen.models.refusals import (
    ENABLED_THINKING,
    TEMPERATURE,
    FirstCall,
    Learned,
    refused_parameter,
    refused_why,
)
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


class AdaptiveThinking(TypedDict):
    """Adaptive thinking (the model decides how much), its text returned summarized."""

    type: Literal["adaptive"]
    display: Literal["summarized"]


class SamplingBody(TypedDict, total=False):
    """The sampling fields sent in the body: thinking, or else the temperature asked (unless
    the model refused it)."""

    temperature: float
    thinking: Thinking | AdaptiveThinking


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
        self.learned = Learned()  # what the API refused, and what is sent instead
        self.first = FirstCall()
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
        """What a run's reader must know about how this model is asked (its fixed temperature,
        what its API refused and what was sent instead)."""
        return self._notes + self.learned.notes()

    def _sampling(self, params: GenerateParams) -> Sampling:
        """max_tokens and the body's sampling fields: thinking, or the temperature asked."""
        if not self.reasoning_budget:
            # SDK 1.0 dropped `temperature` from the signature; the API still takes it
            body: SamplingBody = ({} if TEMPERATURE in self.learned
                                  else {"temperature": params.temperature})
            return {"max_tokens": params.max_tokens, "extra_body": body}
        thinking: Thinking | AdaptiveThinking = (
            {"type": "adaptive", "display": "summarized"} if ENABLED_THINKING in self.learned
            else {"type": "enabled", "budget_tokens": self.reasoning_budget})
        return {"max_tokens": params.max_tokens + self.reasoning_budget,
                "extra_body": {"thinking": thinking}}

    def _learn(self, exc: BaseException, sampling: Sampling) -> bool:
        """True when `exc` is a 400 refusing enabled thinking or the temperature `sampling`
        carried, now replaced (send the call again); False for any other error."""
        body = sampling["extra_body"]
        sent = [TEMPERATURE] if "temperature" in body else []
        thinking = body.get("thinking")
        if thinking is not None and thinking["type"] == "enabled":
            sent.append(ENABLED_THINKING)
        refused = refused_parameter(exc, sent)
        if refused is None:
            return False
        why = refused_why(public_url(self.base_url or "api.anthropic.com"), refused)
        self.learned.record(refused, f"{self.name}: {why}, so " + (
            f"it thinks adaptively (thinking.type adaptive, display summarized: the model "
            f"decides how much, within max_tokens = answer budget + {self.reasoning_budget})"
            if refused == ENABLED_THINKING else
            "no temperature is sent: it samples at the API's default, so its answers are "
            "samples, not greedy, and only the cache reproduces them"))
        return True

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

        async def call() -> Completion:
            while True:
                sampling = self._sampling(params)
                try:
                    raw = await self._client.messages.with_raw_response.create(
                        model=self.model,
                        # the SDK wants its own message TypedDicts (which differ between its
                        # versions)
                        messages=turns,  # type: ignore[arg-type]
                        **sampling,
                        **extra,
                    )
                except Exception as exc:
                    if not self._learn(exc, sampling):
                        raise classify_sdk_error(exc, self._key) from exc
                    continue
                return message_of(reply_object(raw.http_response.content))

        return await self.first.run(call)

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
    """The thinking blocks' text, in order (a redacted block as REDACTED, an omitted one, its
    text empty, left out); None without any."""
    parts = [text_of(block.get("thinking"), "a thinking block's thinking")
             if block["type"] == "thinking" else REDACTED
             for block in blocks if block["type"] in {"thinking", "redacted_thinking"}]
    return "\n\n".join(part for part in parts if part) or None
