"""Conceptual consistency broken down by relation and by concept (paper Figures 5 and 7), and
the yes/no bias of the answers (Figure 6). Pure functions, no I/O.

A CC entry is a dict: "cc", "low", "high" (95% percentile bootstrap; None when not defined),
"n" (anchors), "base_rate" (share of correct anchors, the AP of a score that knows nothing).
A rate entry is a dict: "rate" (or "mean"), "se", "n".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from verstehen.methods.consistency.stats import (
    LABEL_PAIRS,
    AnchorResult,
    FactAnswer,
    average_precision,
    background_score,
    bootstrap_ci,
    facts_of,
    scored_anchors,
)
from verstehen.stats.rates import mean_se, rate_se


def cc_entry(pairs: Sequence[tuple[bool, float]], *, resamples: int = 200,
             seed: int = 0) -> dict[str, Any]:
    """The CC entry of (anchor correct, score) pairs: AP, its bootstrap interval, n, base rate."""
    y = [c for c, _ in pairs]
    s = [x for _, x in pairs]
    cc = average_precision(y, s)
    ci = None if cc is None else bootstrap_ci(y, s, resamples=resamples, seed=seed)
    low, high = ci if ci is not None else (None, None)
    base = sum(y) / len(y) if y else None
    return {"cc": cc, "low": low, "high": high, "n": len(y), "base_rate": base}


def by_relation(anchors: Sequence[AnchorResult], facts: Mapping[str, FactAnswer], *,
                resamples: int = 200, seed: int = 0) -> dict[str, dict[str, Any]]:
    """Per relation r (sorted): mean S_B restricted to r, CC of that S_B, CC (full S_B) with
    and without r among the anchor's facts (paper Figures 4a, 5 and 7a).

    "background" averages over every anchor with answered r-facts, answered anchor question
    or not; "cc" is over those whose anchor question was answered; "with" and "without"
    split the anchors that enter the overall CC by whether any listed fact has relation r.
    """
    scored, _, _ = scored_anchors(anchors, facts)
    own = {a.id: facts_of(a, facts) for a in anchors}
    relations = sorted({f.relation for fs in own.values() for f in fs})
    out: dict[str, dict[str, Any]] = {}
    for r in relations:
        restricted = [(a, background_score([f for f in own[a.id] if f.relation == r]))
                      for a in anchors]
        known = [s_b for _, s_b in restricted if s_b is not None]
        mean, se = mean_se(known) if known else (None, None)
        has_r = {a.id for a in anchors if any(f.relation == r for f in own[a.id])}
        out[r] = {
            "background": {"mean": mean, "se": se, "n": len(known)},
            "cc": cc_entry([(bool(a.correct), s_b) for a, s_b in restricted
                            if s_b is not None and a.correct is not None],
                           resamples=resamples, seed=seed),
            "with": cc_entry([(bool(a.correct), s_b) for a, s_b in scored if a.id in has_r],
                             resamples=resamples, seed=seed),
            "without": cc_entry([(bool(a.correct), s_b) for a, s_b in scored
                                 if a.id not in has_r], resamples=resamples, seed=seed),
        }
    return out


def by_concept(anchors: Sequence[AnchorResult], facts: Mapping[str, FactAnswer], *,
               top: int = 20, resamples: int = 200, seed: int = 0) -> dict[str, dict[str, Any]]:
    """The `top` concepts in most anchors' concept lists (ties by name): "anchors" (how many
    list it), CC with and without the concept over the anchors that enter CC (Figure 7b)."""
    counts = Counter(c for a in anchors for c in set(a.concepts))
    chosen = sorted(counts, key=lambda c: (-counts[c], c))[:max(top, 0)]
    scored, _, _ = scored_anchors(anchors, facts)
    out: dict[str, dict[str, Any]] = {}
    for concept in chosen:
        split: dict[bool, list[tuple[bool, float]]] = {True: [], False: []}
        for a, s_b in scored:
            split[concept in a.concepts].append((bool(a.correct), s_b))
        out[concept] = {"anchors": counts[concept],
                        "with": cc_entry(split[True], resamples=resamples, seed=seed),
                        "without": cc_entry(split[False], resamples=resamples, seed=seed)}
    return out


def _rate(values: Sequence[bool]) -> dict[str, Any]:
    if not values:
        return {"rate": None, "se": None, "n": 0}
    rate, se = rate_se(sum(values), len(values))
    return {"rate": rate, "se": se, "n": len(values)}


def _sides(rows: Sequence[tuple[bool, bool]]) -> dict[str, Any]:
    """(positive, correct) rows -> accuracy on positives, on negatives, and balanced (eq. 1)."""
    pos = _rate([c for p, c in rows if p])
    neg = _rate([c for p, c in rows if not p])
    means = [side["rate"] for side in (pos, neg) if side["n"]]
    return {"positive": pos, "negative": neg,
            "accuracy": sum(means) / len(means) if means else None}


def yes_no_bias(facts: Mapping[str, FactAnswer]) -> dict[str, Any]:
    """Accuracy on positive facts (rate of "yes") and negative facts (rate of "no") for the
    majority answer and for the best single combo (paper Figure 6a).

    "majority": answered facts, plus "unanswered". "single": the combo whose own answers have
    the highest balanced accuracy (eq. 1 weighting; the first on ties) over the facts with
    combos, its index "combo", and "meta" and "labels" when the combos are meta-major over
    LABEL_PAIRS (a multiple of 7); None when no fact has combos.
    """
    answered = [f for f in facts.values() if f.correct is not None]
    majority = _sides([(f.positive, bool(f.correct)) for f in answered])
    majority["unanswered"] = len(facts) - len(answered)
    rows = [f for f in facts.values() if f.combos]
    widths = {len(f.combos or ()) for f in rows}
    if len(widths) > 1:
        raise ValueError(f"the facts have different numbers of combos: {sorted(widths)}")
    single = None
    if rows:
        width = widths.pop()
        sides = [_sides([(f.positive, (f.combos or ())[k] == f.positive) for f in rows])
                 for k in range(width)]
        best = max(range(width), key=lambda k: sides[k]["accuracy"])  # first on ties
        pairs = len(LABEL_PAIRS)
        single = {"combo": best, **sides[best],
                  "meta": best // pairs if width % pairs == 0 else None,
                  "labels": "/".join(LABEL_PAIRS[best % pairs]) if width % pairs == 0 else None}
    return {"majority": majority, "single": single, "facts_with_combos": len(rows)}
