"""Conceptual consistency from a run folder's records: CC, S_B, S_A, breakdowns and counts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from verstehen.methods.consistency.breakdowns import (
    ConceptBreakdown,
    ConceptCounts,
    RelationBreakdown,
    YesNoBias,
    by_relation,
    concept_breakdown,
    yes_no_bias,
)
from verstehen.methods.consistency.records import Record, read_records
from verstehen.methods.consistency.stats import AnchorResult, Consistency, FactAnswer, consistency
from verstehen.results import JsonForm


@dataclass(frozen=True)
class ConsistencySummary(JsonForm):
    """What a run's records say: how the facts were answered ("likelihood" or "generation"),
    CC with S_B and S_A, the breakdowns by relation and concept, the yes/no bias, and counts
    (anchors, distinct facts and the true ones, facts left unanswered, failed calls), and what
    the per-concept table was picked from (None in a summary written before it was counted)."""

    method: str | None
    consistency: Consistency
    by_relation: dict[str, RelationBreakdown]
    by_concept: dict[str, ConceptBreakdown]
    bias: YesNoBias
    anchors: int
    facts: int
    positive_facts: int
    facts_unanswered: int
    mean_facts_per_anchor: float | None
    failed_calls: int
    concepts: ConceptCounts | None = field(default=None, kw_only=True)


def read_results(records: Iterable[Record]
                 ) -> tuple[list[AnchorResult], dict[str, FactAnswer]]:
    """The anchors and facts of a run's records (the last record of a fact or anchor wins)."""
    records = list(records)
    facts = {r["key"]: FactAnswer(r["key"], r["relation"], r["c1"], r["c2"], r["positive"],
                                  r["said_yes"],
                                  None if r["combos"] is None else tuple(r["combos"]))
             for r in records if r["kind"] == "fact"}
    anchors = {r["id"]: AnchorResult(r["id"], tuple(r["facts"]), r["correct"])
               for r in records if r["kind"] == "anchor"}
    return list(anchors.values()), facts


def summarize_consistency(lines: Iterable[Mapping[str, Any]], *, resamples: int = 1000,
                          seed: int = 0) -> ConsistencySummary:
    """CC with its interval, S_B, S_A, per relation and concept, the yes/no bias, counts."""
    records = read_records(lines)
    anchors, facts = read_results(records)
    methods = Counter(r["method"] for r in records)
    concepts, counts = concept_breakdown(anchors, facts, seed=seed)
    return ConsistencySummary(
        method=methods.most_common(1)[0][0] if methods else None,
        consistency=consistency(anchors, facts, resamples=resamples, seed=seed),
        by_relation=by_relation(anchors, facts, seed=seed),
        by_concept=concepts,
        bias=yes_no_bias(facts),
        anchors=len(anchors), facts=len(facts),
        positive_facts=sum(f.positive for f in facts.values()),
        facts_unanswered=sum(f.said_yes is None for f in facts.values()),
        mean_facts_per_anchor=(sum(len(a.facts) for a in anchors) / len(anchors)
                               if anchors else None),
        failed_calls=sum(1 for r in records if r.get("error")),
        concepts=counts)
