"""One run's life, the same for every method: a session, the run folder, the calls, the
summary.

A method supplies three steps to `run_method`: `start` opens what it asks (in the session)
and says what run.json records, before the folder exists, so a refusal leaves no folder;
`ask` makes the calls, writing records to the folder; `finish` reads the folder into the
method's typed result. The engine makes (or, with `--resume`, reopens) the folder, times the
calls and counts their usage, writes summary.json from the result, and marks the run done (or
interrupted or failed when a step raises: `in_session` marks it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from verstehen.engine.session import RunSettings, Session, in_session
from verstehen.engine.store import RunStore
from verstehen.engine.usage import ModelUsage
from verstehen.models.base import Model

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
class Made:
    """Where the run's folder is, and the seconds and usage of its calls."""

    run_dir: Path
    seconds: float
    usage: dict[str, ModelUsage]


async def run_method(settings: RunSettings, *, command: str, label: str,
                     start: Callable[[Session], Awaitable[Started[S]]],
                     ask: Callable[[Session, RunStore, S], Awaitable[None]],
                     finish: Callable[[RunStore, S, Made], R],
                     session: Session | None = None) -> R:
    """Run one method's steps in a session (given, or one of its own): start, the run folder
    `command` makes under the settings, ask, then the result `finish` reads, written to
    summary.json."""

    async def body(opened: Session) -> tuple[RunStore, S]:
        begun = await start(opened)
        identities = [m.identity() for m in begun.models] + begun.extra_identities
        store = settings.create_run(command, begun.config, begun.seed, identities)
        await ask(opened, store, begun.state)
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
