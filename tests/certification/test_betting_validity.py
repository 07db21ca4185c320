"""The betting test's wrong-verdict rate on the boundary (issue 46): scores drawn with mean
exactly PG, 0/1, partial credit and continuous, at the audit's defaults (PG 0.8, RID 0.2,
δ 0.05, looks 8, 12, ..., 512 in blocks of four), over at least 100,000 runs each.

The runs are simulated here with numpy from the test's definition (`by_hand`: 20 bets, the
wealths against 1/δ and 2/δ, the stop once every remaining answer right could not certify by
the budget), not with the package's code; a few hundred runs are replayed through
`certify_sequential` to show the two agree. At mean = PG, "understands" is the wrong verdict
the test must keep under δ (Ville's inequality); "does not understand" is wrong too, as the
mean is not below PG, and is kept under δ/2 + δ/2.
"""

from __future__ import annotations

import math

import by_hand
import numpy as np
import pytest

from verstehen.methods.certification.sequential import certify_sequential
from verstehen.methods.certification.verdict import Decision

pytestmark = pytest.mark.not_fast  # Monte Carlo over 100,000 runs: seconds per test

PG, RID, DELTA, BUDGET = 0.8, 0.2, 0.05, 512
LOOKS = by_hand.looks(8, BUDGET, 4)
FRACTIONS = np.array([f for f, _ in by_hand.BETS])
LOG_WEIGHTS = np.log([w for _, w in by_hand.BETS])
GOOD, BAD = math.log(1 / DELTA), math.log(2 / DELTA)
UNDERSTANDS, DOES_NOT, ON, STOPPED = 1, -1, 2, 0


def log_factor(x: np.ndarray, theta: float, upward: bool) -> np.ndarray:
    """log of 1 + φ(x/θ - 1) (or of 1 + φ((1 - x)/(1 - θ) - 1)), one column per bet."""
    ratio = x / theta if upward else (1 - x) / (1 - theta)
    return np.log1p(np.multiply.outer(ratio - 1, FRACTIONS))


def mixed(totals: np.ndarray) -> np.ndarray:
    """log Σ_g w_g exp(totals_g) per row."""
    top = totals.max(axis=-1)
    return top + np.log(np.exp(totals - top[..., None] + LOG_WEIGHTS).sum(axis=-1))


def decide(up: np.ndarray, down: np.ndarray, zeros: np.ndarray, n: int) -> np.ndarray:
    """What a look does, from each run's per-bet log wealths on the scores (against PG: `up`
    for "mean above", `down` for "below") and its count of ridiculous answers."""
    z_up = zeros[:, None] * log_factor(np.ones(1), RID, True) \
        + (n - zeros)[:, None] * log_factor(np.zeros(1), RID, True)
    z_down = zeros[:, None] * log_factor(np.ones(1), RID, False) \
        + (n - zeros)[:, None] * log_factor(np.zeros(1), RID, False)
    certify = (mixed(up) >= GOOD) & (mixed(z_down) >= GOOD)
    refute = (mixed(down) >= BAD) | (mixed(z_up) >= BAD)
    rest = BUDGET - n  # every remaining answer right: x = 1, not ridiculous
    reach = ((mixed(up + rest * log_factor(np.ones(1), PG, True)) >= GOOD)
             & (mixed(z_down + rest * log_factor(np.zeros(1), RID, False)) >= GOOD))
    return np.where(certify, UNDERSTANDS, np.where(refute, DOES_NOT,
                                                   np.where(reach, ON, STOPPED)))


def run_counts(values: list[float], probs: list[float], runs: int,
               rng: np.random.Generator) -> np.ndarray:
    """The verdicts of `runs` runs whose scores take `values` with `probs` (by counts)."""
    x = np.array(values)
    up_f, down_f = log_factor(x, PG, True), log_factor(x, PG, False)
    counts = np.zeros((runs, len(values)))
    state = np.full(runs, ON)
    before = 0
    for n in LOOKS:
        going = np.flatnonzero(state == ON)
        counts[going] += rng.multinomial(n - before, probs, size=going.size)
        c = counts[going]
        state[going] = decide(c @ up_f, c @ down_f, c[:, x == 0].sum(axis=1), n)
        before = n
    return state


def run_paths(scores: np.ndarray, chunk: int = 5000) -> np.ndarray:
    """The verdicts of runs given as rows of scores (answer by answer)."""
    out = np.empty(len(scores), dtype=int)
    for start in range(0, len(scores), chunk):
        rows = scores[start:start + chunk]
        up = np.zeros((len(rows), FRACTIONS.size))
        down, zeros = up.copy(), np.zeros(len(rows))
        state = np.full(len(rows), ON)
        before = 0
        for n in LOOKS:
            going = np.flatnonzero(state == ON)
            new = rows[going, before:n]
            up[going] += log_factor(new, PG, True).sum(axis=1)
            down[going] += log_factor(new, PG, False).sum(axis=1)
            zeros[going] += (new == 0).sum(axis=1)
            state[going] = decide(up[going], down[going], zeros[going], n)
            before = n
        out[start:start + chunk] = state
    return out


def replayed(scores: np.ndarray) -> list[int]:
    """The same runs through the package's sequential test."""
    code = {Decision.UNDERSTANDS: UNDERSTANDS, Decision.DOES_NOT_UNDERSTAND: DOES_NOT,
            Decision.INCONCLUSIVE: STOPPED}
    return [code[certify_sequential(row, PG, RID, DELTA, first=8, max_n=BUDGET,
                                    block=4).decision] for row in scores]


def test_the_simulation_is_the_package_test() -> None:
    """Runs near the boundary, answer by answer: the simulation here and certify_sequential
    reach the same verdict on every one (and some of each kind)."""
    rng = np.random.default_rng(46)
    scores = np.concatenate([(rng.random((150, BUDGET)) < p).astype(float)
                             for p in (0.7, 0.8, 0.9)])
    scores[:60, ::3] = np.round(rng.random((60, BUDGET))[:, ::3], 2)  # partial credit too
    mine = run_paths(scores)
    assert list(mine) == replayed(scores)
    assert {UNDERSTANDS, DOES_NOT, STOPPED} <= set(mine)


@pytest.mark.parametrize(("name", "values", "probs"), [
    ("0/1", [0.0, 1.0], [0.2, 0.8]),
    # partial credit in sixths, as arithmetic's digits: mean 0.1·0 + 0.3·(1/2 + 2/3 + 5/6)/3
    # + 0.6·1 = 0.8, a tenth ridiculous
    ("partial", [0.0, 1 / 2, 2 / 3, 5 / 6, 1.0], [0.1, 0.1, 0.1, 0.1, 0.6]),
])
def test_on_the_boundary_wrong_verdicts_stay_under_delta(name: str, values: list[float],
                                                         probs: list[float]) -> None:
    assert sum(v * p for v, p in zip(values, probs, strict=True)) == pytest.approx(PG)
    runs = 100_000
    state = run_counts(values, probs, runs, np.random.default_rng(2046))
    understands, does_not = np.mean(state == UNDERSTANDS), np.mean(state == DOES_NOT)
    se = math.sqrt(DELTA * (1 - DELTA) / runs)
    assert understands <= DELTA - 3 * se, (name, understands)
    assert does_not <= DELTA - 3 * se, (name, does_not)
    assert understands > 0.005  # not vacuous: the test comes near the bound it keeps


def test_continuous_scores_on_the_boundary_keep_the_rate_under_delta() -> None:
    """Scores from Beta(4, 1), mean exactly 0.8, never 0: 100,000 runs answer by answer."""
    rng = np.random.default_rng(4601)
    runs = 100_000
    state = np.concatenate([run_paths(rng.beta(4.0, 1.0, (20_000, BUDGET)))
                            for _ in range(runs // 20_000)])
    understands = np.mean(state == UNDERSTANDS)
    assert understands <= DELTA - 3 * math.sqrt(DELTA * (1 - DELTA) / runs), understands
    assert np.mean(state == DOES_NOT) <= DELTA
