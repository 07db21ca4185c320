"""Means and rates with their standard errors."""

from __future__ import annotations

import math
from collections.abc import Sequence


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """The mean and its standard error, sqrt(s²/n) with the sample variance s² (0 when n = 1)."""
    n = len(values)
    mean = sum(values) / n
    var = sum((x - mean) ** 2 for x in values) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var / n)


def rate_se(count: int, n: int) -> tuple[float, float]:
    """The rate count/n and its binomial standard error sqrt(p(1-p)/n)."""
    rate = count / n
    return rate, math.sqrt(rate * (1 - rate) / n)
