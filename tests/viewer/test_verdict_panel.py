"""The panel a verdict opens lists every answer the verdict rests on (issue 44, item 5): for an
n=8 verdict the report titled its panel "answers the verdict rests on (6)" and listed only the
6 answers scored 0. Now it lists all 8, those that decided it (scored 0) first, and its title
says so; in the certification section, the audit's table and the audit's figure alike."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest

import verstehen as vs
from verstehen.methods.certification.example import calculator
from verstehen.testing.scripted import ScriptedModel

from pages import book_in

LINK = re.compile(r'<a href="#records" class="rec" data-g="(\d+)"[^>]*>(.*?)</a>')
MARK = re.compile(r'<a[^>]*class="[^"]*\bmark\b[^"]*"[^>]*data-mark="verdict"[^>]*>')


def fifth_right() -> ScriptedModel:
    """Right on the questions whose text hashes to 0 mod 5, "no idea" (scored 0) on the rest:
    2 of the first 8 arithmetic/small questions of the default seed."""
    return ScriptedModel("scripted/fifth", reply=lambda p: calculator(p) if zlib.crc32(
        p.encode()) % 5 == 0 else "no idea at all")


def groups_opened_by(page: str, text: str) -> list[int]:
    """The groups that links reading `text` open."""
    return [int(g) for g, shown in LINK.findall(page) if shown == text]


def check_panel(data: dict, group: int, name: str, n: int, zeros: int) -> None:
    """The panel lists n answers, the `zeros` scored 0 first, under a title that says so."""
    panel = data["groups"][group]
    grades = [data["records"][i]["grade"] for i in panel["records"]]
    assert len(grades) == n
    assert all(g.endswith("score 0") for g in grades[:zeros])
    assert not any(g.endswith("score 0") for g in grades[zeros:])
    assert panel["title"] == (f"{name}: the answers the verdict rests on, the {zeros} scored 0 "
                              "(which decided it) first")


@pytest.mark.filterwarnings("ignore:with PG 0.8:UserWarning")
def test_a_certify_verdict_opens_every_answer_it_rests_on(tmp_path: Path) -> None:
    result = vs.certify(fifth_right(), "arithmetic/small", questions=8, rephrase=0,
                        runs_dir=tmp_path / "runs", cache=tmp_path / "c.sqlite")
    verdict = result.verdict
    assert verdict is not None and verdict.decision is vs.Decision.DOES_NOT_UNDERSTAND
    assert (verdict.n, result.scopes[0].outcomes.get("correct")) == (8, 2)
    page = vs.write_report([result.run_dir], tmp_path / "report.html").read_text()
    data = book_in(page)
    [group] = groups_opened_by(page, "does not understand")
    check_panel(data, group, "arithmetic/small", 8, 6)


def test_an_audit_verdict_and_its_figure_mark_open_every_answer_it_rests_on(
        tmp_path: Path) -> None:
    result = vs.audit(fifth_right(), subjects="arithmetic/small", examples=0,
                      runs_dir=tmp_path / "runs", cache=tmp_path / "c.sqlite")
    [target] = result.targets
    verdict = target.verdict
    assert verdict is not None and verdict.decision is vs.Decision.DOES_NOT_UNDERSTAND
    zeros = round(verdict.ridiculous_rate * verdict.n)
    assert 0 < zeros < verdict.n
    page = (result.run_dir / "report.html").read_text()
    data = book_in(page)
    # the audit's table, the lens's certification section drawn after it, the figure's mark
    groups = groups_opened_by(page, "does not understand")
    [mark] = MARK.findall(page)
    groups.append(int(re.search(r'data-g="(\d+)"', mark)[1]))
    assert len(groups) == 3
    for group in groups:
        check_panel(data, group, target.name, verdict.n, zeros)
