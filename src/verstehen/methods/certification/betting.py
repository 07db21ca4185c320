"""The betting test: a sequential test of the certification criterion that stays valid
however many looks it takes, wherever it stops.

One wealth per test. To find that the mean score μ is above a threshold θ, a gambler starts
with wealth 1 and, on each answer x in [0, 1], stakes the fraction φ of what the rules allow:
her wealth is multiplied by f(x) = 1 + φ(x/θ - 1), which is at least 1 - φ > 0. If μ <= θ,
E f(X) = 1 + φ(μ/θ - 1) <= 1 whatever the law of X on [0, 1] (partial credit included), so
the wealth is a nonnegative supermartingale (a test martingale: Shafer, JRSS-A 2021;
Waudby-Smith and Ramdas, "Estimating means of bounded random variables by betting", JRSS-B
2024, section 4). An average of such wealths over fixed fractions φ_g with weights w_g is one
too (Robbins' method of mixtures; Howard, Ramdas, McAuliffe and Sekhon, Ann. Stat. 2021).
Ville's inequality, P(sup_t W_t >= 1/α) <= α, then bounds the error of "μ > θ" said at the
first look where W >= 1/α, at any look, with any rule for stopping. Against "μ < θ" she
bets on 1 - x: g(x) = 1 + φ((1 - x)/(1 - θ) - 1). On 0/1 scores f is the likelihood ratio of
Bernoulli(q) to Bernoulli(θ), q = θ + φ(1 - θ): the wealth is Robbins' mixture of
likelihood ratios, a function of (n, right answers) only, so its verdict chances are exact by
dynamic programming (`power.py`).

The criterion, as in Procedure 4.1: "understands" when both the wealth against μ <= PG (bets
on x) and the one against r >= RID (bets on 1 - z, z = 1 for an answer scoring 0) reach 1/δ;
"does not understand" when the wealth against μ >= PG or the one against r <= RID reaches
2/δ. Certifying wrongly needs μ < PG or r > RID and then that wealth to reach 1/δ
(probability <= δ); rejecting wrongly needs one of two wealths to reach 2/δ (<= δ/2 each).
Stopping once "understands" is out of reach (every remaining answer right would not make both
wealths reach 1/δ by the budget) only turns a verdict into "inconclusive".

Stratified draws (`scopes.draw`): a concept's questions come in blocks holding each stratum
once, in shuffled order, so the answers of a block are independent with means μ_1..μ_k
averaging μ. With the stake fixed, E of a block's factors is Π_k (1 + φ(μ_k/θ - 1))
<= (1 + φ(μ/θ - 1))^k <= 1 (arithmetic-geometric means, every factor >= 0): the wealth is a
supermartingale from block end to block end, so the looks fall on block ends. A last look
inside a block (a budget that is not whole blocks) is safe too: its j answers are a uniformly
random j of the k strata, E of their product is e_j(a)/C(k, j) <= (mean a)^j <= 1 (Maclaurin's
inequality), and nothing is looked at after it.

Bounds. f decreases as θ rises, so {θ : W(θ) >= 1/δ} is an interval (0, L]: L is an
anytime-valid lower confidence bound on μ (a confidence sequence); likewise the upper one at
δ/2 and the two on r. A verdict shows these where Procedure 4.1 shows its Chernoff bounds, and
each of its four tests is its bound against PG or RID, exactly the wealth against 1/δ or 2/δ.

The design (bench/audit_power.py compares it with the doubling looks and with Procedure 4.1 at
every look under a spending rule): 20 fractions φ_g = 0.95·g/20, weighted in proportion to g;
looks at `first`, then about 1/8 further each time in whole blocks, and at the budget. Every
look is allowed; the spacing only sets how many questions go out together against how far
past the deciding answer a run may ask.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike

from verstehen.methods.certification.verdict import (
    BettingLook,
    Criterion,
    Decision,
    Verdict,
    decide_tests,
)

FRACTIONS = 0.95 * np.arange(1, 21) / 20  # each bet's share of the largest stake allowed
_LOG_WEIGHTS = np.log(np.arange(1, 21) / 210.0)  # weights in proportion to the fraction
GROWTH = (9, 8)  # each look about 1/8 beyond the one before (as a ratio of whole numbers)
_MAX_N = 2**44  # beyond any budget: "never"
_STEPS = 52  # bisection steps of a bound: the spacing of doubles near 1
# each test: bets on the score (x) or on the ridiculous indicator (z), upward (μ above θ) or
# not, at PG or RID, against 1/δ ("understands") or 2/δ ("does not")
TESTS = {"good_grade": ("x", True), "good_rid": ("z", False), "bad_grade": ("x", False),
         "bad_rid": ("z", True)}


def looks(first: int, budget: int, block: int = 1) -> list[int]:
    """The looks: `first` rounded up to whole blocks, then each the first whole block at least
    1/8 beyond the one before, and the budget as the last."""
    if first < 1 or block < 1 or budget < first:
        raise ValueError(f"need 1 <= first ({first}) <= budget ({budget}) and block >= 1")
    out = []
    n = -(-first // block) * block
    while n < budget:
        out.append(n)
        n = -(-max(n + block, -(-n * GROWTH[0] // GROWTH[1])) // block) * block
    return [*out, budget]


def _totals(values: np.ndarray, theta: float, upward: bool) -> np.ndarray:
    """Each bet's log wealth on `values` against θ (grouped by value: scores repeat)."""
    distinct, counts = np.unique(values, return_counts=True)
    return np.asarray(counts @ _log_factors(distinct, theta, upward))


def _log_factors(x: np.ndarray, theta: float, upward: bool) -> np.ndarray:
    ratio = x / theta if upward else (1.0 - x) / (1.0 - theta)
    return np.asarray(np.log1p(np.multiply.outer(ratio - 1.0, FRACTIONS)))


def _mixed(totals: np.ndarray) -> np.ndarray:
    """log Σ_g w_g exp(totals_g), along the last axis."""
    top = np.max(totals, axis=-1)
    return np.asarray(top + np.log(np.sum(np.exp(totals - top[..., None] + _LOG_WEIGHTS),
                                          axis=-1)))


def log_wealth(values: ArrayLike, theta: float, *, upward: bool) -> float:
    """The log of the mixture's wealth on `values` in [0, 1] against the mean θ: betting that
    the mean is above θ (`upward`) or below it."""
    array = np.asarray(values, dtype=float).ravel()
    if not 0 < theta < 1:
        raise ValueError(f"θ must lie in (0, 1), not {theta}")
    if array.size == 0:
        return 0.0
    return float(_mixed(_totals(array, theta, upward)))


def counts_log_wealth(counts: ArrayLike, values: ArrayLike, theta: float, *,
                      upward: bool) -> np.ndarray:
    """The log wealth of samples given as how many times each of `values` came up (one
    sample a row of `counts`; vectorized over rows)."""
    factors = _log_factors(np.asarray(values, dtype=float), theta, upward)
    return np.asarray(_mixed(np.asarray(counts, dtype=float) @ factors))


def count_log_wealth(right: ArrayLike, n: int, theta: float, *, upward: bool) -> np.ndarray:
    """The log wealth of 0/1 values, `right` of them 1 out of `n` (vectorized over `right`)."""
    ones, zeros = (_log_factors(np.array([v]), theta, upward)[0] for v in (1.0, 0.0))
    right = np.asarray(right, dtype=float)
    return np.asarray(_mixed(np.multiply.outer(right, ones) + np.multiply.outer(n - right,
                                                                                 zeros)))


def _level(test: str, delta: float) -> float:
    return math.log((1 if test.startswith("good") else 2) / delta)


def _values(scores: np.ndarray, side: str) -> np.ndarray:
    return scores if side == "x" else (scores == 0.0).astype(float)


def _threshold(test: str, criterion: Criterion) -> float:
    return criterion.pg if TESTS[test][0] == "x" else criterion.rid


def log_wealths(scores: ArrayLike, criterion: Criterion) -> dict[str, float]:
    """Each test's log wealth at its threshold (PG or RID), by the ids of Procedure 4.1."""
    array = np.asarray(scores, dtype=float).ravel()
    return {test: log_wealth(_values(array, side), _threshold(test, criterion), upward=up)
            for test, (side, up) in TESTS.items()}


def tests_of(scores: ArrayLike, criterion: Criterion) -> dict[str, bool]:
    """Which of the four tests pass: each wealth against 1/δ (good) or 2/δ (bad)."""
    return {test: value >= _level(test, criterion.delta)
            for test, value in log_wealths(scores, criterion).items()}


def _bound(values: np.ndarray, test: str, criterion: Criterion) -> float:
    """The confidence bound of one test: the edge of the thresholds its wealth rejects,
    found from the criterion's threshold so that the bound is on the test's side of it."""
    upward = TESTS[test][1]
    level = _level(test, criterion.delta)
    at = _threshold(test, criterion)

    def rejects(theta: float) -> bool:
        return log_wealth(values, theta, upward=upward) >= level

    # upward: rejected below L; the bound is the largest θ rejected (0 when none is)
    # not upward: rejected above U; the bound is the smallest θ rejected (1 when none is)
    inside = rejects(at)
    lo, hi = (at, 1.0) if inside == upward else (0.0, at)
    for _ in range(_STEPS):
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:  # as close as doubles go (near 0 or 1)
            break
        if rejects(mid) == upward:
            lo = mid
        else:
            hi = mid
    return lo if upward else hi


def betting_verdict(scores: ArrayLike, criterion: Criterion, look: int, schedule: list[int],
                    block: int = 1) -> Verdict:
    """The verdict of the betting test at look `look` (1-based) of `schedule` on the first
    schedule[look-1] scores: the four tests, their confidence bounds, each wealth."""
    n = schedule[look - 1]
    array = np.asarray(scores, dtype=float).ravel()[:n]
    if array.size < n or not np.all((array >= 0) & (array <= 1)):
        raise ValueError(f"need {n} scores in [0, 1] for look {look}")
    wealth = log_wealths(array, criterion)
    tests = {test: value >= _level(test, criterion.delta) for test, value in wealth.items()}
    bounds = {test: _bound(_values(array, TESTS[test][0]), test, criterion) for test in TESTS}
    decision, decided_by = decide_tests(tests)
    s_hat, r_hat = float(array.mean()), float(np.count_nonzero(array == 0.0)) / n
    more = None
    if decision == Decision.INCONCLUSIVE:
        needed = samples_needed(criterion, s_hat, r_hat, first=schedule[0])
        more = None if needed is None else max(needed - n, 1)
    return Verdict(decision, n, s_hat, r_hat, score_lower=bounds["good_grade"],
                   score_upper=bounds["bad_grade"], ridiculous_upper=bounds["good_rid"],
                   ridiculous_lower=bounds["bad_rid"], tests=tests, decided_by=decided_by,
                   pg=criterion.pg, rid=criterion.rid, delta=criterion.delta,
                   more_questions=more,
                   details=BettingLook(look, schedule[0], schedule[-1], block,
                                       {t: round(v, 6) for t, v in wealth.items()}))


def understands_reachable(scores: ArrayLike, criterion: Criterion, budget: int) -> bool:
    """Whether "understands" is still within reach: with every later answer right, do both
    wealths reach 1/δ by the budget (their best look: each bet gains on a right answer)?"""
    array = np.asarray(scores, dtype=float).ravel()
    rest = budget - array.size
    if rest <= 0:
        return False
    level = _level("good_grade", criterion.delta)
    for test in ("good_grade", "good_rid"):
        side, upward = TESTS[test]
        theta = _threshold(test, criterion)
        right = _log_factors(np.array([1.0 if side == "x" else 0.0]), theta, upward)[0]
        totals = (_totals(_values(array, side), theta, upward) if array.size
                  else np.zeros(FRACTIONS.size))
        if float(_mixed(totals + rest * right)) < level:
            return False
    return True


def constant_decides_at(criterion: Criterion, score: float) -> int | None:
    """The fewest answers after which every answer scoring `score` (1: a perfect model, 0: one
    always ridiculous) gets its verdict; None past 2**44."""
    if score not in (0.0, 1.0):
        raise ValueError("score must be 0 or 1")
    need = ("good_grade", "good_rid") if score == 1.0 else ("bad_grade", "bad_rid")
    found = [first_crossing(test, _threshold(test, criterion), criterion.delta, score)
             for test in need]
    if score == 1.0:  # both must cross
        return None if None in found else max(n for n in found if n is not None)
    return min((n for n in found if n is not None), default=None)  # either does


def first_crossing(test: str, theta: float, delta: float, score: float) -> int | None:
    """The first n at which n answers scoring `score` bring one test's wealth, against the
    threshold θ, to its level (ln(1/δ) for a good test, ln(2/δ) for a bad one)."""
    side, upward = TESTS[test]
    value = score if side == "x" else float(score == 0.0)
    factors = _log_factors(np.array([value]), theta, upward)[0]
    level = _level(test, delta)
    if np.all(factors <= 0):
        return None

    def crosses(n: int) -> bool:
        return float(_mixed(n * factors)) >= level

    hi = 1
    while not crosses(hi):
        hi *= 2
        if hi > _MAX_N:
            return None
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if crosses(mid) else (mid, hi)
    return hi


def _growth(test: str, criterion: Criterion, s: float, r: float) -> np.ndarray:
    """Each bet's log gain per answer of a model right (score 1) a share s of the time, with
    a share r of answers ridiculous: 0/1 answers, which gain least at a given mean."""
    side, upward = TESTS[test]
    mean = s if side == "x" else r
    ones, zeros = (_log_factors(np.array([v]), _threshold(test, criterion), upward)[0]
                   for v in (1.0, 0.0))
    return np.asarray(mean * ones + (1 - mean) * zeros)


def samples_needed(criterion: Criterion, expected_score: float, expected_rid: float, *,
                   first: int, power: float = 0.5) -> int | None:
    """The first look (from `first`) at which each wealth, grown at its expected rate from
    rates `power`'s normal quantile short of these, decides; None where none does."""
    s, r = expected_score, expected_rid
    if not (0 <= s <= 1 and 0 <= r <= 1):
        raise ValueError("expected score and ridiculous rate must lie in [0, 1]")
    if not 0.5 <= power < 1:
        raise ValueError(f"power must lie in [0.5, 1), not {power}")
    z = NormalDist().inv_cdf(power)
    good = s > criterion.pg and r < criterion.rid
    if not good and not (s < criterion.pg or r > criterion.rid):
        return None
    n = first
    while n <= _MAX_N:
        s_sd, r_sd = math.sqrt(s * (1 - s) / n), math.sqrt(r * (1 - r) / n)
        if _plugged_decides(criterion, good, s + (-z if good else z) * s_sd,
                            r + (z if good else -z) * r_sd, n):
            return n
        n = max(n + 1, -(-n * GROWTH[0] // GROWTH[1]))
    return None


def _plugged_decides(criterion: Criterion, good: bool, s: float, r: float, n: int) -> bool:
    s, r = min(max(s, 0.0), 1.0), min(max(r, 0.0), 1.0)

    def reaches(test: str) -> bool:
        return float(_mixed(n * _growth(test, criterion, s, r))) >= _level(test,
                                                                             criterion.delta)

    if good:
        return reaches("good_grade") and reaches("good_rid")
    return (s < criterion.pg and reaches("bad_grade")) or (r > criterion.rid
                                                            and reaches("bad_rid"))
