"""Planning: how many questions a scope needs before the procedure is likely to decide."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from statistics import NormalDist

from verstehen.methods.certification import power as exact
from verstehen.methods.certification.bounds import chernoff_lower, chernoff_upper
from verstehen.methods.certification.verdict import DEFAULT_TEST, DOUBLING, Criterion, look_delta

_MAX_DOUBLINGS = 45  # 2**45 questions: beyond any budget, so "never" in practice

# The default criterion of certify, plan and audit (CLI and Python). The paper's examples (PG
# .7, RID .001) need 2,995 answers without a ridiculous one before even a perfect model is
# certified, more than any default budget asks. On a concept every wrong answer scores 0, so
# RID = 1 - PG asks one thing there: accuracy of at least PG. A perfect model is certified
# after 14 questions at a fixed n (L(1, n, .05) = .05^(1/n) >= .8), and after 18 by the
# betting test (20 where it looks at whole blocks of 4, a concept's); a model whose every
# answer scores 0 is refuted after 3 questions, and at either test's first look.
DEFAULT_CRITERION = Criterion(pg=0.8, rid=0.2, delta=0.05)
DEFAULT_PG, DEFAULT_RID, DEFAULT_DELTA = (DEFAULT_CRITERION.pg, DEFAULT_CRITERION.rid,
                                          DEFAULT_CRITERION.delta)


def _decides(c: Criterion, s: float, r: float, n: int, delta: float, z: float) -> bool:
    """Would Procedure 4.1 decide at n if the observed rates land z standard errors off?"""
    s_sd, r_sd = math.sqrt(s * (1 - s) / n), math.sqrt(r * (1 - r) / n)
    if s > c.pg and r < c.rid:
        s_seen, r_seen = max(s - z * s_sd, 0.0), min(r + z * r_sd, 1.0)
        return bool(chernoff_lower(s_seen, n, delta) >= c.pg
                    and chernoff_upper(r_seen, n, delta) <= c.rid)
    bad_grade = s < c.pg and chernoff_upper(min(s + z * s_sd, 1.0), n, delta / 2) < c.pg
    bad_rid = r > c.rid and chernoff_lower(max(r - z * r_sd, 0.0), n, delta / 2) > c.rid
    return bool(bad_grade or bad_rid)


def _z(power: float) -> float:
    if not 0.5 <= power < 1:
        raise ValueError(f"power must lie in [0.5, 1), not {power}")
    return NormalDist().inv_cdf(power)


def _undecidable(c: Criterion, s: float, r: float) -> bool:
    return not (s > c.pg and r < c.rid) and not (s < c.pg or r > c.rid)


def samples_needed(criterion: Criterion, expected_score: float, expected_rid: float, *,
                   power: float = 0.5) -> int | None:
    """Smallest fixed n at which Procedure 4.1 decides, given the expected rates; None if never.

    power 0.5 plugs the expected rates in as the observed ones; a higher power asks that the
    decision still holds when the observed rates fall that normal quantile short (e.g. 0.8).
    """
    s, r, z = expected_score, expected_rid, _z(power)
    if not (0 <= s <= 1 and 0 <= r <= 1):
        raise ValueError("expected score and ridiculous rate must lie in [0, 1]")
    if _undecidable(criterion, s, r):
        return None
    hi = 1
    while not _decides(criterion, s, r, hi, criterion.delta, z):
        hi *= 2
        if hi > 2**_MAX_DOUBLINGS:
            return None
    lo = hi // 2  # does not decide at lo (or lo == 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _decides(criterion, s, r, mid, criterion.delta, z):
            hi = mid
        else:
            lo = mid
    return hi


def sequential_samples_needed(criterion: Criterion, expected_score: float, expected_rid: float,
                              *, first: int, power: float = 0.5,
                              test: str = DEFAULT_TEST) -> int | None:
    """The first look by which the sequential test likely decides: the betting test's, with
    probability `power`; the doubling test's, at rates `power`'s quantile short of these."""
    if test != DOUBLING:
        return exact.likely_questions(criterion, expected_score, expected_rid, first=first,
                                      power=power)
    s, r, z = expected_score, expected_rid, _z(power)
    if _undecidable(criterion, s, r):
        return None
    for look in range(1, _MAX_DOUBLINGS + 1):
        n = first << (look - 1)
        if _decides(criterion, s, r, n, look_delta(criterion.delta, look), z):
            return n
    return None


@dataclass(frozen=True)
class Nearby:
    """A criterion near the asked one under which the expected rates decide, and when."""

    criterion: Criterion
    fixed_questions: int
    sequential_questions: int | None


def nearby_criterion(criterion: Criterion, expected_score: float, expected_rid: float, *,
                     first: int, power: float = 0.5, step: float = 0.05,
                     test: str = DEFAULT_TEST) -> Nearby | None:
    """Where the expected rates sit on a threshold (no n decides): PG `step` below the score,
    or RID `step` above the rate (on a grid of 0.01), and the questions they then need; None
    when that is no valid criterion or still never decides."""
    s, r = expected_score, expected_rid
    pg, rid = criterion.pg, criterion.rid
    if s <= pg:  # the score sits on PG: a PG below it
        pg = math.floor(round((s - step) * 100, 6)) / 100
    if r >= rid:  # the rate sits on RID: a RID above it
        rid = math.ceil(round((r + step) * 100, 6)) / 100
    if not 0 < rid < pg < 1:
        return None
    near = replace(criterion, pg=pg, rid=rid)
    fixed = samples_needed(near, s, r, power=power)
    if fixed is None:
        return None
    return Nearby(near, fixed, sequential_samples_needed(near, s, r, first=first, power=power,
                                                         test=test))
