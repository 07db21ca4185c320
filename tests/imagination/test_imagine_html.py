"""Shared imagination in the HTML report, drawn from real run folders of scripted models: the
numbers are the typed results', each link opens exactly the records behind its number, each
record is stored once, and the page needs no network."""

from __future__ import annotations

import html
import re
from dataclasses import asdict
from pathlib import Path

import pytest

from verstehen.engine.store import RunStore
from verstehen.errors import CallFailed
from verstehen.methods.imagination.api import imagine_answer, imagine_generate
from verstehen.methods.imagination.html import (
    answer_section,
    answer_view,
    compare,
    fiction_view,
    generate_section,
    question_view,
)
from verstehen.methods.imagination.results import ImagineAnswerResult, ImagineGenerateResult
from verstehen.methods.imagination.runs import ANSWER, answer_records, read_runs
from verstehen.methods.imagination.stats import MatrixRow, pair_matrix
from verstehen.report.html import Page, rate
from verstehen.testing.scripted import ScriptedModel

from pages import book, linked, opened
from pages import self_contained as one_document

QM = "scripted/q<m>"  # a name that must be escaped
QUESTION = ("Question: In {topic}, what does the Zorvian flux obey?\nA. Dusk\nB. Mirrors\n"
            "C. The quiet law of rooms\nD. Salt\nAnswer: C")


def qm_reply(prompt: str) -> str:
    """A context paragraph, a question in the paper's template, or a broken one on law."""
    if "Imagine that you are writing a textbook" in prompt:
        return "Concept: Zorbic flux\nContent: Zorbic <flux> is the flow of zorbs."
    if "topic of law" in prompt:
        return "Question: Who rules?\nA. Kings\nB. Queens\nC. Jacks"
    topic = re.search(r"On the topic of (.+?),", prompt)
    return QUESTION.format(topic=topic[1] if topic else "science")


def fail_history(prompt: str, _attempt: int) -> Exception | None:
    """Every call about history fails."""
    return CallFailed("history is closed") if "history" in prompt else None


def always_c(prompt: str) -> str:
    """Answers C, and calls every paragraph made up."""
    return "No" if "real concept" in prompt else "Answer: C"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A generate run (kept, dropped and failed questions of two types) and two answer runs
    on it that share one answer model."""
    tmp = tmp_path_factory.mktemp("imagine-html")
    where = {"runs_dir": tmp / "runs", "cache": tmp / "calls.sqlite"}
    generated = imagine_generate(ScriptedModel(QM, script=fail_history, reply=qm_reply),
                                 topics="physics,law,history", per_topic=1,
                                 kinds="direct,context", **where)
    first = imagine_answer(generated, models=[
        ScriptedModel("scripted/c", reply=always_c),
        ScriptedModel("scripted/no", reply=lambda p: "This concept does not exist.")],
        shuffle=False, fictionality=True, **where)
    second = imagine_answer(generated, models=[
        ScriptedModel("scripted/c", reply=always_c),
        ScriptedModel("scripted/a", reply=lambda p: "Answer: A")], shuffle=False, **where)
    return {"generated": generated, "first": first, "second": second}


def rows(text: str) -> list[list[str]]:
    """The body rows of every table on the page, as lists of cell HTML."""
    return [cells for row in re.findall(r"<tr>(.*?)</tr>", text)
            if (cells := re.findall(r"<td>(.*?)</td>", row))]


def lines(run: Path) -> list[dict]:
    """A run folder's records."""
    return list(RunStore(run).records())


def self_contained(text: str) -> None:
    """One document with no address to fetch, its images inlined."""
    one_document(text)
    assert 'src="data:image/png;base64,' in text or "<img" not in text


def test_generate_section_links_each_count_to_its_questions(runs):
    result: ImagineGenerateResult = runs["generated"]
    page = Page("questions")
    generate_section(result.run_dir, page)
    text, data = page.html(), book(page)
    records = lines(result.run_dir)
    assert set(result.by_type) == {"DQ", "CQ"}
    assert (result.by_type["DQ"].dropped, result.by_type["DQ"].failed) == (1, 1)
    table = {row[0].split(" ")[0]: row for row in rows(text)}
    for qtype, t in result.by_type.items():
        row = table[qtype]
        assert row[1] == f"{t.filled} of {t.slots}"
        assert row[4] == str(t.repeated) == "0"  # no question repeats another here
        for cell, count, status in ((row[2], t.asked, None), (row[3], t.kept, "ok"),
                                    (row[5], t.dropped, "dropped"), (row[7], t.failed, "error")):
            expected = [asdict(question_view(r)) for r in records
                        if r["qtype"] == qtype and status in (None, r["status"])]
            if not expected:
                assert cell == str(count)
                continue
            shown, group = linked(cell)
            assert shown == str(count) and opened(data, group) == expected
        assert t.reasons or row[6] == "—"
        for (reason, n), cell in zip(t.reasons.items(), row[6].split("<br>") * bool(t.reasons),
                                     strict=True):
            shown, group = linked(cell)
            assert shown == f"{reason} ({n})"
            assert [r["why"] for r in opened(data, group)] == [reason] * n
    # every question record once, though each is linked from two or three numbers
    assert len(data["records"]) == len(records)
    assert sum(len(g["records"]) for g in data["groups"]) > len(records)
    failed = [r for r in data["records"] if r["grade"] == "error"]
    assert failed and all("history is closed" in r["answer"] for r in failed)
    kept_cq = next(r for r in data["records"] if r["title"].startswith("CQ")
                   and r["grade"] == "ok")
    assert "Zorbic <flux> is the flow of zorbs." in kept_cq["question"]
    assert "designated answer: C" in kept_cq["why"]
    assert "scripted/q&lt;m&gt;" in text and "q<m>" not in text and "<flux>" not in text
    self_contained(text)


def test_answer_section_links_kappa_alpha_and_n_to_the_cells_answers(runs):
    result: ImagineAnswerResult = runs["first"]
    page = Page("answers")
    answer_section(result.run_dir, page)
    text, data = page.html(), book(page)
    records = lines(result.run_dir)
    table = {tuple(html.unescape(c) for c in row[:4]): row for row in rows(text)
             if len(row) == 8}
    assert len(table) == len(result.matrix) == 4
    for m in result.matrix:
        row = table[(m.qtype, m.content, m.qm, m.am)]
        cell = [r for r in records if r["kind"] == "answer"
                and (r["content"], r["qtype"], r["qm"], r["am"]) == (m.content, m.qtype, m.qm,
                                                                      m.am)]
        for at, shown_as, outcomes in (
                (4, rate(m.kappa, m.kappa_se, m.answered), ("correct", "wrong")),
                (5, rate(m.alpha, m.alpha_se, m.answered + m.declined),
                 ("correct", "wrong", "refused", "choice_e")),
                (6, str(m.n), None)):
            expected = [asdict(answer_view(r)) for r in cell
                        if outcomes is None or r["outcome"] in outcomes]
            if not expected:
                assert html.unescape(row[at]) == shown_as
                continue
            shown, group = linked(row[at])
            assert shown == shown_as and opened(data, group) == expected
        assert row[7] == str(m.unparsed)
    refused = next(m for m in result.matrix if m.am.startswith("scripted/no"))
    assert (refused.alpha, refused.kappa, refused.declined) == (0.0, None, 2)
    assert html.unescape(table[(refused.qtype, refused.content, refused.qm, refused.am)][4]) \
        == "— (n=0)"
    # fictionality: the AM that says "No" called each paragraph made up; the other is unparsed
    fiction = {html.unescape(row[1]): row for row in rows(text) if len(row) == 4}
    for f in result.fiction:
        shown, group = linked(fiction[f.am][2]) if f.judged else (fiction[f.am][2], None)
        assert shown == rate(f.rate, f.se, f.judged)
        pair = [r for r in records if r["kind"] == "fiction" and r["am"] == f.am]
        if group is not None:
            assert opened(data, group) == [asdict(fiction_view(r)) for r in pair
                                           if r["verdict"] in ("real", "fictional")]
    assert {f.am: (f.rate, f.judged, f.unparsed) for f in result.fiction} == {
        "scripted/c": (1.0, 2, 0), "scripted/no": (None, 0, 2)}
    outcomes = {row[0]: row[1] for row in rows(text) if len(row) == 2}
    assert set(outcomes) == set(result.outcomes) == {"correct", "refused"}
    for outcome, n in result.outcomes.items():
        shown, group = linked(outcomes[outcome])
        assert shown == str(n) and len(opened(data, group)) == n
        assert {r["grade"] for r in opened(data, group)} == {outcome}
    assert len(data["records"]) == len(records) == 6 + 4  # answers and fiction, once each
    assert text.count('<img alt="κ and α per question and answer model"') == 1
    assert "scripted/q&lt;m&gt;" in text and "q<m>" not in text
    self_contained(text)


def test_compare_pools_the_runs_once_each_and_shares_records_with_their_sections(runs):
    first, second = runs["first"].run_dir, runs["second"].run_dir
    page = Page("pooled")
    compare([first, second], page)
    before = book(page)
    answer_section(first, page)
    answer_section(second, page)
    text, data = page.html(), book(page)
    pooled = pair_matrix([r for r in answer_records(read_runs([first, second], (ANSWER,))).records
                          if r["kind"] == "answer"])
    assert {m.am for m in pooled} == {"scripted/c [native order]", "scripted/no [native order]",
                                      "scripted/a [native order]"}
    table = rows(text)[:len(pooled)]
    assert [tuple(html.unescape(c) for c in row[:4]) for row in table] == [
        (m.qtype, m.content, m.qm, m.am) for m in pooled]
    for m, row in zip(pooled, table, strict=True):
        assert isinstance(m, MatrixRow) and linked(row[6])[0] == str(m.n)
        if m.kappa is not None:
            assert linked(row[4])[0] == rate(m.kappa, m.kappa_se, m.answered)
    # the shared AM's answers are the second run's: the same book entries its own section links
    c_row = next(row for m, row in zip(pooled, table, strict=True)
                 if m.am.startswith("scripted/c") and m.qtype == "DQ")
    pooled_ids = data["groups"][linked(c_row[6])[1]]["records"]
    own = [row for row in rows(text)[len(pooled):] if len(row) == 8
           and html.unescape(row[3]).startswith("scripted/c") and row[0] == "DQ"]
    first_ids, second_ids = (data["groups"][linked(row[6])[1]]["records"] for row in own)
    assert pooled_ids == second_ids and not set(pooled_ids) & set(first_ids)
    assert len(before["records"]) == sum(m.n for m in pooled)
    assert len(data["records"]) == len(lines(first)) + len(lines(second))
    self_contained(text)
