"""One run's life, the same for every method: a session, the run folder, the calls, the
summary.

A method supplies three steps to `run_method`: `start` opens what it asks (in the session)
and says what run.json records, before the folder exists, so a refusal leaves no folder;
`ask` makes the calls through the one `Context` it is given (ask a model, record a line, the
state `start` made), writing records to the folder; `finish` reads the folder into the
method's typed result. The engine makes (or, with `--resume`, reopens) the folder, times the
calls and counts their usage, writes summary.json from the result, and marks the run done (or
interrupted or failed when a step raises: `in_session` marks it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from verstehen.engine.runner import CallResult, Runner
from verstehen.engine.session import RunSettings, Session, in_session
from verstehen.engine.store import RunStore
from verstehen.engine.usage import ModelUsage
from verstehen.models.base import Completion, GenerateParams, Message, Model

S = TypeVar("S")


class Summarized(Protocol):
    """A run's result: what summary.json holds."""

    def to_dict(self) -> dict[str, object]:
        """The result as JSON values."""
        ...


R = TypeVar("R", bound=Summarized)


@dataclass(frozen=True)
class Started(Generic[S]):
    """What `start` gives: run.json's config and seed, the models asked (their identities go
    to run.json), and the method's own state for `ask` and `finish`."""

    config: Mapping[str, object]
    seed: int
    models: list[Model]
    state: S
    extra_identities: list[dict[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Context(Generic[S]):
    """What a method's `ask` works with: ask a model (each call through the cache, retried,
    counted), record a line in the run's records.jsonl, and the state `start` made (the
    opened models, the options). A resumed run asks again through the cache, so a call made
    before costs nothing; gather calls (`asyncio.gather`) to make them concurrently."""

    session: Session
    store: RunStore
    state: S

    @property
    def runner(self) -> Runner:
        """The session's runner, for procedures that take one."""
        return self.session.runner

    async def generate(self, model: Model, messages: list[Message],
                       params: GenerateParams | None = None, *,
                       sample: int) -> CallResult[Completion]:
        """A reply to `messages`. `sample` numbers the draws of one prompt: at a temperature
        above 0, sample 1 is a second draw, while sample 0 again is the first one, cached."""
        return await self.runner.generate(model, messages, params, sample_index=sample)

    async def logprobs(self, model: Model, context: str,
                       continuations: list[str]) -> CallResult[list[float]]:
        """The log-probability of each continuation after `context` (a model that cannot
        give them raises `UnsupportedCapability`)."""
        return await self.runner.logprobs(model, context, continuations)

    def record(self, line: Mapping[str, object]) -> None:
        """Append one line (a JSON object) to the run's records.jsonl."""
        self.store.append(line)


@dataclass(frozen=True)
class Made:
    """Where the run's folder is, and the seconds and usage of its calls."""

    run_dir: Path
    seconds: float
    usage: dict[str, ModelUsage]


async def run_method(settings: RunSettings, *, command: str, label: str,
                     start: Callable[[Session], Awaitable[Started[S]]],
                     ask: Callable[[Context[S]], Awaitable[None]],
                     finish: Callable[[RunStore, S, Made], R],
                     session: Session | None = None) -> R:
    """Run one method's steps in a session (given, or one of its own): start, the run folder
    `command` makes under the settings, ask, then the result `finish` reads, written to
    summary.json."""

    async def body(opened: Session) -> tuple[RunStore, S]:
        begun = await start(opened)
        identities = [m.identity() for m in begun.models] + begun.extra_identities
        store = settings.create_run(command, begun.config, begun.seed, identities)
        try:
            await ask(Context(opened, store, begun.state))
        finally:  # what a provider changed is kept however the calls ended
            opened.runner.count_endpoints()
            store.record_notes({name: usage.notes for name, usage in
                                opened.runner.usage.items() if usage.notes})
        return store, begun.state

    timed = await in_session(settings, label, body, session)
    store, state = timed.value
    try:
        result = finish(store, state, Made(store.path, timed.seconds, timed.usage))
        store.write_summary(result.to_dict())
    except KeyboardInterrupt:
        store.set_status("interrupted", "interrupted (Ctrl-C)")
        raise
    except Exception as exc:  # the summary could not be made: the run says why
        store.set_status("failed", f"{type(exc).__name__}: {exc}")
        raise
    return result
