"""An incoherence rate (paper Table 7): a piece of `PotemkinIncoherenceResult` (results.py) that
report.py puts into words without importing results.py."""

from __future__ import annotations

from dataclasses import dataclass

from verstehen.results import JsonForm


@dataclass(frozen=True)
class Incoherence(JsonForm):
    """2 x the mismatch rate over the examples the model classified, its SE and n; `unparsed`
    counts classifications that gave no yes or no."""

    n: int
    unparsed: int
    incoherence: float | None
    se: float | None
