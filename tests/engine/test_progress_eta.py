"""The ETA while the total is provisional (issue 30, item 3): once MIN_TIMED calls were
answered by the model, a lower bound, the time the calls known so far will take at the rate so
far; "no ETA yet" before that, and when no known call is left. On the plain lines and the bar."""

from __future__ import annotations

import io

from rich.console import Console

from verstehen.engine.progress import MIN_TIMED, PlainProgress, RichProgress


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def calls(progress: PlainProgress | RichProgress, clock: Clock, n: int, seconds: float,
          cached: bool = False) -> None:
    """n calls ending `seconds` apart."""
    for _ in range(n):
        clock.now += seconds
        progress.advance(cached=cached, error=False)


def test_a_provisional_total_gets_a_lower_bound_after_enough_timed_calls() -> None:
    clock, out = Clock(), io.StringIO()
    progress = PlainProgress("audit m", stream=out, every=0.0, clock=clock)
    with progress.growing():
        progress.add_total(40)
        calls(progress, clock, 5, 0.0, cached=True)  # cache hits time nothing
        calls(progress, clock, MIN_TIMED - 1, 2.0)
        assert progress.line("x").endswith("14/40+ done, 5 cached, 0 retries, 0 errors, "
                                           "no ETA yet (more calls may follow)")
        calls(progress, clock, 1, 2.0)
        # N = 10 model calls in T = 20 s, K = 40 - 15 = 25 known calls left: 25 x 20 / 10 = 50
        assert progress.line("x") == ("x: 15/40+ done, 5 cached, 0 retries, 0 errors, "
                                      "ETA ≥ 50s (more calls may follow)")
        calls(progress, clock, 25, 2.0)  # every known call done: nothing to time
        assert progress.line("x").endswith("40/40+ done, 5 cached, 0 retries, 0 errors, "
                                           "no ETA yet (more calls may follow)")
        progress.add_total(7)  # 35 calls in 70 s: 7 more take 14 s
        assert progress.line("x").endswith("ETA ≥ 14s (more calls may follow)")
    # the total is final: the ETA is no longer a bound
    assert progress.line("x") == "x: 40/47 done, 5 cached, 0 retries, 0 errors, ETA 14s"
    printed = out.getvalue().splitlines()
    assert sum("no ETA yet" in line for line in printed) == MIN_TIMED - 1 + 5 + 1
    assert printed[MIN_TIMED - 1 + 5].endswith("ETA ≥ 50s (more calls may follow)")


def test_the_bar_shows_the_same_bound() -> None:
    clock = Clock()
    console = Console(file=io.StringIO(), width=200, record=True)
    bar = RichProgress("audit m", clock=clock, console=console)
    with bar.growing():
        bar.add_total(130)
        calls(bar, clock, MIN_TIMED - 1, 3.0)
        assert bar.eta_floor() is None
        calls(bar, clock, 1, 3.0)
        # 10 calls in 30 s, 120 known left: 360 s, written as rich writes time left
        assert bar.eta_floor() == 360.0
        bar.close()
    shown = console.export_text()
    assert "10/130+" in shown and "ETA ≥ 0:06:00 (more calls may follow)" in shown
