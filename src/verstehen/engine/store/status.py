"""Which runs this process is making, and how each ended: a run is `running` until its summary
is written (done), or until Ctrl-C (interrupted) or an error (failed) stops it; a process killed
outright leaves "running" in run.json and no lock, which readers take as interrupted."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from verstehen.errors import UserError

STATUSES = ("running", "interrupted", "done", "failed")


class Run(Protocol):
    """What this module needs of a run folder (a `RunStore`)."""

    path: Path

    def set_status(self, state: str, reason: str | None = None) -> None:
        """Record the run's status in its run.json."""
        ...

    def release(self) -> None:
        """Let another process write the folder."""
        ...

    def resume_command(self) -> str:
        """What to type to go on with this run."""
        ...


# the run folders this process is writing and has not finished, oldest first; those it stopped
_ACTIVE: list[Run] = []
_STOPPED: list[Run] = []


def begun(run: Run) -> None:
    """A run this process started (or resumed) writing."""
    _ACTIVE.append(run)


def ended(path: Path) -> None:
    """The run in `path` has a final status: it is no longer this process's to mark."""
    _ACTIVE[:] = [run for run in _ACTIVE if run.path != path]


def is_active(path: Path) -> bool:
    """True when this process is making the run in `path` and has not finished it."""
    return any(run.path == path for run in _ACTIVE)


def stopped_runs() -> list[Run]:
    """The run folders this process stopped before their end (interrupted or failed)."""
    return list(_STOPPED)


def stop_active_runs(status: str, reason: str | None = None, *,
                     since: int = 0) -> list[Run]:
    """Mark the unfinished runs begun after the first `since` (interrupted or failed) and let
    go of their folders, so that a resume can take them; those runs."""
    stopped = _ACTIVE[since:]
    del _ACTIVE[since:]
    for store in stopped:
        with contextlib.suppress(OSError, UserError):  # a folder removed meanwhile
            store.set_status(status, reason)
        store.release()
    _STOPPED.extend(stopped)
    return stopped


@contextlib.contextmanager
def marked_on_error() -> Iterator[None]:
    """Runs begun inside the block and left unfinished by an exception are marked
    interrupted (Ctrl-C, a cancelled task) or failed, with the reason, in their run.json."""
    mark = len(_ACTIVE)
    try:
        yield
    except GeneratorExit:  # a coroutine dropped unfinished: nothing ended the run here
        raise
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt | asyncio.CancelledError):
            stop_active_runs("interrupted", "interrupted (Ctrl-C)", since=mark)
        else:
            reason = str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}"
            stop_active_runs("failed", reason, since=mark)
        raise
