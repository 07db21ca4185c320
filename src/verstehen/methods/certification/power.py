"""The chance of each verdict of a sequential test on 0/1 scores, exactly, by dynamic
programming over the number of right answers (bench/audit_power.py; `verstehen plan`).

A model right with probability p on each question (or, drawn in blocks, p_k on stratum k)
gives 0/1 scores, every wrong answer ridiculous. Each test here decides at a look from the
number right so far: the betting test's wealths (`betting.count_log_wealth`), Procedure 4.1's
Chernoff bounds at δ_j (the doubling test, and the same at any looks under another spending
of δ). So a table of what each look does for each count, and the law of the count at each
look, give the chance of each verdict and the expected questions asked (a run asks up to each
look at once, so it asks exactly up to the look it stops at). A model whose answers are
ridiculous (0) with probability r and otherwise score c is the same walk over the answers
that are not ridiculous (`value` c): how `plan` reads an expected score and rate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from verstehen.methods.certification import betting
from verstehen.methods.certification.bounds import chernoff_lower, chernoff_upper
from verstehen.methods.certification.verdict import DOUBLING, Criterion, look_delta

UNDERSTANDS, DOES_NOT, GOES_ON, STOPS = 0, 1, 2, -1  # what a look does; STOPS: inconclusive


@dataclass(frozen=True)
class Chances:
    """The chance of each verdict and the expected questions of one model."""

    understands: float
    does_not: float
    inconclusive: float
    questions: float

    def wrong(self, holds: bool) -> float:
        """The chance of a wrong verdict when the criterion holds (`holds`) or not."""
        return self.does_not if holds else self.understands


def binomial(k: int, p: float) -> np.ndarray:
    """P(j successes in k independent tries of chance p), j = 0..k."""
    if p <= 0 or p >= 1:
        law = np.zeros(k + 1)
        law[k if p >= 1 else 0] = 1.0
        return law
    j = np.arange(k + 1)
    log_choose = np.concatenate([[0.0], np.cumsum(np.log(k - j[1:] + 1) - np.log(j[1:]))])
    return np.asarray(np.exp(log_choose + j * math.log(p) + (k - j) * math.log1p(-p)))


def _x_wealth(right: np.ndarray, n: int, theta: float, upward: bool,
              value: float) -> np.ndarray:
    """The score wealth of `right` answers scoring `value` and the rest 0."""
    if value == 1.0:
        return betting.count_log_wealth(right, n, theta, upward=upward)
    return betting.counts_log_wealth(np.stack([n - right, right], axis=-1), [0.0, value],
                                     theta, upward=upward)


def _betting_row(criterion: Criterion, n: int, budget: int, last: bool,
                 value: float) -> np.ndarray:
    right = np.arange(n + 1)
    wrong = n - right
    good = math.log(1 / criterion.delta)
    bad = math.log(2 / criterion.delta)
    pg, rid = criterion.pg, criterion.rid
    certify = ((_x_wealth(right, n, pg, True, value) >= good)
               & (betting.count_log_wealth(wrong, n, rid, upward=False) >= good))
    refute = ((_x_wealth(right, n, pg, False, value) >= bad)
              | (betting.count_log_wealth(wrong, n, rid, upward=True) >= bad))
    if last:
        return _row(certify, refute, np.zeros(n + 1, dtype=bool))
    # every later answer right: the budget's look is the best one for both wealths
    more = betting.counts_log_wealth(
        np.stack([wrong, right, np.full(n + 1, budget - n)], axis=-1), [0.0, value, 1.0], pg,
        upward=True)
    reach = (more >= good) & (betting.count_log_wealth(wrong, budget, rid, upward=False)
                              >= good)
    return _row(certify, refute, reach)


def _row(certify: np.ndarray, refute: np.ndarray, reach: np.ndarray) -> np.ndarray:
    row = np.where(reach, GOES_ON, STOPS)
    row[refute & ~certify] = DOES_NOT
    row[certify] = UNDERSTANDS
    return row


def _certifies(criterion: Criterion, right: np.ndarray, n: int, delta: float) -> np.ndarray:
    mean = right / n
    return ((np.asarray(chernoff_lower(mean, n, delta)) >= criterion.pg)
            & (np.asarray(chernoff_upper(1 - mean, n, delta)) <= criterion.rid))


def _chernoff_row(criterion: Criterion, schedule: list[int], deltas: list[float],
                  look: int) -> np.ndarray:
    n, delta = schedule[look], deltas[look]
    right = np.arange(n + 1)
    mean = right / n
    refute = ((np.asarray(chernoff_upper(mean, n, delta / 2)) < criterion.pg)
              | (np.asarray(chernoff_lower(1 - mean, n, delta / 2)) > criterion.rid))
    reach = np.zeros(n + 1, dtype=bool)
    for later in range(look + 1, len(schedule)):
        m = schedule[later]
        reach |= _certifies(criterion, right + m - n, m, deltas[later])
    return _row(_certifies(criterion, right, n, delta), refute, reach)


def betting_rows(criterion: Criterion, schedule: list[int],
                 value: float = 1.0) -> Iterator[np.ndarray]:
    """The betting test's rows of `decision_table`, one look at a time."""
    for look, n in enumerate(schedule):
        yield _betting_row(criterion, n, schedule[-1], look == len(schedule) - 1, value)


def decision_table(criterion: Criterion, schedule: list[int], test: str,
                   deltas: Sequence[float] | None = None, value: float = 1.0
                   ) -> list[np.ndarray]:
    """What each look does after each count of right answers (scoring `value`, the rest 0):
    the betting test, or Procedure 4.1 at δ_j (`deltas`; default the doubling test's)."""
    if test != DOUBLING and deltas is None:
        return list(betting_rows(criterion, schedule, value))
    if value != 1.0:
        raise ValueError("Procedure 4.1's table is of 0/1 scores")
    spent = list(deltas) if deltas is not None else [
        look_delta(criterion.delta, j) for j in range(1, len(schedule) + 1)]
    return [_chernoff_row(criterion, schedule, spent, look) for look in range(len(schedule))]


def _block_law(strata: Sequence[float]) -> np.ndarray:
    law = np.array([1.0])
    for p in strata:
        law = np.convolve(law, [1 - p, p])
    return law


def chances(table: list[np.ndarray], schedule: list[int], strata: Sequence[float]) -> Chances:
    """The verdict chances and expected questions of a model right with probability p_k on
    stratum k, drawn in blocks of every stratum once (every look but the last ends one)."""
    size = len(strata)
    block = _block_law(strata)
    alive = np.array([1.0])  # P(still asking, right answers so far), before the first look
    done = np.zeros(3)
    questions, before = 0.0, 0
    for n, row in zip(schedule, table, strict=True):
        step = n - before
        if size == 1:
            law = binomial(step, strata[0])
        elif step % size == 0:
            law = np.array([1.0])
            for _ in range(step // size):
                law = np.convolve(law, block)
        else:
            raise ValueError(f"look {n} does not end a block of {size}")
        now = np.convolve(alive, law)[:n + 1]
        questions += alive.sum() * step
        for which in (UNDERSTANDS, DOES_NOT):
            done[which] += now[row == which].sum()
        done[2] += now[row == STOPS].sum()
        alive = np.where(row == GOES_ON, now, 0.0)
        before = n
    return Chances(float(done[0]), float(done[1]), float(done[2]), float(questions))


def stopped_by(table: Iterable[np.ndarray], schedule: list[int], p: float,
               power: float) -> int | None:
    """The first look by which the test has decided with probability at least `power`, for
    independent 0/1 scores right with probability p; None when none has."""
    alive, before, decided = np.array([1.0]), 0, 0.0
    for n, row in zip(schedule, table, strict=False):  # rows may be made as they are needed
        now = np.convolve(alive, binomial(n - before, p))[:n + 1]
        decided += now[(row == UNDERSTANDS) | (row == DOES_NOT)].sum()
        if decided >= power:
            return n
        alive = np.where(row == GOES_ON, now, 0.0)
        before = n
    return None


PLAN_HORIZON = 2**13  # the betting test's likely questions worked out exactly up to here


def likely_questions(criterion: Criterion, expected_score: float, expected_rid: float, *,
                     first: int, power: float = 0.5) -> int | None:
    """The betting test's first look by which it has decided with probability `power`, answers
    ridiculous with probability r and else scoring s/(1 - r): exact up to PLAN_HORIZON."""
    s, r = expected_score, expected_rid
    if not (0 <= s <= 1 and 0 <= r <= 1):
        raise ValueError("expected score and ridiculous rate must lie in [0, 1]")
    if not 0.5 <= power < 1:
        raise ValueError(f"power must lie in [0.5, 1), not {power}")
    if r < 1 and first < PLAN_HORIZON:
        schedule = betting.looks(first, PLAN_HORIZON)
        value = min(s / (1 - r), 1.0)
        found = stopped_by(betting_rows(criterion, schedule, value), schedule, 1 - r, power)
        if found is not None:
            return found
    return betting.samples_needed(criterion, s, r, first=first, power=power)
