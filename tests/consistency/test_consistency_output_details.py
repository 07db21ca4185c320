"""Output details of consistency (issue 21, item 11): the per-concept table says how many
concepts it shows of how many and how they were picked; CC says it is not informative when
every anchor (or none) was answered correctly; one anchor is one anchor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verstehen.methods.consistency.api import consistency as run_consistency
from verstehen.methods.consistency.breakdowns import by_concept, concept_counts
from verstehen.methods.consistency.example import write_data
from verstehen.methods.consistency.html import section
from verstehen.methods.consistency.stats import AnchorResult, FactAnswer, consistency
from verstehen.methods.consistency.summary import summarize_consistency
from verstehen.methods.consistency.text import concept_text, consistency_text, summary_text
from verstehen.report.html import Page
from verstehen.testing.scripted import ScriptedModel

from consistency.test_consistency_stats import selection_example

NOT_INFORMATIVE = "CC is not informative"


def records_of(anchors: list[AnchorResult], facts: dict[str, FactAnswer]) -> list[dict]:
    """The anchors and facts as a run's records."""
    return [*({"kind": "fact", "key": f.key, "relation": f.relation, "c1": f.c1, "c2": f.c2,
               "positive": f.positive, "said_yes": f.said_yes, "combos": None,
               "method": "generation"} for f in facts.values()),
            *({"kind": "anchor", "id": a.id, "facts": list(a.facts), "correct": a.correct,
               "method": "generation"} for a in anchors)]


def test_the_concept_table_says_how_many_it_shows_and_how_they_were_picked() -> None:
    anchors, facts = selection_example()
    counts = concept_counts(anchors, facts)
    assert (counts.in_facts, counts.eligible, counts.top, counts.min_anchors) == (465, 15, 14,
                                                                                 28)
    text = concept_text(by_concept(anchors, facts, resamples=2), counts)
    assert ("14 of the 15 concepts in the background facts of at least 28 anchors are shown "
            "(the paper's selection: the 14 in the facts of the most anchors; 465 concepts "
            "in the facts in all)") in text
    summary = summarize_consistency(records_of(anchors, facts), resamples=2)
    assert summary.concepts == counts
    assert "14 of the 15 concepts" in summary_text(summary)
    few = concept_text(by_concept(anchors, facts, min_anchors=29, resamples=2),
                       concept_counts(anchors, facts, min_anchors=29))
    assert "the 1 concept in the background facts of at least 29 anchors is shown" in few


def cc_all(correct: bool) -> str:
    anchors = [AnchorResult(f"A{i}", (f"f{i}",), correct) for i in range(4)]
    facts = {f"f{i}": FactAnswer(f"f{i}", "used for", "a", "b", True, i % 2 == 0, None)
             for i in range(4)}
    return consistency_text(consistency(anchors, facts, resamples=20))


def test_cc_warns_when_every_anchor_or_none_is_right() -> None:
    every, none = cc_all(True), cc_all(False)
    assert "base rate 1.00" in every and NOT_INFORMATIVE in every
    assert "every anchor question was answered correctly" in every
    assert "base rate 0.00" in none and NOT_INFORMATIVE in none
    assert "no anchor question was answered correctly" in none


def test_one_anchor_left_out_is_one_anchor() -> None:
    anchors = [AnchorResult("A0", ("f0",), True), AnchorResult("A1", ("f1",), False),
               AnchorResult("A2", ("f0",), None)]
    facts = {f"f{i}": FactAnswer(f"f{i}", "used for", "a", "b", True, i == 0, None)
             for i in range(2)}
    text = consistency_text(consistency(anchors, facts, resamples=20))
    assert "1 anchor with an unanswered anchor question" in text
    assert NOT_INFORMATIVE not in text


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scripted run on three questions (q3 right only)."""
    tmp = tmp_path_factory.mktemp("consistency-details")
    questions, kb = write_data(tmp)
    return run_consistency(ScriptedModel("scripted/lp"), questions=questions, kb=kb,
                           resamples=20, runs_dir=tmp / "runs",
                           cache=tmp / "calls.sqlite").run_dir


def _page(run: Path, change: dict) -> str:
    path = run / "summary.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    for key, value in change.items():
        summary[key] = {**summary[key], **value} if isinstance(value, dict) and key != \
            "by_concept" else value
    path.write_text(json.dumps(summary), encoding="utf-8")
    page = Page("consistency")
    section(run, page)
    return page.html()


def test_the_html_says_the_selection_and_warns_on_a_base_rate_of_one(run: Path) -> None:
    text = _page(run, {})
    assert "No concept is in the background facts of 28 anchors" in text
    assert NOT_INFORMATIVE not in text
    cc = {"with": {"cc": 1.0, "low": None, "high": None, "n": 1, "base_rate": 1.0},
          "without": {"cc": None, "low": None, "high": None, "n": 0, "base_rate": None}}
    text = _page(run, {"by_concept": {"dog": {"anchors": 30, **cc}},
                       "concepts": {"in_facts": 40, "eligible": 1, "top": 14,
                                    "min_anchors": 28},
                       "consistency": {"cc": 1.0, "cc_low": 1.0, "cc_high": 1.0,
                                       "base_rate": 1.0}})
    assert "The 1 concept in the background facts of at least 28 anchors is shown" in text
    assert NOT_INFORMATIVE in text and "every anchor question was answered correctly" in text
