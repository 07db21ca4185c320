"""Conceptual consistency in the HTML report, drawn from real run folders of scripted models:
the numbers are the typed result's, each link opens exactly the anchors or facts behind its
number, each record is stored once, and the page needs no network."""

from __future__ import annotations

import html
import json
import re
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest

from verstehen.engine.store import RunStore
from verstehen.errors import CallFailed
from verstehen.methods.consistency.api import consistency
from verstehen.methods.consistency.breakdowns import by_concept
from verstehen.methods.consistency.example import write_data
from verstehen.methods.consistency.html import (
    anchor_view,
    by_relation_text,
    cc_cell,
    cc_text,
    compare,
    fact_view,
    section,
)
from verstehen.methods.consistency.results import ConsistencyResult
from verstehen.methods.consistency.summary import read_results
from verstehen.models.base import Capabilities
from verstehen.report.html import Page, num, rate
from verstehen.results import load_result
from verstehen.testing.scripted import ScriptedModel

from pages import LINK, book, linked, self_contained

LP = "scripted/l<p>"  # a name that must be escaped


class GenerationOnly(ScriptedModel):
    """A model without log-probabilities."""

    capabilities = Capabilities(generate=True, logprobs=False)


def fail_kennel(prompt: str, _attempt: int) -> Exception | None:
    """The anchor question about the kennel fails."""
    return CallFailed("no") if "kennel" in prompt and "letter of" in prompt else None


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[ConsistencyResult, ...]:
    """A likelihood run (every fact answered "no", q3 right) and a generation run (every fact
    "yes", q1 right, q3's anchor call failed)."""
    tmp = tmp_path_factory.mktemp("consistency-html")
    questions, kb = write_data(tmp)
    where = {"questions": questions, "kb": kb, "resamples": 20, "runs_dir": tmp / "runs",
             "cache": tmp / "calls.sqlite"}
    return (consistency(ScriptedModel(LP), **where),
            consistency(GenerationOnly("scripted/gen", script=fail_kennel,
                                       reply=lambda p: "Yes, (A)"), **where))


def tables(text: str) -> list[list[list[str]]]:
    """Every table of the page: its body rows as lists of cell HTML."""
    return [[re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", t)
             if "<td>" in row] for t in re.findall(r"<tbody>(.*?)</tbody>", text)]


def opens(data: dict, cell: str, text: str, expected: list[dict]) -> None:
    """The cell shows `text` and opens exactly `expected` (plain text when there is none)."""
    if not expected:
        assert html.unescape(cell) == text
        return
    shown, group = linked(cell)
    assert shown == text
    assert [data["records"][i] for i in data["groups"][group]["records"]] == expected


def records(run: Path) -> tuple[list[dict], list[dict]]:
    """A run folder's anchor and fact records."""
    rows = list(RunStore(run).records())
    return [r for r in rows if r["kind"] == "anchor"], [r for r in rows if r["kind"] == "fact"]


def in_cc(anchors: list[dict], facts: list[dict]) -> list[dict]:
    """The anchors CC is over: question answered and some fact of theirs answered."""
    answered = {f["key"] for f in facts if f["said_yes"] is not None}
    return [a for a in anchors if a["correct"] is not None and set(a["facts"]) & answered]


@pytest.mark.parametrize("which", [0, 1], ids=["likelihood", "generation"])
def test_the_section_shows_the_results_numbers_linked_to_their_records(runs, which):
    result = runs[which]
    page = Page("consistency")
    section(result.run_dir, page)
    text, data = page.html(), book(page)
    anchors, facts = records(result.run_dir)
    # three questions: no concept is in the facts of the paper's 28 anchors, no concept table
    overall, relations, bias = tables(text)
    assert "No concept is in the background facts of 28 anchors" in text
    c = result.consistency
    scored = [asdict(anchor_view(a)) for a in in_cc(anchors, facts)]
    assert len(scored) == c.n > 0
    (row,) = overall
    assert c.s_b_relations is not None and c.relations == len(result.by_relation)
    for cell, shown in zip(row, (cc_text(c.cc, c.cc_low, c.cc_high), rate(c.s_b, c.s_b_se),
                                 by_relation_text(c), rate(c.s_a, c.s_a_se), str(c.n),
                                 num(c.base_rate)), strict=False):
        opens(data, cell, shown, scored)
    opens(data, row[6], str(c.unanswered),
          [asdict(anchor_view(a)) for a in anchors if a["correct"] is None])
    assert c.unanswered == which  # the generation run's kennel question failed

    assert [html.unescape(r[0]) for r in relations] == list(result.by_relation)
    for r, (name, e) in zip(relations, result.by_relation.items(), strict=True):
        own = [f for f in facts if f["relation"] == name]
        right = sum(f["said_yes"] == f["positive"] for f in own)
        opens(data, r[1], f"{len(own)} ({right} right)", [asdict(fact_view(f)) for f in own])
        for cell, entry in ((r[3], e.cc), (r[4], e.with_), (r[5], e.without)):
            assert html.unescape(LINK.sub(r"\3", cell)) == cc_cell(entry)
            if entry.n:
                assert len(data["groups"][linked(cell)[1]]["records"]) == entry.n
        assert html.unescape(LINK.sub(r"\3", r[2])) == rate(e.background.mean, e.background.se,
                                                            e.background.n)

    m = result.bias.majority
    majority = bias[0]
    for cell, side, positive in ((majority[1], m.positive, True), (majority[2], m.negative,
                                                                   False)):
        answered = [f for f in facts if f["positive"] == positive and f["said_yes"] is not None]
        opens(data, cell, rate(side.rate, side.se, side.n),
              [asdict(fact_view(f)) for f in answered])
        assert side.rate == (positive if which else not positive)  # "yes" always, or "no"
    assert majority[3] == num(m.accuracy)
    assert len(bias) == (1 if result.bias.single is None else 2)

    # every anchor and fact once, though linked from several numbers
    assert len(data["records"]) == len(anchors) + len(facts)
    assert sum(len(g["records"]) for g in data["groups"]) > len(data["records"])
    grades = {r["grade"] for r in data["records"]}
    assert grades <= {"right", "wrong", "unanswered"} and {"right", "wrong"} <= grades
    assert text.count('src="data:image/png;base64,') == 2
    self_contained(text)


def test_the_concept_table_links_the_anchors_whose_facts_hold_the_concept(runs, tmp_path):
    # the same run with the per-concept table recomputed at a minimum of 1 anchor
    run = tmp_path / runs[0].run_dir.name
    shutil.copytree(runs[0].run_dir, run)
    anchors, facts = records(run)
    summary = json.loads((run / "summary.json").read_text())
    summary["by_concept"] = {c: e.to_dict() for c, e in by_concept(
        *read_results([*facts, *anchors]), min_anchors=1, resamples=20).items()}
    (run / "summary.json").write_text(json.dumps(summary))
    result = load_result(ConsistencyResult, run)
    page = Page("consistency")
    section(run, page)
    text, data = page.html(), book(page)
    _, _, concepts, _ = tables(text)
    # the scripted data: book is in facts of q1 and q2 (book-library, book-read), dog of q3
    assert {"book", "library", "dog", "kennel"} <= set(result.by_concept)
    assert [html.unescape(r[0]) for r in concepts] == list(result.by_concept)
    true_ends = {f["key"]: {f["c1"], f["c2"]} for f in facts if f["positive"]}
    for r, (concept, e) in zip(concepts, result.by_concept.items(), strict=True):
        holding = [a for a in anchors if any(concept in true_ends.get(k, ()) for k in a["facts"])]
        assert e.anchors == len(holding) > 0
        opens(data, r[1], str(e.anchors), [asdict(anchor_view(a)) for a in holding])
        opens(data, r[2], cc_cell(e.with_),
              [asdict(anchor_view(a)) for a in in_cc(anchors, facts) if a in holding])
    book_row = concepts[list(result.by_concept).index("book")]
    assert linked(book_row[1])[0] == "2"


def test_records_show_what_was_asked_and_answered(runs):
    likelihood, generation = runs
    anchors, facts = records(generation.run_dir)
    failed = anchor_view(next(a for a in anchors if a["correct"] is None))
    assert (failed.grade, failed.answer) == ("unanswered", "(the call failed: no)")
    assert "kennel" in failed.why and failed.question == "What animal lives in a kennel?"
    right = anchor_view(next(a for a in anchors if a["correct"]))
    assert right.grade == "right" and right.answer.startswith("A\n\n— the reply: Yes, (A)")
    twin = fact_view(next(f for f in facts if not f["positive"]))
    assert (twin.grade, twin.question[-1]) == ("wrong", "?")
    assert twin.answer.startswith("said yes (votes: yes") and "false twin" in twin.why
    true = fact_view(next(f for f in records(likelihood.run_dir)[1] if f["positive"]))
    assert true.grade == "wrong" and re.fullmatch(r"said no \(\d+ of 35 combos favour yes\)",
                                                  true.answer)


def test_compare_has_a_row_per_run_and_shares_records_with_the_sections(runs):
    page = Page("side by side")
    compare([r.run_dir for r in runs], page)
    for result in runs:
        section(result.run_dir, page)
    text, data = page.html(), book(page)
    side, *rest = tables(text)
    assert len(side) == len(runs)
    for row, result in zip(side, runs, strict=True):
        c = result.consistency
        model = LP if result is runs[0] else "scripted/gen"
        assert [html.unescape(x) for x in row[:6]] == [
            model, result.run_dir.name, cc_text(c.cc, c.cc_low, c.cc_high),
            rate(c.s_b, c.s_b_se), by_relation_text(c), rate(c.s_a, c.s_a_se)]
        assert linked(row[6])[0] == str(c.n)
    # each run's n opens the same book entries as the n of its own section
    for row, overall in zip(side, rest[0::3], strict=True):  # overall, relations, bias
        assert (data["groups"][linked(row[6])[1]]["records"]
                == data["groups"][linked(overall[0][4])[1]]["records"])
    assert len(data["records"]) == sum(sum(map(len, records(r.run_dir))) for r in runs)
    assert "scripted/l&lt;p&gt;" in text and "l<p>" not in text
    self_contained(text)
