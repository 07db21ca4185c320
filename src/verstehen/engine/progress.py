"""Progress of a batch of calls: a live rich bar on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn


class Counts:
    """The numbers every progress display shows."""

    def __init__(self) -> None:
        self.total = self.done = self.cached = self.retries = self.errors = 0
        self.started = time.monotonic()

    def eta(self) -> str:
        """Seconds left at the rate of calls that were not cache hits."""
        fresh = self.done - self.cached
        left = self.total - self.done
        if left <= 0:
            return "0s"
        if fresh <= 0:
            return "?"
        return f"{(time.monotonic() - self.started) / fresh * left:.0f}s"

    def line(self, label: str) -> str:
        """One line with done/total, cache hits, retries, errors and ETA."""
        return (
            f"{label}: {self.done}/{self.total} done, {self.cached} cached, "
            f"{self.retries} retries, {self.errors} errors, ETA {self.eta()}"
        )


class NullProgress(Counts):
    """Counts only; prints nothing."""

    def add_total(self, n: int) -> None:
        """Expect n more calls."""
        self.total += n

    def advance(self, *, cached: bool, error: bool) -> None:
        """Count one ended call."""
        self.done += 1
        self.cached += cached
        self.errors += error

    def retry(self) -> None:
        """Count one retry."""
        self.retries += 1

    def close(self) -> None:
        """Nothing to print."""


class PlainProgress(NullProgress):
    """A line at most every `every` seconds, and at the end (for logs and pipes)."""

    def __init__(self, label: str, stream: TextIO = sys.stderr, every: float = 5.0) -> None:
        super().__init__()
        self.label, self.stream, self.every = label, stream, every
        self._last = 0.0

    def advance(self, *, cached: bool, error: bool) -> None:
        """Count, and print when the interval has passed."""
        super().advance(cached=cached, error=error)
        now = time.monotonic()
        if now - self._last >= self.every:
            self._last = now
            print(self.line(self.label), file=self.stream, flush=True)

    def close(self) -> None:
        """The final line (none when no call was expected: a run refused before it asked)."""
        if self.total or self.done:
            print(self.line(self.label), file=self.stream, flush=True)


class RichProgress(NullProgress):
    """A live bar with the same numbers, refreshed by rich."""

    def __init__(self, label: str) -> None:
        super().__init__()
        self._bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            TextColumn("cached {task.fields[cached]} · retries {task.fields[retries]} · "
                       "errors {task.fields[errors]}"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._task = self._bar.add_task(label, total=0, cached=0, retries=0, errors=0)
        self._started = False

    def _update(self) -> None:
        if not self._started:  # nothing shows before the first call is expected
            self._started = True
            self._bar.start()
        self._bar.update(self._task, total=self.total, completed=self.done, cached=self.cached,
                         retries=self.retries, errors=self.errors)

    def add_total(self, n: int) -> None:
        """Expect n more calls."""
        super().add_total(n)
        self._update()

    def advance(self, *, cached: bool, error: bool) -> None:
        """Count one ended call."""
        super().advance(cached=cached, error=error)
        self._update()

    def retry(self) -> None:
        """Count one retry."""
        super().retry()
        self._update()

    def close(self) -> None:
        """Stop the live display."""
        if self._started:
            self._bar.stop()


def make_progress(label: str, enabled: bool = True) -> NullProgress:
    """A live bar on a terminal, plain lines when not, nothing when disabled."""
    if not enabled:
        return NullProgress()
    if sys.stderr.isatty() and sys.stdout.isatty():
        return RichProgress(label)
    return PlainProgress(label)
