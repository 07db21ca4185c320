"""Verdicts: Procedure 4.1 (independent samples) and Procedure 5.1 (samples plus explanations).

A verdict is "understands" (mean score >= PG and ridiculous rate <= RID), "does not
understand" (mean < PG or rate > RID), or "inconclusive"; a decisive verdict is wrong with
probability at most δ (paper Theorems 1 and 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

import numpy as np
from numpy.typing import ArrayLike

from verstehen.methods.certification.bounds import chernoff_lower, chernoff_upper
from verstehen.methods.certification.plan import samples_needed
from verstehen.methods.certification.verdict import (
    Criterion,
    Decision,
    DeltaSplit,
    ExplainedMix,
    FamilyBound,
    Verdict,
    decide_tests,
)


class _Bounds(TypedDict):
    """The four bounds of a verdict, as Verdict's keyword arguments."""

    score_lower: float
    score_upper: float
    ridiculous_upper: float
    ridiculous_lower: float


def _tests(bounds: _Bounds, pg: float, rid: float) -> dict[str, bool]:
    """The four tests of Procedures 4.1 and 5.1 on the bounds they compare."""
    return {
        "good_grade": bounds["score_lower"] >= pg,
        "good_rid": bounds["ridiculous_upper"] <= rid,
        "bad_grade": bounds["score_upper"] < pg,
        "bad_rid": bounds["ridiculous_lower"] > rid,
    }


def check_scores(scores: ArrayLike) -> np.ndarray:
    """Scores as a float array; ValueError if empty, non-finite or outside [0, 1]."""
    array = np.asarray(scores, dtype=float).ravel()
    if array.size == 0:
        raise ValueError("no scores: certification needs at least one answered question")
    if not np.all(np.isfinite(array)) or np.any((array < 0) | (array > 1)):
        raise ValueError("every score must be a number in [0, 1]")
    return array


def certify(scores: ArrayLike, pg: float, rid: float, delta: float, *,
            plan_more: bool = True) -> Verdict:
    """Procedure 4.1 on independently sampled scores; a score of exactly 0 is ridiculous."""
    criterion = Criterion(pg, rid, delta)
    array = check_scores(scores)
    n = int(array.size)
    s_hat = float(array.mean())
    r_hat = float(np.count_nonzero(array == 0.0)) / n
    bounds: _Bounds = {
        "score_lower": float(chernoff_lower(s_hat, n, delta)),
        "score_upper": float(chernoff_upper(s_hat, n, delta / 2)),
        "ridiculous_upper": float(chernoff_upper(r_hat, n, delta)),
        "ridiculous_lower": float(chernoff_lower(r_hat, n, delta / 2)),
    }
    tests = _tests(bounds, pg, rid)
    decision, decided_by = decide_tests(tests)
    more = None
    if decision == Decision.INCONCLUSIVE and plan_more:
        needed = samples_needed(criterion, s_hat, r_hat)
        more = None if needed is None else max(needed - n, 1)
    return Verdict(decision, n, s_hat, r_hat, tests=tests, decided_by=decided_by,
                   pg=pg, rid=rid, delta=delta, more_questions=more, **bounds)


@dataclass(frozen=True)
class ExplainedFamily:
    """A family of questions covered by an explanation (paper section 5).

    `probability` is p_α, the chance a question of the scope falls in the family. Give either
    `scores`, the explanation's scores on questions drawn from the family (we bound s_α and
    r_α from them), or `exact_score`, the paper's assumption that s_α is known exactly.
    """

    family: str
    probability: float
    scores: np.ndarray | None = None
    exact_score: float | None = None


def _family_bounds(fam: ExplainedFamily, delta_good: float, delta_bad: float) -> FamilyBound:
    if fam.scores is None:
        if fam.exact_score is None or not 0 <= fam.exact_score <= 1:
            raise ValueError(f"family {fam.family}: give scores or an exact score in [0, 1]")
        s = fam.exact_score
        r = 1.0 if s == 0 else 0.0
        return FamilyBound(fam.family, fam.probability, None, s, r, s, s, r, r)
    scores = check_scores(fam.scores)
    m = int(scores.size)
    s_hat = float(scores.mean())
    r_hat = float(np.count_nonzero(scores == 0.0)) / m
    return FamilyBound(fam.family, fam.probability, m, s_hat, r_hat,
                       score_lower=float(chernoff_lower(s_hat, m, delta_good)),
                       score_upper=float(chernoff_upper(s_hat, m, delta_bad)),
                       ridiculous_upper=float(chernoff_upper(r_hat, m, delta_good)),
                       ridiculous_lower=float(chernoff_lower(r_hat, m, delta_bad)))


def certify_explained(remaining: ArrayLike, families: list[ExplainedFamily], pg: float,
                      rid: float, delta: float) -> Verdict:
    """Procedure 5.1 as stated in section 5: good tests at δ, bad tests at δ/2.

    Appendix A's proof has typos (A.17 uses δ/2 where the procedure states δ; A.19 writes s
    for r); we follow the procedure. Where s_α and r_α are estimated from program runs, each
    test's δ is split evenly (union bound) over the estimated families and the remainder Q̄.
    """
    Criterion(pg, rid, delta)
    coverage = sum(f.probability for f in families)
    if any(f.probability <= 0 for f in families) or coverage > 1 + 1e-9:
        raise ValueError("family probabilities must be positive and sum to at most 1")
    p_rest = max(0.0, 1.0 - coverage)
    rest = np.asarray(remaining, dtype=float).ravel()
    if p_rest > 1e-12 and rest.size == 0:
        raise ValueError("the families do not cover the scope: sample remaining questions too")
    estimated = sum(f.scores is not None for f in families) + (1 if p_rest > 1e-12 else 0)
    delta_good, delta_bad = delta / max(estimated, 1), delta / 2 / max(estimated, 1)
    parts = [_family_bounds(f, delta_good, delta_bad) for f in families]
    if p_rest > 1e-12:
        rest_part = _family_bounds(ExplainedFamily("(remaining)", p_rest, rest),
                                   delta_good, delta_bad)
        parts.append(rest_part)

    def mix(key: str) -> float:
        return float(sum(part.p * getattr(part, key) for part in parts))

    bounds = _Bounds(score_lower=mix("score_lower"), score_upper=mix("score_upper"),
                     ridiculous_upper=mix("ridiculous_upper"),
                     ridiculous_lower=mix("ridiculous_lower"))
    tests = _tests(bounds, pg, rid)
    decision, decided_by = decide_tests(tests)
    return Verdict(decision, int(rest.size), mix("mean_score"), mix("ridiculous_rate"),
                   tests=tests, decided_by=decided_by, pg=pg, rid=rid, delta=delta,
                   details=ExplainedMix(coverage, tuple(parts), DeltaSplit(delta_good, delta_bad)),
                   **bounds)
