"""One report of a run of every method (scripted models): each method's section is there, its
numbers are the typed result's, and every linked number opens records in the browser."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from potemkin.test_potemkin_api import answerer, label_all
from viewer.test_report_browser import browser  # noqa: F401  (a fixture)

import verstehen as vs
from verstehen.report.html import rate
from verstehen.testing.scripted import ScriptedModel
from verstehen.viewer.page import build_page

from consistency.test_consistency_api import data  # noqa: F401  (a fixture)
from pages import book_in


def invented(prompt: str) -> str:
    """A well-formed imaginary question."""
    return ("Question: What does the Zorvian flux obey?\nA. Dusk\nB. Mirrors\n"
            "C. The quiet law of rooms\nD. Salt\nAnswer: C")


@pytest.fixture
def every_method(tmp_path: Path, data) -> list[Path]:  # noqa: F811
    """A run folder of each kind the report draws."""
    where = {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}
    yes = ScriptedModel("scripted/yes", reply=lambda p: "ANSWER: Yes")
    runs = [vs.certify(yes, "game-theory/zero-sum/classify", questions=12, rephrase=0, rid=0.3,
                       **where).run_dir]
    potemkin = vs.potemkin_run(answerer(), concepts="game-theory/strict-dominance",
                           items_per_concept=1, **where)
    labels = vs.annotate_export(potemkin)
    label_all(labels, "yes")
    runs.append(vs.annotate_import(potemkin, labels).run_dir)
    runs.append(vs.potemkin_incoherence(yes, concepts="game-theory/zero-sum", per_concept=1,
                                        **where).run_dir)
    mcq = tmp_path / "dev.jsonl"
    mcq.write_text(json.dumps({"id": "q1", "question": {"stem": "Stem?", "choices": [
        {"label": x, "text": f"choice {x}"} for x in "ABCDE"]}, "answerKey": "A"}) + "\n")
    runs.append(vs.potemkin_selfjudge(ScriptedModel(reply=lambda p: "FINAL ANSWER: A"),
                                      f"mcq:{mcq}", questions=1, subquestions=1,
                                      **where).run_dir)
    generated = vs.imagine_generate(ScriptedModel("scripted/qm", reply=invented),
                                    topics="physics", per_topic=2, kinds="direct", **where)
    runs.append(generated.run_dir)
    runs.append(vs.imagine_answer(generated, models=[ScriptedModel(
        "scripted/c", reply=lambda p: "Answer: C")], **where).run_dir)
    questions, kb = data
    runs.append(vs.consistency(ScriptedModel("scripted/lp"), questions=questions, kb=kb,
                               resamples=20, **where).run_dir)
    return runs


def test_every_method_has_its_section_and_its_numbers(every_method: list[Path]) -> None:
    page = build_page(every_method)
    html = page.html()
    for heading in ("Certification: scripted/yes", "Potemkins: scripted/answerer",
                    "Incoherence: scripted/yes", "Self-judge: scripted/m",
                    "Conceptual consistency: scripted/lp",
                    "Shared imagination: questions by scripted/qm",
                    "Shared imagination: answers by scripted/c"):
        assert heading in html, heading
    potemkin = json.loads((every_method[1] / "summary.json").read_text())
    for task, r in potemkin["table1"]["scripted/answerer"].items():
        if r["rate"] is not None:
            assert rate(r["rate"], r["se"], r["n"]) in html, task
    incoherence = json.loads((every_method[2] / "summary.json").read_text())["overall"]
    assert rate(incoherence["incoherence"], incoherence["se"], incoherence["n"]) in html
    book = book_in(html)
    assert book["groups"] and all(g["records"] for g in book["groups"])
    linked = {i for g in book["groups"] for i in g["records"]}
    assert linked == set(range(len(book["records"])))  # every stored record is reachable
    assert not re.search(r'(src|href)="https?:', html)


def test_every_link_opens_its_records_in_the_browser(browser, every_method,  # noqa: F811
                                                     tmp_path: Path) -> None:
    out = vs.write_report(every_method, tmp_path / "all.html")
    groups = book_in(out.read_text())["groups"]
    page = browser.new_page()
    page.goto(out.as_uri())
    links = page.locator("a.rec")
    assert links.count() == len(groups)
    dialog = page.locator("dialog#records")
    for i in range(links.count()):
        group = groups[int(links.nth(i).get_attribute("data-g"))]
        links.nth(i).click()
        expect(dialog.locator("h3")).to_have_text(f"{group['title']} ({len(group['records'])})")
        assert dialog.locator(".record").count() == min(len(group["records"]), 200)
        dialog.locator("button.close").click()
    page.close()
