"""Calls and tokens counted per model (`ModelUsage`), and counted apart for a task and the tasks
it starts (`counting`): the steps of one job may run at once in one runner."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, fields, replace

from verstehen.models.base import EndpointUsage, Usage


@dataclass
class ModelUsage:
    """Token and call counts of one model: all calls, and the ones paid for in this run; for a
    model with several endpoints, each endpoint's requests (`EndpointUsage`). Reasoning tokens
    are the part of the completion tokens a reasoning model spent before its answer; `notes`
    are the model's own (`notes()`: a temperature its API fixes)."""

    calls: int = 0
    cache_hits: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    new_prompt_tokens: int = 0
    new_completion_tokens: int = 0
    endpoints: tuple[EndpointUsage, ...] = ()
    reasoning_tokens: int = 0
    new_reasoning_tokens: int = 0
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # summary.json read back with ModelUsage(**counts) gives the endpoints as dicts
        self.endpoints = tuple(e if isinstance(e, EndpointUsage) else EndpointUsage(**e)
                               for e in self.endpoints)
        self.notes = tuple(self.notes)

    def add(self, usage: Usage, *, cached: bool) -> None:
        """Count one finished call's tokens."""
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.reasoning_tokens += usage.reasoning_tokens
        if not cached:
            self.new_prompt_tokens += usage.prompt_tokens
            self.new_completion_tokens += usage.completion_tokens
            self.new_reasoning_tokens += usage.reasoning_tokens

    def absorb(self, other: ModelUsage) -> None:
        """Add another count of the same model (one job made of several runs)."""
        for name in _COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        mine = {e.url: e for e in self.endpoints}
        for e in other.endpoints:
            mine[e.url] = mine[e.url].plus(e) if e.url in mine else e
        self.endpoints = tuple(mine.values())
        self.notes = tuple(dict.fromkeys(self.notes + other.notes))

    def since(self, earlier: ModelUsage | None) -> ModelUsage:
        """The counts added after `earlier` (a copy taken before; None: all of them)."""
        if earlier is None:
            return replace(self)
        before = {e.url: e for e in earlier.endpoints}
        return ModelUsage(**{name: getattr(self, name) - getattr(earlier, name)
                             for name in _COUNTS},
                          endpoints=tuple(e.minus(before[e.url]) if e.url in before else e
                                          for e in self.endpoints),
                          notes=self.notes)


# the fields of ModelUsage that are counts (added and subtracted)
_COUNTS = tuple(f.name for f in fields(ModelUsage) if f.name not in {"endpoints", "notes"})
# further counts the calling task's calls also go into (`counting`): one per step of a job whose
# steps share a runner and may run at the same time
_TALLIES: ContextVar[tuple[dict[str, ModelUsage], ...]] = ContextVar("usage_tallies", default=())


@contextlib.contextmanager
def counting() -> Iterator[dict[str, ModelUsage]]:
    """Count the calls made inside (by this task and the tasks it starts) apart, per model."""
    tally: dict[str, ModelUsage] = {}
    token = _TALLIES.set((*_TALLIES.get(), tally))
    try:
        yield tally
    finally:
        _TALLIES.reset(token)


def counted(since: ModelUsage, tally: ModelUsage) -> ModelUsage:
    """`since` (a model's counts over some time) with the call and token counts of `tally`."""
    return replace(since, **{name: getattr(tally, name) for name in _COUNTS})


def tallies() -> tuple[dict[str, ModelUsage], ...]:
    """The tallies the calling task's calls count into (`counting`), innermost last."""
    return _TALLIES.get()
