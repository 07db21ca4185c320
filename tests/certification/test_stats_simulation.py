"""Monte Carlo checks of the error guarantees (Theorem 1 and its sequential variant).

Scores are drawn from discrete distributions on [0, 1] with known probabilities, so the truth
(mean >= PG and P(score = 0) <= RID) is computed exactly from the parameters, never from the
samples. Procedure 4.1 is vectorized over runs with the package's chernoff_lower/upper and
cross-checked against certify / certify_sequential on a few runs.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest

from verstehen.methods.certification.bounds import chernoff_lower, chernoff_upper
from verstehen.methods.certification.decide import certify
from verstehen.methods.certification.sequential import certify_sequential
from verstehen.methods.certification.verdict import Decision, checkpoints, look_delta

pytestmark = pytest.mark.not_fast  # Monte Carlo over thousands of runs: seconds per test

DELTA = 0.05
CODE = {Decision.UNDERSTANDS: 1, Decision.DOES_NOT_UNDERSTAND: -1, Decision.INCONCLUSIVE: 0}


@dataclass(frozen=True)
class Config:
    """A score distribution (values with probabilities, as exact fractions) and a criterion."""

    name: str
    values: tuple[Fraction, ...]
    probs: tuple[Fraction, ...]
    pg: Fraction
    rid: Fraction
    n: int  # questions per run for the fixed-n test
    min_right: float  # fixed n: at least this fraction of runs decides correctly (not vacuous)

    @property
    def truth(self) -> int:
        """+1 if the agent understands (Definition 3.3, exact arithmetic), else -1."""
        assert sum(self.probs) == 1
        mean = sum(v * p for v, p in zip(self.values, self.probs, strict=True))
        ridiculous = sum(p for v, p in zip(self.values, self.probs, strict=True) if v == 0)
        return 1 if mean >= self.pg and ridiculous <= self.rid else -1

    def sample(self, rng: np.random.Generator, runs: int, n: int) -> np.ndarray:
        """A runs x n matrix of independent scores."""
        values = np.array([float(v) for v in self.values])
        cum = np.cumsum([float(p) for p in self.probs])
        cum[-1] = 1.0
        idx = np.searchsorted(cum, rng.random((runs, n)), side="right")
        return values[idx]


F = Fraction
# Near the decision boundaries; the comment says which decisive verdict would be wrong.
CONFIGS = [
    # mean PG - 0.02 = 0.78, no zeros (scores 0.5 or 1): wrong = "understands"
    Config("mean below PG", (F(1, 2), F(1)), (F(44, 100), F(56, 100)), F(8, 10), F(5, 100),
           2000, 0.1),
    # nearly Bernoulli scores (0.001 or 1), mean 0.7497 just below PG: the bound is nearly
    # tight for such scores, so wrong verdicts actually occur (~1%)
    Config("near-Bernoulli mean below PG", (F(1, 1000), F(1)),
           (F(2503, 9990), F(7487, 9990)), F(3, 4), F(2, 10), 500, 0.0),
    # ridiculous rate 0.025 > RID 0.02, mean 0.975 >> PG: wrong = "understands"
    Config("rid above RID", (F(0), F(1)), (F(25, 1000), F(975, 1000)), F(8, 10), F(2, 100),
           2000, 0.05),
    # mean PG + 0.019 = 0.819, rid 0.002 << RID 0.02: wrong = "does not understand"
    Config("mean above PG", (F(0), F(1, 2), F(1)), (F(2, 1000), F(358, 1000), F(640, 1000)),
           F(8, 10), F(2, 100), 2000, 0.1),
    # exactly on the boundary (mean == PG, rid == RID counts as understanding): wrong = "does not"
    Config("on the boundary", (F(0), F(1, 2), F(1)), (F(5, 100), F(40, 100), F(55, 100)),
           F(3, 4), F(5, 100), 500, 0.0),
]
EXPECTED_TRUTH = {"mean below PG": -1, "near-Bernoulli mean below PG": -1, "rid above RID": -1,
                  "mean above PG": 1, "on the boundary": 1}


def procedure_4_1(s_hat: np.ndarray, r_hat: np.ndarray, n: int, pg: float, rid: float,
                  delta: float) -> np.ndarray:
    """Procedure 4.1 over many runs at once: +1 understands, -1 does not, 0 inconclusive."""
    good = ((np.asarray(chernoff_lower(s_hat, n, delta)) >= pg)
            & (np.asarray(chernoff_upper(r_hat, n, delta)) <= rid))
    bad = ((np.asarray(chernoff_upper(s_hat, n, delta / 2)) < pg)
           | (np.asarray(chernoff_lower(r_hat, n, delta / 2)) > rid))
    return np.where(good, 1, np.where(bad, -1, 0))


def sequential(scores: np.ndarray, pg: float, rid: float, delta: float, first: int,
               max_n: int) -> np.ndarray:
    """Procedure 4.1 at checkpoints with delta_j, stopping at the first decisive look."""
    sums = np.cumsum(scores, axis=1)
    zeros = np.cumsum(scores == 0.0, axis=1)
    verdict = np.zeros(scores.shape[0], dtype=int)
    for look, n in enumerate(checkpoints(first, max_n), start=1):
        now = procedure_4_1(sums[:, n - 1] / n, zeros[:, n - 1] / n, n, pg, rid,
                            look_delta(delta, look))
        verdict = np.where(verdict == 0, now, verdict)
    return verdict


def test_configs_have_the_intended_truth() -> None:
    assert {c.name: c.truth for c in CONFIGS} == EXPECTED_TRUTH


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.name)
def test_fixed_n_wrong_verdicts_at_most_delta(config: Config) -> None:
    runs, n = 3000, config.n
    rng = np.random.default_rng(20240611)
    scores = config.sample(rng, runs, n)
    pg, rid = float(config.pg), float(config.rid)
    s_hat, r_hat = scores.mean(axis=1), (scores == 0.0).mean(axis=1)
    verdict = procedure_4_1(s_hat, r_hat, n, pg, rid, DELTA)
    wrong = np.mean(verdict == -config.truth)
    assert wrong <= DELTA, f"{config.name}: wrong-verdict fraction {wrong}"
    assert np.mean(verdict == config.truth) >= config.min_right  # not vacuous
    # the vectorized procedure is Procedure 4.1 as certify implements it
    for row in range(8):
        v = certify(scores[row], pg, rid, DELTA, plan_more=False)
        assert CODE[v.decision] == verdict[row]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.name)
def test_sequential_wrong_verdicts_at_most_delta(config: Config) -> None:
    runs, max_n, first = 3000, 2048, 16
    rng = np.random.default_rng(31337)
    scores = config.sample(rng, runs, max_n)
    pg, rid = float(config.pg), float(config.rid)
    verdict = sequential(scores, pg, rid, DELTA, first, max_n)
    wrong = np.mean(verdict == -config.truth)
    assert wrong <= DELTA, f"{config.name}: wrong-verdict fraction {wrong}"
    # cross-check one run with certify_sequential: a decisive one where there is one
    row = int(np.flatnonzero(verdict != 0)[0]) if np.any(verdict != 0) else 0
    v = certify_sequential(scores[row], pg, rid, DELTA, first=first, max_n=max_n,
                           test="doubling")
    assert CODE[v.decision] == verdict[row]


# --------------------------------------------------------------------------------------------
# Naive repeated testing versus the sequential procedure
# --------------------------------------------------------------------------------------------

# Scores are 0.001 or 1 (no ridiculous answers, nearly Bernoulli, where the Chernoff bound is
# close to tight); the true mean 0.7499 is just below PG = 0.75, so "understands" is wrong.
# RID = 0.5 is loose: Good-Rid holds from n = 5 on, and the grade alone decides.
LOW, PG, RID, TRUE_MEAN = 0.001, 0.75, 0.5, 0.7499
N_MAX, RUNS = 4000, 3000


@functools.cache
def count_thresholds() -> tuple[np.ndarray, np.ndarray]:
    """For n = 1..N_MAX: the fewest 1-scores k giving Good-Grade, the most giving Bad-Grade.

    With k scores of 1 and n - k of LOW the mean is LOW + (1 - LOW) k / n, increasing in k, so
    L(mean, n, delta) >= pg iff k >= k_good(n) and U(mean, n, delta/2) < pg iff k <= k_bad(n).
    Found by bisection over k for all n at once (k_good = n + 1: never; k_bad = -1: never).
    """
    ns, pg, delta = np.arange(1, N_MAX + 1), PG, DELTA

    def search(test) -> np.ndarray:
        """Smallest k in [0, n + 1] for which test(k) holds (test monotone, true at n + 1)."""
        lo, hi = np.full(ns.shape, -1), ns + 1
        while np.any(hi - lo > 1):
            mid = (lo + hi) // 2
            ok = np.where(mid <= ns, test(np.clip(mid, 0, ns)), True)
            lo, hi = np.where(ok, lo, mid), np.where(ok, mid, hi)
        return hi

    def mean(k: np.ndarray) -> np.ndarray:
        return LOW + (1 - LOW) * k / ns

    k_good = search(lambda k: np.asarray(chernoff_lower(mean(k), ns, delta)) >= pg)
    k_bad = search(lambda k: np.asarray(chernoff_upper(mean(k), ns, delta / 2)) >= pg) - 1
    return k_good, k_bad


def test_count_thresholds_agree_with_certify() -> None:
    ns = np.arange(1, N_MAX + 1)
    k_good, k_bad = count_thresholds()
    for n in (11, 57, 400, 2999):
        k = int(k_good[n - 1])
        at = certify(np.r_[np.ones(k), np.full(n - k, LOW)], PG, RID, DELTA, plan_more=False)
        below = certify(np.r_[np.ones(k - 1), np.full(n - k + 1, LOW)], PG, RID, DELTA,
                        plan_more=False)
        assert at.tests["good_grade"] and not below.tests["good_grade"]
        k = int(k_bad[n - 1])
        if k >= 0:
            at = certify(np.r_[np.ones(k), np.full(n - k, LOW)], PG, RID, DELTA,
                         plan_more=False)
            above = certify(np.r_[np.ones(k + 1), np.full(n - k - 1, LOW)], PG, RID, DELTA,
                            plan_more=False)
            assert at.tests["bad_grade"] and not above.tests["bad_grade"]
    # no k gives Good-Grade for n <= 10 (L(1, n, 0.05) = 0.05**(1/n) < 0.75) and Good-Rid
    # holds from n = 5: the first chance to be fooled is n = 11 with eleven 1-scores
    assert np.all(k_good[:10] == ns[:10] + 1) and k_good[10] == 11
    assert chernoff_upper(0.0, 5, DELTA) <= RID < chernoff_upper(0.0, 4, DELTA)


def test_naive_repeated_testing_fails_but_sequential_holds() -> None:
    rng = np.random.default_rng(2024)
    q = (TRUE_MEAN - LOW) / (1 - LOW)  # P(score = 1)
    ones = rng.random((RUNS, N_MAX)) < q
    ns = np.arange(1, N_MAX + 1)

    # Naive: Procedure 4.1 at the full delta after every question, stop at the first decision.
    k = np.cumsum(ones, axis=1, dtype=np.int32)
    k_good, k_bad = count_thresholds()
    good_rid = np.asarray(chernoff_upper(0.0, ns, DELTA)) <= RID
    says_yes = (k >= k_good) & good_rid
    says_no = k <= k_bad
    never = N_MAX + 1
    first_yes = np.where(says_yes.any(axis=1), says_yes.argmax(axis=1), never)
    first_no = np.where(says_no.any(axis=1), says_no.argmax(axis=1), never)
    naive_wrong = np.mean(first_yes < first_no)
    assert naive_wrong > 2 * DELTA, f"naive repeated testing wrong in {naive_wrong} of runs"

    # Sequential: same data, checkpoints 16, 32, ..., 2048, 4000 with delta_j.
    scores = np.where(ones, 1.0, LOW)
    verdict = sequential(scores, PG, RID, DELTA, first=16, max_n=N_MAX)
    seq_wrong = np.mean(verdict == 1)
    assert seq_wrong <= DELTA, f"sequential wrong in {seq_wrong} of runs"
    assert seq_wrong < naive_wrong / 4

    # Replay a few naive runs that went wrong early with certify itself, question by question.
    early = np.flatnonzero((first_yes < first_no) & (first_yes < 60))[:3]
    assert early.size == 3
    for row in early:
        stop = int(first_yes[row]) + 1  # number of questions at the first decision
        decisions = [certify(scores[row, :m], PG, RID, DELTA, plan_more=False).decision
                     for m in range(1, stop + 1)]
        assert decisions[-1] == Decision.UNDERSTANDS
        assert set(decisions[:-1]) <= {Decision.INCONCLUSIVE}
