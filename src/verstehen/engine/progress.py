"""Progress of a batch of calls: a live rich bar on a terminal, plain lines otherwise (the
label, which may name a model, printed with its control characters escaped).

The ETA is the calls left at the rate of the calls the model answered (not the cache), timed
from when the first call was expected; it is shown only once that rate means something: after
MIN_TIMED answered calls and MIN_SECONDS seconds ("no ETA yet" before; at 1 of 2,213 calls the
rate of one reply, mostly start-up, gave "ETA 14357s").

A procedure that adds to the total in steps whose number it does not know yet (the looks of a
sequential test, the lenses of an audit) asks in `growing()`: until the last of them ends the
total is provisional, shown as "16/26+", and the ETA is a lower bound: the time the calls known
so far will take ("ETA ≥ 40s (more calls may follow)").
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, Task, TextColumn, TimeRemainingColumn
from rich.text import Text

from verstehen.text.tables import plural
from verstehen.text.terminal import terminal_line

MORE = "(more calls may follow)"
NOT_YET = "no ETA yet"
NO_ETA = f"{NOT_YET} {MORE}"
# Calls answered by the model (not the cache) before there is an ETA: the rate of the first
# few is mostly start-up (a local model loading, connections opening) and noise (with call
# times as spread as their mean, the rate of n calls is off by about 1/sqrt(n): 45% at 5, 32%
# at 10); 10 calls come within the first look of a sequential test (16), so even the default
# audit, whose total is provisional for 82 of its 117 calls, shows a bound from early on.
MIN_TIMED = 10
# and seconds since the first call was expected: calls answered together at the start (a
# batch of replies decoded at once, a burst of fast ones) say little of the rate that follows
MIN_SECONDS = 5.0


class _Together:
    """Procedures started together: the parts that have not added to the total yet."""

    def __init__(self, parts: int) -> None:
        self.waiting = set(range(parts))


# the parts of `together` groups the running task belongs to (a task's children inherit them)
_PARTS: ContextVar[tuple[tuple[_Together, int], ...]] = ContextVar("progress_parts", default=())


class Counts:
    """The numbers every progress display shows."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = self.done = self.cached = self.retries = self.errors = 0
        self.clock = clock
        self.started = clock()  # made again when the first call is expected
        self._growing = 0  # how many callers may still add to the total

    @property
    def provisional(self) -> bool:
        """Whether more calls may still be added to the total."""
        return self._growing > 0

    @contextmanager
    def together(self, parts: int) -> Iterator[Callable[[int], None]]:
        """Procedures run together, each adding to the total as it starts: while inside, the
        total is provisional until every part has added to it. Each part calls the function
        given with its number, from inside its own task."""
        group = _Together(parts)
        self._growing += bool(group.waiting)

        def mark(part: int) -> None:
            _PARTS.set((*_PARTS.get(), (group, part)))

        try:
            yield mark
        finally:
            if group.waiting:  # a part ended (or failed) before adding to the total
                group.waiting.clear()
                self._growing -= 1
            self.refresh()

    @contextmanager
    def growing(self, more: bool = True) -> Iterator[None]:
        """While inside (with `more`), the total may still grow: it is shown as provisional."""
        self._growing += more
        try:
            yield
        finally:
            self._growing -= more
            self.refresh()

    def refresh(self) -> None:
        """Show the numbers again (a display that shows them between calls overrides it)."""

    def seconds_per_call(self) -> float | None:
        """Seconds per call the model answered, since the first call was expected; None
        before MIN_TIMED calls and MIN_SECONDS seconds (too few to tell a rate)."""
        fresh, elapsed = self.done - self.cached, self.clock() - self.started
        if fresh < MIN_TIMED or elapsed < MIN_SECONDS:
            return None
        return elapsed / fresh

    def eta_seconds(self) -> float | None:
        """Seconds left at the rate of calls that were not cache hits (0 when none is left);
        None while the rate means nothing yet."""
        left = self.total - self.done
        if left <= 0:
            return 0.0
        rate = self.seconds_per_call()
        return None if rate is None else rate * left

    def eta(self) -> str:
        """`eta_seconds` as "42s", or NOT_YET."""
        seconds = self.eta_seconds()
        return NOT_YET if seconds is None else f"{seconds:.0f}s"

    def eta_floor(self) -> float | None:
        """While the total is provisional: the seconds the calls known so far will take, at
        the rate of those the model answered; None before the rate means something, or when
        none of the known calls is left."""
        left = self.total - self.done
        if left <= 0 or (rate := self.seconds_per_call()) is None:
            return None
        return rate * left

    def line(self, label: str) -> str:
        """One line with done/total, cache hits, retries, errors and ETA ("16/26+" and the
        ETA of the known calls as a lower bound while the total is provisional)."""
        more = "+" if self.provisional else ""
        if not self.provisional:
            eta = NOT_YET if (said := self.eta()) == NOT_YET else f"ETA {said}"
        elif (floor := self.eta_floor()) is None:
            eta = NO_ETA
        else:
            eta = f"ETA ≥ {floor:.0f}s {MORE}"
        return (f"{label}: {self.done}/{self.total}{more} done, {self.cached} cached, "
                f"{plural(self.retries, 'retry', 'retries')}, {plural(self.errors, 'error')}, "
                f"{eta}")


class NullProgress(Counts):
    """Counts only; prints nothing."""

    def add_total(self, n: int) -> None:
        """Expect n more calls (the first expected starts the clock of the ETA)."""
        for group, part in _PARTS.get():
            if part in group.waiting:
                group.waiting.discard(part)
                self._growing -= not group.waiting
        if self.total == 0 and n > 0:
            self.started = self.clock()  # what came before (opening models) is no call's
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

    def __init__(self, label: str, stream: TextIO = sys.stderr, every: float = 5.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(clock)
        self.label, self.stream, self.every = terminal_line(label), stream, every
        self._last = 0.0

    def advance(self, *, cached: bool, error: bool) -> None:
        """Count, and print when the interval has passed."""
        super().advance(cached=cached, error=error)
        now = self.clock()
        if now - self._last >= self.every:
            self._last = now
            print(self.line(self.label), file=self.stream, flush=True)

    def close(self) -> None:
        """The final line (none when no call was expected: a run refused before it asked)."""
        if self.total or self.done:
            print(self.line(self.label), file=self.stream, flush=True)


class _TimeLeft(TimeRemainingColumn):
    """The time left as the plain lines reckon it (`Counts.eta_seconds`, not rich's own rate,
    which is wild after the first reply); while the total is provisional, the lower bound of
    the calls known so far (`Counts.eta_floor`); or no ETA yet."""

    def render(self, task: Task) -> Text:
        """The time left, at least the time left, or words saying there is none yet."""
        more = bool(task.fields.get("more"))
        left = task.fields.get("floor" if more else "eta")
        if left is None:
            return Text(NO_ETA if more else NOT_YET, style="progress.remaining")
        minutes, seconds = divmod(int(left), 60)
        hours, minutes = divmod(minutes, 60)  # as rich writes the time left
        said = f"{hours:d}:{minutes:02d}:{seconds:02d}"
        return Text(f"ETA ≥ {said} {MORE}" if more else f"ETA {said}",
                    style="progress.remaining")


class RichProgress(NullProgress):
    """A live bar with the same numbers, refreshed by rich."""

    def __init__(self, label: str, clock: Callable[[], float] = time.monotonic,
                 console: Console | None = None) -> None:
        super().__init__(clock)
        self._bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}{task.fields[more]}"),
            TextColumn("cached {task.fields[cached]} · retries {task.fields[retries]} · "
                       "errors {task.fields[errors]}"),
            _TimeLeft(),
            console=console or Console(stderr=True),
            transient=False,
        )
        # the label may hold a model's name: neither a control character nor rich markup
        self._task = self._bar.add_task(escape(terminal_line(label)), total=0, cached=0,
                                        retries=0, errors=0, more="", floor=None, eta=None)
        self._started = False

    def _update(self) -> None:
        if not self._started:  # nothing shows before the first call is expected
            self._started = True
            self._bar.start()
        self._bar.update(self._task, total=self.total, completed=self.done, cached=self.cached,
                         retries=self.retries, errors=self.errors,
                         more="+" if self.provisional else "",
                         floor=self.eta_floor() if self.provisional else None,
                         eta=None if self.provisional else self.eta_seconds())

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

    def refresh(self) -> None:
        """Show whether the total is still provisional."""
        if self._started:
            self._update()

    def close(self) -> None:
        """Stop the live display."""
        if self._started:
            self._bar.stop()


def in_notebook() -> bool:
    """True inside a Jupyter kernel (where a run from Python is otherwise silent)."""
    return "ipykernel" in sys.modules


def make_progress(label: str, enabled: bool | None = True) -> NullProgress:
    """A live bar on a terminal, plain lines when not, nothing when disabled; `None` (the
    Python API's default): plain lines inside a notebook, nothing elsewhere."""
    if enabled is None:
        enabled = in_notebook()
    if not enabled:
        return NullProgress()
    if sys.stderr.isatty() and sys.stdout.isatty():
        return RichProgress(label)
    return PlainProgress(label)
