"""How many threads the in-process model runs on: a fixed number the user gave, or the cores
that other processes leave free, looked at again before every call.

llama.cpp's worker threads wait for each other at every layer, so one thread descheduled by
another process stalls them all: with two busy processes beside it on 2 cores, a reply took
13-92x longer with 2 threads than with 1. Running only on the cores nobody else uses avoids
that collapse and costs little when the machine is idle.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

from verstehen.errors import UserError

ENV_VARIABLE = "VERSTEHEN_THREADS"
# a core counts as taken once others use more than this share of it
_TAKEN_ABOVE = 0.25
# calls closer together than this keep the last decision: the window would be mostly our own
_MIN_WINDOW_S = 0.2


def cores_available() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def fixed_threads(requested: int | None = None) -> int | None:
    """The thread count the user fixed: `requested`, else $VERSTEHEN_THREADS; None: adapt."""
    if requested is not None:
        if requested < 1:
            raise UserError(f"threads must be at least 1, not {requested}")
        return requested
    text = os.environ.get(ENV_VARIABLE, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise UserError(f"${ENV_VARIABLE} must be a whole number of at least 1, not {text!r} "
                        "(unset it to adapt the threads to the load)")
    return int(text)


@dataclass(frozen=True)
class _CpuSample:
    wall: float
    busy_all: float  # CPU seconds of every process on the machine
    busy_own: float  # CPU seconds of this process


def _sample() -> _CpuSample | None:
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    # user nice system idle iowait irq softirq steal ...: busy is all but idle and iowait
    ticks = [int(x) for x in fields[1:9]]
    busy = sum(ticks) - ticks[3] - ticks[4]
    own = os.times()
    return _CpuSample(time.monotonic(), busy / os.sysconf("SC_CLK_TCK"), own.user + own.system)


class ThreadPolicy:
    """Chooses the thread count before each call: the fixed one, or the free cores."""

    def __init__(self, requested: int | None = None) -> None:
        self.fixed = fixed_threads(requested)
        self.source = "--threads" if requested is not None else f"${ENV_VARIABLE}"
        self.cores = cores_available()
        self._last = _sample()
        self._choice = self.fixed or self.cores
        self._looked = False

    def others_busy(self) -> float | None:
        """Cores other processes kept busy since the last look; None where it cannot tell."""
        now = _sample()
        if now is None or self._last is None:
            return None
        elapsed = now.wall - self._last.wall
        if elapsed < _MIN_WINDOW_S:
            return None
        others = (now.busy_all - self._last.busy_all) - (now.busy_own - self._last.busy_own)
        self._last = now
        return max(0.0, others / elapsed)

    def choose(self) -> int:
        """The threads for the next call (the last choice when it is too soon to look again)."""
        if self.fixed is not None:
            return self.fixed
        if not self._looked and self._last is not None:  # the first call waits for one look
            time.sleep(max(0.0, self._last.wall + _MIN_WINDOW_S - time.monotonic()))
        others = self.others_busy()
        if others is not None:
            self._looked = True
            taken = max(0, math.ceil(others - _TAKEN_ABOVE))
            self._choice = max(1, self.cores - taken)
        return self._choice

    def describe(self) -> str:
        """One phrase for `verstehen models`: the count and where it comes from."""
        if self.fixed is not None:
            return f"{self.fixed} thread{'s' * (self.fixed != 1)} (fixed by {self.source})"
        return (f"{self._choice} of {self.cores} cores now (adapts to the load before each call;"
                f" --threads N or ${ENV_VARIABLE} fixes it)")
