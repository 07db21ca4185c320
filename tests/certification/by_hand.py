"""The betting test worked out from its definition (betting.py's docstring), in plain Python,
apart from the package's numpy code: 20 bets, the g-th staking 0.95·g/20 of the largest stake
and weighted g/210; on an answer x the bet on "mean above θ" multiplies its wealth by
1 + φ(x/θ - 1), the one on "mean below θ" by 1 + φ((1 - x)/(1 - θ) - 1)."""

from __future__ import annotations

import math

BETS = [(0.95 * g / 20, g / 210) for g in range(1, 21)]  # (fraction, weight)


def wealth(values: list[float], theta: float, upward: bool) -> float:
    """The mixture's wealth after `values`."""
    total = 0.0
    for fraction, weight in BETS:
        product = 1.0
        for x in values:
            ratio = x / theta if upward else (1 - x) / (1 - theta)
            product *= 1 + fraction * (ratio - 1)
        total += weight * product
    return total


def constant_wealth(factor_of: float, n: int) -> float:
    """The wealth after n answers that each multiply bet φ by 1 + φ·factor_of."""
    return sum(weight * (1 + fraction * factor_of) ** n for fraction, weight in BETS)


def first_n(factor_of: float, level: float) -> int:
    """The fewest answers, each multiplying bet φ by 1 + φ·factor_of, that bring the wealth
    to `level`."""
    n = 1
    while constant_wealth(factor_of, n) < level:
        n += 1
    return n


def perfect_needs(pg: float, rid: float, delta: float) -> int:
    """Answers scoring 1 that certify: the bet on mean > PG gains 1/PG - 1 a unit stake, the
    bet on ridiculous rate < RID (no answer ridiculous) 1/(1 - RID) - 1; both reach 1/δ."""
    return max(first_n(1 / pg - 1, 1 / delta), first_n(1 / (1 - rid) - 1, 1 / delta))


def zero_needs(pg: float, rid: float, delta: float) -> int:
    """Answers scoring 0 that refute: the bet on mean < PG gains 1/(1 - PG) - 1, the one on
    ridiculous rate > RID gains 1/RID - 1; either reaching 2/δ."""
    return min(first_n(1 / (1 - pg) - 1, 2 / delta), first_n(1 / rid - 1, 2 / delta))


def looks(first: int, budget: int, block: int = 1) -> list[int]:
    """The looks: `first` rounded up to a whole block, then each the first whole block at
    least 1/8 beyond the last (and at least a block on), and the budget."""
    out, n = [], math.ceil(first / block) * block
    while n < budget:
        out.append(n)
        n = math.ceil(max(n + block, math.ceil(n * 9 / 8)) / block) * block
    return [*out, budget]


def loosest_rid(budget: int, rid: float = 0.0, delta: float = 0.05) -> float:
    """The least RID on the grid of 0.01 above `rid` whose bet on "no answer ridiculous"
    reaches 1/δ within `budget` right answers."""
    return next(r / 100 for r in range(1, 100) if r / 100 > rid
                and constant_wealth(1 / (1 - r / 100) - 1, budget) >= 1 / delta)
