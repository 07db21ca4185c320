"""The ETA is shown once it means something (issue 44, item 5): `ETA 14357s` at 1 of 2,213
calls was the rate of one reply, mostly start-up. Now: "no ETA yet" until MIN_TIMED calls were
answered by the model and MIN_SECONDS (5) passed since the first call was expected; then the calls
left at the rate so far, timed from that moment (not from opening the model), on the plain
lines and the live bar alike. A fake clock drives every case."""

from __future__ import annotations

import io

from rich.console import Console

import verstehen.engine.progress as progress_module
from verstehen.engine.progress import MIN_TIMED, PlainProgress, RichProgress, _TimeLeft


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def answered(progress: PlainProgress | RichProgress, clock: Clock, n: int, seconds: float,
             cached: bool = False) -> None:
    """n calls ending `seconds` apart."""
    for _ in range(n):
        clock.now += seconds
        progress.advance(cached=cached, error=False)


def test_the_first_reply_of_a_long_run_gives_no_eta() -> None:
    """The finding: consistency's 2,213 calls, the embedded model loading for 30 s before the
    first is expected and the first reply 6.5 s later: 36.5 s x 2,212 was 'ETA 80738s'
    (and 6.5 s x 2,212 = 'ETA 14378s' had the clock started at the first call)."""
    clock, out = Clock(), io.StringIO()
    progress = PlainProgress("consistency m", stream=out, every=0.0, clock=clock)
    clock.now += 30.0  # opening the model, reading the questions
    progress.add_total(2213)
    answered(progress, clock, 1, 6.5)
    assert progress.line("c") == "c: 1/2213 done, 0 cached, 0 retries, 0 errors, no ETA yet"
    assert "ETA" not in out.getvalue().replace("no ETA yet", "")
    assert progress.eta_seconds() is None


def test_a_burst_of_replies_at_the_start_is_no_rate_yet() -> None:
    """16 replies decoded together end within a second: MIN_TIMED calls, but not MIN_SECONDS
    of them; cache hits never count."""
    clock = Clock()
    progress = PlainProgress("x", stream=io.StringIO(), every=0.0, clock=clock)
    progress.add_total(200)
    answered(progress, clock, 40, 0.0, cached=True)
    answered(progress, clock, MIN_TIMED - 1, 0.5)
    assert progress.line("x").endswith("49/200 done, 40 cached, 0 retries, 0 errors, no ETA yet")
    answered(progress, clock, 6, 0.0625)  # 15 answered, in 4.875 s
    assert progress.eta_seconds() is None and progress.line("x").endswith("no ETA yet")
    # 15 calls answered in 5 s: 1/3 s each, 145 left
    clock.now += progress_module.MIN_SECONDS - 4.875
    assert progress.eta_seconds() == 5.0 / 15 * 145
    assert progress.line("x") == "x: 55/200 done, 40 cached, 0 retries, 0 errors, ETA 48s"


def test_the_clock_starts_when_the_first_call_is_expected() -> None:
    """10 calls answered 1 s apart after 100 s of start-up: 1 s a call, 90 left: 90 s (not
    110 s x 90 / 10 = 990 s)."""
    clock = Clock()
    progress = PlainProgress("x", stream=io.StringIO(), every=0.0, clock=clock)
    clock.now += 100.0
    progress.add_total(100)
    answered(progress, clock, MIN_TIMED, 1.0)
    assert progress.line("x").endswith("10/100 done, 0 cached, 0 retries, 0 errors, ETA 90s")
    answered(progress, clock, 90, 1.0)
    assert progress.line("x").endswith("ETA 0s")


def test_the_bar_shows_no_eta_of_its_own_before_the_rate_means_something() -> None:
    """rich's own estimate read 'ETA' after two replies; the bar now shows what the lines show."""
    clock = Clock()
    console = Console(file=io.StringIO(), width=200, record=True)
    bar = RichProgress("consistency m", clock=clock, console=console)
    bar.add_total(2213)
    answered(bar, clock, 2, 6.5)
    [task] = bar._bar.tasks
    assert task.completed == 2 and _TimeLeft().render(task).plain == "no ETA yet"
    answered(bar, clock, MIN_TIMED - 2, 1.0)  # 10 calls in 21 s: 2.1 s each, 2,203 left
    bar.close()
    later = console.export_text()
    assert "10/2213" in later and "ETA 1:17:06" in later  # 4626.3 s
