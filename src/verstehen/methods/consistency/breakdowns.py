"""Conceptual consistency broken down by relation and by concept (paper Figures 5 and 7), and
the yes/no bias of the answers (Figure 6). Pure functions, no I/O; each returns typed entries
(`CCEntry`, `MeanEntry`, `RateEntry`) whose JSON form is the summary's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from verstehen.methods.consistency.stats import (
    LABEL_PAIRS,
    AnchorResult,
    FactAnswer,
    Score,
    average_precision,
    background_score,
    bootstrap_ci,
    facts_of,
    scored_anchors,
)
from verstehen.results import JsonForm, json_key
from verstehen.stats.rates import mean_se, rate_se

# paper section 5, Figure 7b: "we picked 14 most occurring concepts with minimum occurrence
# count of 28" (on the 1,221 CSQA dev questions)
TOP_CONCEPTS, MIN_ANCHORS = 14, 28


@dataclass(frozen=True)
class CCEntry(JsonForm):
    """CC over some anchors: the AP, its 95% percentile bootstrap interval (None when not
    defined), n anchors, and the base rate (share correct, the AP of a score knowing nothing)."""

    cc: float | None
    low: float | None
    high: float | None
    n: int
    base_rate: float | None


@dataclass(frozen=True)
class MeanEntry(JsonForm):
    """A mean with its standard error over n values (None when n is 0)."""

    mean: float | None
    se: float | None
    n: int


@dataclass(frozen=True)
class RateEntry(JsonForm):
    """A rate with its binomial standard error over n answers (None when n is 0)."""

    rate: float | None
    se: float | None
    n: int


@dataclass(frozen=True)
class RelationBreakdown(JsonForm):
    """One relation r: mean S_B restricted to r, CC of that S_B, and the CC (full S_B) of the
    anchors with and without r among their facts."""

    background: MeanEntry
    cc: CCEntry
    with_: CCEntry = field(metadata=json_key("with"))
    without: CCEntry


@dataclass(frozen=True)
class ConceptBreakdown(JsonForm):
    """One concept: how many anchors have it in their background facts, and the CC of the
    anchors in CC with and without it there (paper Figure 7b)."""

    anchors: int
    with_: CCEntry = field(metadata=json_key("with"))
    without: CCEntry


@dataclass(frozen=True)
class MajorityAnswers(JsonForm):
    """The majority answers: "yes" on positive facts, "no" on negative facts, their balanced
    accuracy (eq. 1 weighting; None with no answered fact), and the facts left unanswered."""

    positive: RateEntry
    negative: RateEntry
    accuracy: float | None
    unanswered: int


@dataclass(frozen=True)
class BestCombo(JsonForm):
    """The single (meta-prompt, label pair) combo with the best balanced accuracy: its index,
    its answers as in `MajorityAnswers`, and its meta-prompt (0-based) and labels when the
    combos are meta-major over LABEL_PAIRS (None otherwise)."""

    combo: int
    positive: RateEntry
    negative: RateEntry
    accuracy: float
    meta: int | None
    labels: str | None


@dataclass(frozen=True)
class YesNoBias(JsonForm):
    """The yes/no bias of the majority answers and of the best single combo (None when no
    fact has combos), and how many facts have combos (those scored by likelihood)."""

    majority: MajorityAnswers
    single: BestCombo | None
    facts_with_combos: int


def cc_entry(pairs: Sequence[tuple[bool, Score]], *, resamples: int = 200,
             seed: int = 0) -> CCEntry:
    """The CC entry of (anchor correct, score) pairs: AP, its bootstrap interval, n, base rate."""
    y = [c for c, _ in pairs]
    s = [x for _, x in pairs]
    cc = average_precision(y, s)
    ci = None if cc is None else bootstrap_ci(y, s, resamples=resamples, seed=seed)
    low, high = ci if ci is not None else (None, None)
    return CCEntry(cc, low, high, len(y), sum(y) / len(y) if y else None)


def by_relation(anchors: Sequence[AnchorResult], facts: Mapping[str, FactAnswer], *,
                resamples: int = 200, seed: int = 0) -> dict[str, RelationBreakdown]:
    """Per relation r (sorted): mean S_B restricted to r, CC of that S_B, CC (full S_B) with
    and without r among the anchor's facts (paper Figures 4a, 5 and 7a).

    "background" averages over every anchor with answered r-facts, answered anchor question
    or not; "cc" is over those whose anchor question was answered; "with" and "without"
    split the anchors that enter the overall CC by whether any listed fact has relation r.
    """
    scored, _, _ = scored_anchors(anchors, facts)
    own = {a.id: facts_of(a, facts) for a in anchors}
    relations = sorted({f.relation for fs in own.values() for f in fs})
    out: dict[str, RelationBreakdown] = {}
    for r in relations:
        restricted = [(a, background_score([f for f in own[a.id] if f.relation == r]))
                      for a in anchors]
        known = [float(s_b) for _, s_b in restricted if s_b is not None]
        mean, se = mean_se(known) if known else (None, None)
        has_r = {a.id for a in anchors if any(f.relation == r for f in own[a.id])}
        out[r] = RelationBreakdown(
            background=MeanEntry(mean, se, len(known)),
            cc=cc_entry([(bool(a.correct), s_b) for a, s_b in restricted
                         if s_b is not None and a.correct is not None],
                        resamples=resamples, seed=seed),
            with_=cc_entry([(bool(a.correct), s_b) for a, s_b in scored if a.id in has_r],
                           resamples=resamples, seed=seed),
            without=cc_entry([(bool(a.correct), s_b) for a, s_b in scored
                              if a.id not in has_r], resamples=resamples, seed=seed))
    return out


def fact_concepts(anchor: AnchorResult, facts: Mapping[str, FactAnswer]) -> set[str]:
    """The concepts the anchor's background facts contain: both ends of its true facts (a
    false twin's end is a concept drawn at random, not one of the anchor's)."""
    return {c for f in facts_of(anchor, facts) if f.positive for c in (f.c1, f.c2)}


@dataclass(frozen=True)
class ConceptCounts(JsonForm):
    """What the per-concept table was picked from: the concepts in the anchors' true background
    facts, those in the facts of at least `min_anchors` anchors, and how many at most it shows."""

    in_facts: int
    eligible: int
    top: int
    min_anchors: int


def concepts_in_facts(anchors: Sequence[AnchorResult], facts: Mapping[str, FactAnswer]
                      ) -> tuple[dict[str, set[str]], Counter[str]]:
    """Each anchor's `fact_concepts` by its id, and in how many anchors' facts each concept is."""
    has = {a.id: fact_concepts(a, facts) for a in anchors}
    return has, Counter(c for a in anchors for c in has[a.id])


def _counts(counts: Counter[str], top: int, min_anchors: int) -> ConceptCounts:
    return ConceptCounts(len(counts), sum(n >= min_anchors for n in counts.values()), top,
                         min_anchors)


def concept_counts(anchors: Sequence[AnchorResult], facts: Mapping[str, FactAnswer], *,
                   top: int = TOP_CONCEPTS, min_anchors: int = MIN_ANCHORS) -> ConceptCounts:
    """How many concepts `by_concept` chose from (with the same `top` and `min_anchors`)."""
    return _counts(concepts_in_facts(anchors, facts)[1], top, min_anchors)


def by_concept(anchors: Sequence[AnchorResult], facts: Mapping[str, FactAnswer], *,
               top: int = TOP_CONCEPTS, min_anchors: int = MIN_ANCHORS, resamples: int = 200,
               seed: int = 0) -> dict[str, ConceptBreakdown]:
    """Figure 7b: the `top` concepts found in the background facts of the most anchors, if
    in at least `min_anchors` (the paper: 14 concepts, at least 28; ties by name), each with
    CC over the anchors in CC whose facts contain it and over those whose facts do not."""
    return concept_breakdown(anchors, facts, top=top, min_anchors=min_anchors,
                             resamples=resamples, seed=seed)[0]


def concept_breakdown(anchors: Sequence[AnchorResult], facts: Mapping[str, FactAnswer], *,
                      top: int = TOP_CONCEPTS, min_anchors: int = MIN_ANCHORS,
                      resamples: int = 200, seed: int = 0
                      ) -> tuple[dict[str, ConceptBreakdown], ConceptCounts]:
    """`by_concept` and `concept_counts` together, the concepts in each anchor's facts found
    once."""
    has, counts = concepts_in_facts(anchors, facts)
    chosen = sorted((c for c in counts if counts[c] >= min_anchors),
                    key=lambda c: (-counts[c], c))[:max(top, 0)]
    scored, _, _ = scored_anchors(anchors, facts)
    out: dict[str, ConceptBreakdown] = {}
    for concept in chosen:
        split: dict[bool, list[tuple[bool, Score]]] = {True: [], False: []}
        for a, s_b in scored:
            split[concept in has[a.id]].append((bool(a.correct), s_b))
        out[concept] = ConceptBreakdown(
            anchors=counts[concept],
            with_=cc_entry(split[True], resamples=resamples, seed=seed),
            without=cc_entry(split[False], resamples=resamples, seed=seed))
    return out, _counts(counts, top, min_anchors)


def _rate(values: Sequence[bool]) -> RateEntry:
    if not values:
        return RateEntry(None, None, 0)
    rate, se = rate_se(sum(values), len(values))
    return RateEntry(rate, se, len(values))


def _sides(rows: Sequence[tuple[bool, bool]]) -> tuple[RateEntry, RateEntry, float | None]:
    """(positive, correct) rows -> accuracy on positives, on negatives, and balanced (eq. 1)."""
    pos = _rate([c for p, c in rows if p])
    neg = _rate([c for p, c in rows if not p])
    means = [side.rate for side in (pos, neg) if side.rate is not None]
    return pos, neg, sum(means) / len(means) if means else None


def yes_no_bias(facts: Mapping[str, FactAnswer]) -> YesNoBias:
    """Accuracy on positive facts (rate of "yes") and negative facts (rate of "no") for the
    majority answer and for the best single combo (paper Figure 6a).

    The best combo is the one whose own answers have the highest balanced accuracy over the
    facts with combos (the first on ties); ValueError when facts have different numbers of
    combos.
    """
    answered = [f for f in facts.values() if f.correct is not None]
    majority = MajorityAnswers(*_sides([(f.positive, bool(f.correct)) for f in answered]),
                               unanswered=len(facts) - len(answered))
    rows = [f for f in facts.values() if f.combos]
    widths = {len(f.combos or ()) for f in rows}
    if len(widths) > 1:
        raise ValueError(f"the facts have different numbers of combos: {sorted(widths)}")
    single = None
    if rows:
        width = widths.pop()
        sides = [_sides([(f.positive, (f.combos or ())[k] == f.positive) for f in rows])
                 for k in range(width)]
        # every combo has a balanced accuracy: each fact is on one side (first max on ties)
        accuracies = [cast(float, accuracy) for _, _, accuracy in sides]
        best = max(range(width), key=accuracies.__getitem__)
        positive, negative, _ = sides[best]
        pairs = len(LABEL_PAIRS)
        meta_major = width % pairs == 0
        single = BestCombo(best, positive, negative, accuracies[best],
                           meta=best // pairs if meta_major else None,
                           labels="/".join(LABEL_PAIRS[best % pairs]) if meta_major else None)
    return YesNoBias(majority, single, len(rows))
