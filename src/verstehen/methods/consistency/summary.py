"""Conceptual consistency from a run folder's records: CC, S_B, S_A, breakdowns, figures."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from verstehen.methods.consistency.breakdowns import by_concept, by_relation, yes_no_bias
from verstehen.methods.consistency.stats import AnchorResult, Consistency, FactAnswer, consistency


def read_results(records: list[dict[str, Any]]
                 ) -> tuple[list[AnchorResult], dict[str, FactAnswer]]:
    """The anchors and facts of a run's records (the last record of a fact or anchor wins)."""
    facts = {r["key"]: FactAnswer(r["key"], r["relation"], r["c1"], r["c2"], r["positive"],
                                  r["said_yes"],
                                  None if r["combos"] is None else tuple(r["combos"]))
             for r in records if r["kind"] == "fact"}
    anchors = {r["id"]: AnchorResult(r["id"], tuple(r["facts"]), tuple(r["concepts"]),
                                     r["correct"])
               for r in records if r["kind"] == "anchor"}
    return list(anchors.values()), facts


def summarize_consistency(records: list[dict[str, Any]], *, resamples: int = 1000,
                          seed: int = 0) -> dict[str, Any]:
    """CC with its interval, S_B, S_A, per relation and concept, the yes/no bias, counts."""
    anchors, facts = read_results(records)
    methods = Counter(r["method"] for r in records if r["kind"] in ("fact", "anchor"))
    errors = sum(1 for r in records if r["kind"] in ("fact", "anchor") and r.get("error"))
    return {
        "method": methods.most_common(1)[0][0] if methods else None,
        "consistency": consistency(anchors, facts, resamples=resamples, seed=seed).to_dict(),
        "by_relation": by_relation(anchors, facts, seed=seed),
        "by_concept": by_concept(anchors, facts, seed=seed),
        "bias": yes_no_bias(facts),
        "anchors": len(anchors), "facts": len(facts),
        "positive_facts": sum(f.positive for f in facts.values()),
        "facts_unanswered": sum(f.said_yes is None for f in facts.values()),
        "mean_facts_per_anchor": (sum(len(a.facts) for a in anchors) / len(anchors)
                                  if anchors else None),
        "failed_calls": errors,
    }


def write_figures(summary: dict[str, Any], folder: Path) -> dict[str, str]:
    """Figure 5 (background vs CC per relation) and Figure 6 (yes/no bias) as PNGs."""
    from verstehen.methods.consistency.report import plot_bias, plot_relations

    paths = {"relations_png": folder / "relations.png", "bias_png": folder / "bias.png"}
    plot_relations(summary["by_relation"], paths["relations_png"])
    plot_bias(summary["bias"], paths["bias_png"])
    return {k: str(v) for k, v in paths.items()}


def summary_text(summary: dict[str, Any]) -> str:
    """Every table of the summary as plain text."""
    from verstehen.methods.consistency.report import (
        bias_text,
        concept_text,
        consistency_text,
        relation_text,
    )

    method = summary["method"]
    how = ("majority-vote likelihood (5 meta-prompts x 7 label pairs)" if method == "likelihood"
           else "GENERATION: parsed yes/no, majority over the 5 meta-prompts (not the paper's "
           "likelihood method; the model gives no exact log-probabilities)")
    parts = [f"{summary['anchors']} anchor questions, {summary['facts']} background facts "
             f"({summary['positive_facts']} true), answered by {how}",
             consistency_text(Consistency(**summary["consistency"])),
             "yes/no bias (paper Figure 6)\n" + bias_text(summary["bias"]),
             "per relation (paper Figures 5 and 7)\n" + relation_text(summary["by_relation"]),
             "per concept (paper Figure 7)\n" + concept_text(summary["by_concept"])]
    return "\n\n".join(parts)
