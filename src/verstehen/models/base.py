"""The Model interface every provider implements, and the values it exchanges."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypedDict, TypeVar, runtime_checkable

Role = Literal["system", "user", "assistant"]


class Message(TypedDict):
    """One chat message."""

    role: Role
    content: str


class ParamsDict(TypedDict):
    """`GenerateParams` as JSON (in every generation's cache key)."""

    temperature: float
    max_tokens: int
    seed: int
    stop: list[str]


@dataclass(frozen=True)
class GenerateParams:
    """Every parameter that shapes a generation; all of it goes into the cache key."""

    temperature: float = 0.0
    max_tokens: int = 256
    seed: int = 0
    stop: tuple[str, ...] = ()

    def as_dict(self) -> ParamsDict:
        """The parameters as a JSON-ready dict."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens,
                "seed": self.seed, "stop": list(self.stop)}


@dataclass(slots=True)
class Usage:
    """Token counts of one call; `reasoning_tokens` are the part of the completion tokens a
    reasoning model spent before its answer (0 where the server does not say)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass(slots=True)
class Completion:
    """What a generation returned; `reasoning` is the text a server gave apart from the answer
    (vLLM's `reasoning_content`, Anthropic's thinking blocks), never part of `text`."""

    text: str
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    reasoning: str | None = None


@dataclass(frozen=True)
class EndpointUsage:
    """One endpoint's counts since the model was opened: requests sent, requests that failed,
    the most in flight at once, and how many times it was marked down."""

    url: str
    calls: int = 0
    errors: int = 0
    peak_outstanding: int = 0
    downs: int = 0

    def minus(self, earlier: EndpointUsage) -> EndpointUsage:
        """The counts added after `earlier` (the peak is the peak so far)."""
        return EndpointUsage(self.url, self.calls - earlier.calls, self.errors - earlier.errors,
                             self.peak_outstanding, self.downs - earlier.downs)

    def plus(self, other: EndpointUsage) -> EndpointUsage:
        """Both counts together (the higher peak)."""
        return EndpointUsage(self.url, self.calls + other.calls, self.errors + other.errors,
                             max(self.peak_outstanding, other.peak_outstanding),
                             self.downs + other.downs)


@dataclass(frozen=True)
class Capabilities:
    """What a provider can do; `logprobs` is exact continuation scoring, and
    `logprobs_batch` > 1 says it has `logprobs_batch` for up to that many requests at once;
    `scoring` names how it computes likelihoods when that differs from generating, and
    `generation` how it ends a reply when that departs from decoding to the end or the cap
    (each goes into the cache key of its calls)."""

    generate: bool = True
    logprobs: bool = False
    note: str = ""
    logprobs_batch: int = 0
    scoring: str = ""
    generation: str = ""


@runtime_checkable
class Model(Protocol):
    """A language model behind one of the providers.

    `identity` names everything that changes the model's answers (provider, model, base URL,
    weights digest, reasoning budget); it is part of every cache key. `max_connections` is the
    default number of concurrent calls. A model may also have `notes() -> tuple[str, ...]`:
    what a run's reader must know about how it was asked (a temperature the API fixes), which
    the runner copies into its usage.
    """

    name: str
    capabilities: Capabilities
    max_connections: int

    def identity(self) -> dict[str, str]:
        """Provider, model, base URL and weights digest or revision."""
        ...

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """One chat completion; raise TransientError for faults worth retrying."""
        ...

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """Total log-probability of each continuation after the context."""
        ...

    async def aclose(self) -> None:
        """Release clients, files and threads."""
        ...


@runtime_checkable
class BatchLogprobs(Protocol):
    """A model that scores many likelihood requests in one call."""

    async def logprobs_batch(self, requests: Sequence[tuple[str, Sequence[str]]]
                             ) -> list[list[float] | Exception]:
        """`logprobs` of each (context, continuations) request, or the error that stopped it."""
        ...


def model_name(model: str | Model) -> str:
    """The name of a model given by name or as a Model object."""
    return model if isinstance(model, str) else model.name


def user(content: str) -> list[Message]:
    """A one-message conversation."""
    return [{"role": "user", "content": content}]


def split_trailing_space(context: str, continuation: str) -> tuple[str, str]:
    """Move the context's trailing whitespace to the continuation (lm-evaluation-harness)."""
    stripped = context.rstrip()
    return stripped, context[len(stripped) :] + continuation


@runtime_checkable
class Noted(Protocol):
    """A model that has notes for its usage (a provider's remarks on the run)."""

    def notes(self) -> tuple[str, ...]:
        """The notes so far."""
        ...


@runtime_checkable
class Pooled(Protocol):
    """A model served by several endpoints, counting each one's calls."""

    def endpoint_usage(self) -> tuple[EndpointUsage, ...]:
        """The calls of each endpoint so far."""
        ...


T = TypeVar("T")


def settle(future: asyncio.Future[T], outcome: T | Exception) -> None:
    """Give a waiting caller its value or its error (nothing when it was cancelled)."""
    if future.done():
        return
    if isinstance(outcome, Exception):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)
