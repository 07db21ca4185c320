"""The audit report's verdict figure (issue 34): a forest plot first in every audit section,
its numbers (data attributes, alt text, and where the marks sit on the axes) equal to
summary.json and the records; two models of one audit, and two audit folders given to
`verstehen report`, in one figure and one table; every mark a link to records that exist;
the Potemkin picture's rates as the records give them; the rule's legend on top of a certify
section.

The browser test uses Debian's chromium (skipped without it unless VERSTEHEN_REQUIRE_BROWSER
is set); the others read the page's HTML with the standard library's parser.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from viewer.test_report_browser import audited, browser  # noqa: F401 (fixtures: two scripted models' audit, Chromium)

import verstehen as vs
from verstehen.auditing.example import CONCEPTS, oracle
from verstehen.testing.scripted import ScriptedModel

from audit.test_audit import label_all, records, where

Element = tuple[str, dict[str, str], int | None]  # tag, attributes, the svg it sits in


class Elements(HTMLParser):
    """Every start tag with its attributes and the index of the svg it sits in; each table's
    header cells and each svg's text."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.items: list[Element] = []
        self.headers: list[list[str]] = []
        self.svg_text: list[str] = []
        self._svg: int | None = None
        self._th: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "svg":
            self._svg = len(self.svg_text)
            self.svg_text.append("")
        if tag == "table":
            self.headers.append([])
        if tag == "th":
            self._th = []
        self.items.append((tag, {k: v or "" for k, v in attrs}, self._svg))

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._svg = None
        if tag == "th" and self._th is not None:
            self.headers[-1].append("".join(self._th))
            self._th = None

    def handle_data(self, data: str) -> None:
        if self._th is not None:
            self._th.append(data)
        if self._svg is not None:
            self.svg_text[self._svg] += data

    def marks(self, kind: str) -> list[tuple[dict[str, str], int | None]]:
        """The marks of one kind (score, ridiculous, verdict, keystone, potemkin,
        incoherence) with the svg each is in."""
        return [(a, svg) for tag, a, svg in self.items
                if "mark" in a.get("class", "").split() and a.get("data-mark") == kind]


def book(html: str) -> dict:
    """The page's records and groups, unpacked as the page's script does."""
    found = re.search(r'<script type="application/octet-stream" id="book">(.*?)</script>',
                      html, re.S)
    assert found is not None
    return json.loads(gzip.decompress(base64.b64decode(found.group(1))))


def assert_every_mark_opens_records(html: str) -> int:
    """Each mark of the figures is a link to the dialog, to a group of records that exist;
    how many marks there are."""
    page = Elements(html)
    data = book(html)
    marks = [a for tag, a, svg in page.items if svg is not None
             and "mark" in a.get("class", "").split()]
    assert marks
    assert any(a.get("id") == "records" for tag, a, _ in page.items if tag == "dialog")
    for a in marks:
        assert a.get("href") == "#records", a  # every mark is a link, none a plain group
        group = data["groups"][int(a["data-g"])]
        assert group["records"] and all(0 <= i < len(data["records"])
                                        for i in group["records"])
    return len(marks)


def summary_lines(run: Path) -> list[dict]:
    """The per-target lines of an audit folder's summary.json."""
    return json.loads((run / "summary.json").read_text())["targets"]


def test_two_models_of_one_audit_are_one_figure_and_one_table(audited) -> None:  # noqa: F811
    html = (audited.run_dir / "report.html").read_text()
    page = Elements(html)
    score = page.marks("score")
    assert {svg for _, svg in score} == {0}  # the audit's first drawing holds every mark
    assert {(a["data-model"], a["data-target"]) for a, _ in score} == {
        (m, k) for m in ("scripted/oracle", "scripted/yes") for k in CONCEPTS}
    assert page.headers[0] == ["target", "scripted/oracle", "scripted/yes"]
    for line in summary_lines(audited.run_dir):
        mark = next(a for a, _ in score
                    if (a["data-model"], a["data-target"]) == (line["model"], line["key"]))
        v = line["verdict"]
        assert float(mark["data-mean"]) == pytest.approx(v["mean_score"], abs=1e-6)
        assert float(mark["data-lower"]) == pytest.approx(v["score_lower"], abs=1e-6)
        assert float(mark["data-upper"]) == pytest.approx(v["score_upper"], abs=1e-6)
        assert mark["data-decision"] == v["decision"] and int(mark["data-n"]) == v["n"]
    # 2 models x 2 concepts: score, ridiculous, verdict, keystone, 3 tasks (or one note
    # when no rate), incoherence; at least the four of the verdict figure each
    assert assert_every_mark_opens_records(html) >= 2 * 2 * 3


def test_two_audit_folders_are_one_figure_and_one_table(tmp_path: Path, cli) -> None:
    first = vs.audit(ScriptedModel("scripted/oracle", reply=oracle(CONCEPTS)),
                     subjects=",".join(CONCEPTS), **where(tmp_path)).run_dir
    pareto = "game-theory/pareto-optimality"
    second = vs.audit([ScriptedModel("scripted/oracle", reply=oracle(CONCEPTS)),
                       ScriptedModel("scripted/yes", reply=lambda p: "ANSWER: Yes")],
                      subjects=f"{CONCEPTS[1]},{pareto}", **where(tmp_path)).run_dir
    out = tmp_path / "both.html"
    ran = cli(["report", str(first), str(second), "-o", str(out)])
    assert ran.returncode == 0, ran.stderr
    html = out.read_text()
    page = Elements(html)
    assert "Audits side by side" in html.split("<section", 2)[1]  # the first section
    # the same model in both audits: told apart by the folder's name
    columns = [f"scripted/oracle ({first.name})", f"scripted/oracle ({second.name})",
               "scripted/yes"]
    assert page.headers[0] == ["target", *columns]
    score = [(a, svg) for a, svg in page.marks("score") if svg == 0]
    # the union of the targets; a target one audit lacks is drawn as missing, not as a mark
    assert {(a["data-model"], a["data-target"]) for a, _ in score} == {
        (columns[0], CONCEPTS[0]), (columns[0], CONCEPTS[1]),
        (columns[1], CONCEPTS[1]), (columns[1], pareto),
        (columns[2], CONCEPTS[1]), (columns[2], pareto)}
    assert page.svg_text[0].count("not in this audit") == 3
    table = html.split('<table class="audit">', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == 1 + 3 and table.count("not in this audit") == 3
    for run, label in ((first, columns[0]), (second, columns[1]), (second, columns[2])):
        for line in summary_lines(run):
            if line["model"] != label.split(" ")[0]:
                continue
            mark = next(a for a, _ in score
                        if (a["data-model"], a["data-target"]) == (label, line["key"]))
            assert float(mark["data-mean"]) == pytest.approx(line["verdict"]["mean_score"],
                                                             abs=1e-6)
    assert assert_every_mark_opens_records(html) > 0
    # each audit is still drawn on its own below the comparison
    headings = re.findall(r"<h2>(Audit[^<]*)</h2>", html)
    assert headings[0].startswith("Audits side by side") and len(headings) == 3


def test_the_potemkin_picture_shows_the_rates_of_the_records(tmp_path: Path) -> None:
    model = ScriptedModel("scripted/oracle", reply=oracle(CONCEPTS[:1]))
    result = vs.audit(model, subjects=CONCEPTS[0], **where(tmp_path))
    labels = vs.annotate_export(result.runs[0].potemkin)
    label_all(labels, "yes")  # the definition graded right, so the rates are counted
    vs.annotate_import(result.runs[0].potemkin, labels)
    html = vs.write_report(result.run_dir).read_text()
    page = Elements(html)
    (keystone, _), = page.marks("keystone")
    assert keystone["data-keystone"] == "right"
    answers = [r for r in records(result.runs[0].certify) if r["kind"] == "answer"]
    rates = {a["data-task"]: a for a, _ in page.marks("potemkin")}
    assert set(rates) == {"classify", "generate", "edit"}
    for task, mark in rates.items():
        # the paper's potemkin rate: 1 - accuracy given a right definition, classify x 2
        # (chance reads 1); an unreadable classification is left out, an unreadable generate
        # or edit answer counts as wrong
        mine = [r for r in answers if r["family"] == task]
        counted = [r for r in mine if task != "classify" or r["outcome"] != "unparsed"]
        right = sum(r["score"] == 1.0 for r in counted)
        expected = (2 if task == "classify" else 1) * (1 - right / len(counted))
        assert float(mark["data-rate"]) == pytest.approx(expected, abs=1e-6)
        assert int(mark["data-n"]) == len(counted)
    pairs = [r for r in records(result.runs[0].incoherence)
             if r["kind"] == "pair" and r["mismatch"] is not None]
    (incoherent, _), = page.marks("incoherence")
    # 2 x the share of its own examples the model's classification contradicts
    assert float(incoherent["data-rate"]) == pytest.approx(
        2 * sum(p["mismatch"] for p in pairs) / len(pairs), abs=1e-6)
    # score, ridiculous and verdict; definition, three rates and incoherence
    assert assert_every_mark_opens_records(html) == 3 + 1 + 3 + 1


def test_a_certify_section_states_the_rule_above_its_table(tmp_path: Path) -> None:
    model = ScriptedModel("scripted/yes", reply=lambda p: "ANSWER: Yes")
    run = vs.certify(model, "game-theory/zero-sum/classify", questions=50, rephrase=0,
                     pg=0.75, rid=0.05, delta=0.1, **where(tmp_path)).run_dir
    section = vs.write_report(run).read_text().split("<section", 2)[1]
    legend = section.index('<p class="legend">')
    assert legend < section.index("<table")
    said = section[legend:section.index("</p>", legend)]
    for words in ("L ≥ PG (0.75)", "upper bound ≤ RID (0.05)", "U &lt; PG", "δ (0.1)",
                  "1 − δ (90%)"):
        assert words in said


MARKS_JS = """els => els.map(e => {
  const box = el => { const r = el.getBoundingClientRect(); return r.x + r.width / 2; };
  const caps = [...e.querySelectorAll('line')].filter(l => {
    const r = l.getBoundingClientRect(); return r.height > r.width; }).map(box);
  return {...e.dataset, label: e.getAttribute('aria-label'), text: e.textContent,
          dot: e.querySelector('circle.dot') ? box(e.querySelector('circle.dot')) : null,
          low: Math.min(...caps), high: Math.max(...caps)};
})"""
TICKS_JS = """els => Object.fromEntries(els.map(e => {
  const r = e.getBoundingClientRect(); return [e.dataset.value, r.x + r.width / 2]; }))"""


def test_the_default_audit_report_opens_with_the_verdict_figure(browser,  # noqa: F811
                                                                 tmp_path: Path) -> None:
    # the default audit (game theory's nine concepts, PG 0.8, RID 0.2, δ 0.05) of a model
    # that knows two of them
    result = vs.audit(ScriptedModel("scripted/oracle", reply=oracle(CONCEPTS)),
                      **where(tmp_path))
    summary = json.loads((result.run_dir / "summary.json").read_text())
    pg, rid, delta = (summary["criterion"][k] for k in ("pg", "rid", "delta"))
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto((result.run_dir / "report.html").as_uri())
    first = page.locator("main section").first
    order = first.evaluate("s => [...s.children].map(e => e.tagName.toLowerCase())")
    assert order[:2] == ["h2", "figure"] and order.index("figure") < order.index("table")
    assert first.locator("figure").first.locator("svg.verdicts").count() == 1
    figure = first.locator("svg.verdicts")
    box = figure.bounding_box()
    assert box is not None and box["y"] < 900 and box["x"] + box["width"] <= 1400
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400  # no sideways scroll

    ticks = {axis: figure.locator(f"g[data-axis={axis}] line.tick").evaluate_all(TICKS_JS)
             for axis in ("score", "ridiculous")}

    def at(axis: str, value: float) -> float:
        """Where a value sits on the axis, from the ticks at 0 and 1."""
        zero, one = ticks[axis]["0"], ticks[axis]["1"]
        return zero + value * (one - zero)

    pg_line = figure.locator("line.ref.pg").bounding_box()
    assert pg_line["x"] + pg_line["width"] / 2 == pytest.approx(at("score", pg), abs=1)
    rid_line = figure.locator("line.ref.rid").bounding_box()
    assert rid_line["x"] + rid_line["width"] / 2 == pytest.approx(at("ridiculous", rid), abs=1)

    drawn = {(m["mark"], m["target"]): m for m in
             figure.locator("a.mark").evaluate_all(MARKS_JS)}
    answers = [r for r in records(result.runs[0].certify) if r["kind"] == "answer"]
    assert len(summary["targets"]) == 9
    for line in summary["targets"]:
        v, key = line["verdict"], line["key"]
        scores = [r["score"] for r in answers if r["scope"] == line["scope"]]
        assert len(scores) == v["n"]
        score, ridiculous = drawn[("score", key)], drawn[("ridiculous", key)]
        # the dot at the mean of the answers' scores, the caps at the summary's bounds
        assert score["dot"] == pytest.approx(at("score", sum(scores) / len(scores)), abs=1)
        assert score["low"] == pytest.approx(at("score", v["score_lower"]), abs=1)
        assert score["high"] == pytest.approx(at("score", v["score_upper"]), abs=1)
        zeros = sum(s == 0.0 for s in scores)
        assert ridiculous["dot"] == pytest.approx(at("ridiculous", zeros / len(scores)), abs=1)
        assert ridiculous["low"] == pytest.approx(at("ridiculous", v["ridiculous_lower"]), abs=1)
        assert ridiculous["high"] == pytest.approx(at("ridiculous", v["ridiculous_upper"]),
                                                   abs=1)
        # the alt text carries the same numbers
        assert (f"mean score {v['mean_score']:.2f}, [L, U] = [{v['score_lower']:.2f}, "
                f"{v['score_upper']:.2f}] against PG {pg:g}") in score["label"]
        assert f"{zeros} of {v['n']} answers scored 0" in ridiculous["label"]
        verdict = drawn[("verdict", key)]
        words = v["decision"].replace("_", " ")
        assert verdict["decision"] == v["decision"] and words in verdict["label"]
        assert words in verdict["text"] and f"n={v['n']}" in verdict["text"]

    legend = first.locator("figure p.legend").first.inner_text()
    for words in (f"L ≥ PG ({pg:g})", f"upper bound ≤ RID ({rid:g})", f"δ ({delta:g})"):
        assert words in legend

    # a score mark opens every answer it rests on
    key = summary["targets"][0]["key"]
    figure.locator(f'a.mark[data-mark="score"][data-target="{key}"]').click()
    dialog = page.locator("dialog#records[open]")
    dialog.wait_for()
    assert dialog.locator(".record").count() == summary["targets"][0]["verdict"]["n"]
    assert all(url.startswith(("file:", "data:")) for url in requests), requests
    page.close()
