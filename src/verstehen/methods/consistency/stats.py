"""Conceptual consistency (Sahu et al., ICLR 2023, sections 3.2-3.3): answers by likelihood over
meta-prompt x label-pair combos, the background score S_B (eq. 1), the task score S_A (eq. 2)
and CC, the average precision of predicting S_A from S_B (eq. 3), with a bootstrap interval.

Pure functions, no I/O. The breakdowns by relation and concept and the yes/no bias (paper
Figures 5-7) are in `verstehen.methods.consistency.breakdowns`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

import numpy as np

from verstehen.results import JsonForm
from verstehen.stats.rates import mean_se, rate_se

# the paper's label pairs (section 3.2), in the order of the combos within a meta-prompt
LABEL_PAIRS = (("Yes", "No"), ("True", "False"), ("Right", "Wrong"), ("Correct", "Incorrect"),
               ("Positive", "Negative"), ("Pass", "Fail"), ("On", "Off"))
LEVEL = 0.95  # the level of every bootstrap interval this module reports


@dataclass(frozen=True)
class FactAnswer:
    """One background fact (relation, c1, c2), whether it is true, and the model's answer."""

    key: str
    relation: str
    c1: str
    c2: str
    positive: bool
    said_yes: bool | None
    combos: tuple[bool, ...] | None  # per combo, meta-major: positive label beat negative

    @property
    def correct(self) -> bool | None:
        """Whether the model's answer is the true one; None when it gave no answer."""
        return None if self.said_yes is None else self.said_yes == self.positive


@dataclass(frozen=True)
class AnchorResult:
    """One anchor question: its background fact keys and whether it was right."""

    id: str
    facts: tuple[str, ...]
    correct: bool | None


def majority_answer(scores: Sequence[tuple[float, float]]) -> tuple[bool, tuple[bool, ...]]:
    """The label with the single highest log-likelihood over all combos (True: a positive
    label), and per combo whether its positive label beat its negative one.

    scores[k] = (logprob of the positive label, of the negative label) of combo k. Ties: the
    first maximum in the order combo 0 positive, combo 0 negative, combo 1 positive, ... wins;
    within a combo a tie counts as False (the positive label did not beat the negative one).
    """
    if len(scores) == 0:
        raise ValueError("majority_answer needs the scores of at least one combo")
    flat = np.asarray(scores, dtype=float)
    if flat.ndim != 2 or flat.shape[1] != 2:
        raise ValueError("each combo needs two scores: (positive label, negative label)")
    if np.isnan(flat).any():
        raise ValueError("a combo has a NaN log-likelihood")
    best = int(np.argmax(flat.reshape(-1)))  # argmax returns the first maximum
    return best % 2 == 0, tuple(bool(pos > neg) for pos, neg in flat)


def vote_answer(answers: Sequence[bool | None]) -> bool | None:
    """Majority of the yes/no answers that are not None; None on a tie or with no answers."""
    yes = sum(1 for a in answers if a is True)
    no = sum(1 for a in answers if a is False)
    return None if yes == no else yes > no


def background_score(facts: Sequence[FactAnswer]) -> Fraction | None:
    """Eq. 1 over the answered facts, exactly: (share right on positives + on negatives) / 2.

    When only one side has answered facts, that side's share alone; None when none answered.
    A Fraction, so that equal scores are equal (as floats, 3/6 and 5/6 average to
    0.6666666666666667 but 1/3 and 3/3 to 0.6666666666666666, and AP would rank them apart).
    """
    sides = [[f.correct for f in facts if f.correct is not None and f.positive == positive]
             for positive in (True, False)]
    means = [Fraction(sum(side), len(side)) for side in sides if side]
    return sum(means, Fraction(0)) / len(means) if means else None


Score = float | Fraction


def _arrays(y_true: Sequence[bool], scores: Sequence[Score]) -> tuple[np.ndarray, np.ndarray]:
    """Labels as booleans, and each score as its rank among the distinct scores (0 lowest):
    ranked exactly, so equal values tie whatever their type (Fraction or float)."""
    y = np.asarray(y_true, dtype=bool).reshape(-1)
    values = np.asarray(scores, dtype=object).reshape(-1).tolist()
    if y.size != len(values):
        raise ValueError(f"{y.size} labels but {len(values)} scores")
    if not all(isinstance(v, Real) and math.isfinite(v) for v in values):
        raise ValueError("the scores must be finite numbers")
    rank = {v: i for i, v in enumerate(sorted(set(values)))}
    return y, np.array([rank[v] for v in values], dtype=np.int64)


def _ap(y: np.ndarray, s: np.ndarray) -> float | None:
    positives = int(y.sum())
    if positives == 0:
        return None
    order = np.argsort(-s, kind="stable")
    y, s = y[order], s[order]
    # the last position of each run of equal scores: one threshold per distinct score
    last = np.r_[np.flatnonzero(np.diff(s)), s.size - 1]
    tp = np.cumsum(y)[last]
    precision = tp / (last + 1)
    recall = tp / positives
    return float(np.sum(np.diff(recall, prepend=0.0) * precision))


def average_precision(y_true: Sequence[bool], scores: Sequence[Score]) -> float | None:
    """Average precision, AP = Σ_n (R_n - R_{n-1}) P_n over thresholds at each distinct score
    (predicted positive: score >= t; equal scores enter together, compared exactly: give S_B
    as Fractions); None with no positive.

    This is scikit-learn's `average_precision_score` definition, written in numpy rather than
    adding scikit-learn (about 40 MB with scipy) for one function.
    """
    return _ap(*_arrays(y_true, scores))


def bootstrap_ci(y_true: Sequence[bool], scores: Sequence[Score], *, resamples: int = 1000,
                 level: float = LEVEL, seed: int = 0) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the AP, resampling (label, score) pairs with replacement.

    Resamples with no positive have no AP and are skipped; None with fewer than 2 pairs, or
    when every resample was skipped.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, not {resamples}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, not {level}")
    y, s = _arrays(y_true, scores)
    if y.size < 2:
        return None
    draws = np.random.default_rng(seed).integers(0, y.size, size=(resamples, y.size))
    values = [ap for idx in draws if (ap := _ap(y[idx], s[idx])) is not None]
    if not values:
        return None
    tail = (1 - level) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class Consistency(JsonForm):
    """CC with its 95% bootstrap interval, S_B and S_A with SEs, and the anchors left out; and
    the paper's Figure 4a background score with a 95% bootstrap interval (resampling anchors):
    eq. 1 restricted to one relation, averaged over every anchor with answered facts of it
    (as the per-relation table's "S_B on r"), then averaged over the `relations` relations.

    CC, S_B and S_A are over the same n anchors: anchor question answered and a background
    score; the Figure 4a score, about background knowledge only, also counts the anchors
    whose question went unanswered.
    """

    n: int
    unanswered: int
    no_background: int
    cc: float | None
    cc_low: float | None
    cc_high: float | None
    s_b: float | None
    s_b_se: float | None
    s_a: float | None
    s_a_se: float | None
    base_rate: float | None
    s_b_relations: float | None = None
    s_b_relations_low: float | None = None
    s_b_relations_high: float | None = None
    relations: int = 0


def facts_of(anchor: AnchorResult, facts: Mapping[str, FactAnswer]) -> list[FactAnswer]:
    """The anchor's facts (a key listed twice counts once); ValueError for an unknown key."""
    missing = [k for k in anchor.facts if k not in facts]
    if missing:
        raise ValueError(f"anchor {anchor.id!r} names facts that are not given: "
                         + ", ".join(map(repr, missing[:5])))
    return [facts[k] for k in dict.fromkeys(anchor.facts)]


def scored_anchors(anchors: Sequence[AnchorResult], facts: Mapping[str, FactAnswer]
                   ) -> tuple[list[tuple[AnchorResult, Fraction]], int, int]:
    """The anchors that enter CC, each with its S_B; then the counts left out because the
    anchor question is unanswered (checked first) and because no fact was answered."""
    scored: list[tuple[AnchorResult, Fraction]] = []
    unanswered = no_background = 0
    for anchor in anchors:
        s_b = background_score(facts_of(anchor, facts))
        if anchor.correct is None:
            unanswered += 1
        elif s_b is None:
            no_background += 1
        else:
            scored.append((anchor, s_b))
    return scored, unanswered, no_background


@dataclass(frozen=True)
class RelationAverage:
    """The Figure 4a background score (see `Consistency`): its value, 95% bootstrap interval
    (None with fewer than 2 anchors) and the number of relations averaged."""

    mean: float | None
    low: float | None
    high: float | None
    relations: int


def relation_average(anchors: Sequence[AnchorResult], facts: Mapping[str, FactAnswer], *,
                     resamples: int = 1000, level: float = LEVEL, seed: int = 0
                     ) -> RelationAverage:
    """Eq. 1 per relation averaged over the anchors with answered facts of it, then over the
    relations, each weighing the same (paper Figure 4a); a percentile bootstrap interval over
    the anchors with any answered fact (a resample averages the relations it has)."""
    own = [facts_of(a, facts) for a in anchors]
    relations = sorted({f.relation for fs in own for f in fs if f.correct is not None})
    rows = []
    for fs in own:
        scores = [background_score([f for f in fs if f.relation == r]) for r in relations]
        if any(x is not None for x in scores):
            rows.append([np.nan if x is None else float(x) for x in scores])
    matrix = np.array(rows, dtype=float).reshape(len(rows), len(relations))
    known, values = ~np.isnan(matrix), np.nan_to_num(matrix)

    def average(idx: np.ndarray) -> float:
        counts, sums = known[idx].sum(axis=0), values[idx].sum(axis=0)
        present = counts > 0  # every row has a known score: some relation is present
        return float(np.mean(sums[present] / counts[present]))

    if not rows:
        return RelationAverage(None, None, None, 0)
    mean = average(np.arange(len(rows)))
    if len(rows) < 2:
        return RelationAverage(mean, None, None, len(relations))
    draws = np.random.default_rng(seed).integers(0, len(rows), size=(resamples, len(rows)))
    tail = (1 - level) / 2
    low, high = np.quantile([average(idx) for idx in draws], [tail, 1 - tail])
    return RelationAverage(mean, float(low), float(high), len(relations))


def consistency(anchors: Sequence[AnchorResult], facts: Mapping[str, FactAnswer], *,
                resamples: int = 1000, seed: int = 0) -> Consistency:
    """CC (eq. 3) over the anchors with an answered question and a background score, with the
    anchor-averaged S_B, S_A, and the relation-averaged background score (Figure 4a)."""
    scored, unanswered, no_background = scored_anchors(anchors, facts)
    n = len(scored)
    by_r = relation_average(anchors, facts, resamples=resamples, seed=seed)
    if n == 0:
        return Consistency(0, unanswered, no_background, cc=None, cc_low=None, cc_high=None,
                           s_b=None, s_b_se=None, s_a=None, s_a_se=None, base_rate=None,
                           s_b_relations=by_r.mean, s_b_relations_low=by_r.low,
                           s_b_relations_high=by_r.high, relations=by_r.relations)
    y = [bool(a.correct) for a, _ in scored]
    s = [s_b for _, s_b in scored]
    cc = average_precision(y, s)
    ci = None if cc is None else bootstrap_ci(y, s, resamples=resamples, seed=seed)
    low, high = ci if ci is not None else (None, None)
    s_b, s_b_se = mean_se([float(x) for x in s])
    s_a, s_a_se = rate_se(sum(y), n)
    return Consistency(n, unanswered, no_background, cc, low, high, s_b, s_b_se, s_a, s_a_se,
                       s_a, by_r.mean, by_r.low, by_r.high, by_r.relations)
