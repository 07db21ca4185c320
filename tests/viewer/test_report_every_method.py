"""One report of the example run of every run kind (scripted models): each kind's section is
there (its own, or the default one: its result's values under its headline), `verstehen runs`
lists each folder with its headline, potemkin's numbers are the typed result's, and every
linked number opens records in the browser."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from every_method import each_kind
from export.made_runs import made_runs
from playwright.sync_api import expect
from viewer.test_report_browser import browser  # noqa: F401  (a fixture)

import verstehen as vs
from verstehen.methods.contract import RunKind
from verstehen.report.html import Page, rate
from verstehen.results import load_result
from verstehen.viewer.default_section import default_section
from verstehen.viewer.page import build_page

from pages import book_in


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A finished run folder of each kind, by kind (each kind's example)."""
    return made_runs(tmp_path_factory)


def headings(page: Page) -> list[str]:
    """The headings of a page's sections, in order."""
    return [heading for _, heading in page._nav]


def drawn_alone(kind: RunKind[Any], run: Path) -> list[str]:
    """The headings the kind's section draws of one folder on a page of its own: its
    declared section's, or the default one's."""
    page = Page("one folder")
    if kind.section is None:
        default_section(kind, run, page)
    else:
        kind.section(run, page)
    return headings(page)


@each_kind()
def test_each_kind_has_its_section_and_its_runs_line(kind: RunKind[Any],
                                                     runs: dict[str, Path]) -> None:
    """`verstehen report` of its folder draws its section first (the default one: its
    result's values under `KIND: HEADLINE`); `verstehen runs` lists the folder, done, with
    the headline its result gives."""
    assert kind.kind in runs, f"{kind.kind} declares no example run"
    run = runs[kind.kind]
    found = kind.headline(load_result(kind.result, run))
    own = drawn_alone(kind, run)
    assert own and found
    page = build_page([run])
    assert page.title == f"verstehen report: {kind.kind}"
    assert headings(page)[:len(own)] == own
    if kind.section is None:
        assert own == [f"{kind.kind}: {found}"]
    [line] = [line for line in vs.list_runs(run.parent) if line.path == run]
    assert (line.command, line.status, line.found) == (kind.kind, "done", found)


@pytest.mark.every_method
def test_one_page_of_every_kind_links_every_record(runs: dict[str, Path]) -> None:
    html = build_page(list(runs.values())).html()
    book = book_in(html)
    assert book["groups"] and all(g["records"] for g in book["groups"])
    linked = {i for g in book["groups"] for i in g["records"]}
    assert linked == set(range(len(book["records"])))  # every stored record is reachable
    assert not re.search(r'(src|href)="https?:', html)


def test_potemkins_numbers_are_its_results(runs: dict[str, Path]) -> None:
    """A potemkin run's rates and an incoherence run's, as their summaries hold them."""
    potemkin, incoherence = runs["potemkin-run"], runs["potemkin-incoherence"]
    html = build_page([potemkin, incoherence]).html()
    table1 = json.loads((potemkin / "summary.json").read_text())["table1"]
    shown = [r for rates in table1.values() for r in rates.values() if r["rate"] is not None]
    assert shown
    for r in shown:
        assert rate(r["rate"], r["se"], r["n"]) in html
    overall = json.loads((incoherence / "summary.json").read_text())["overall"]
    assert rate(overall["incoherence"], overall["se"], overall["n"]) in html


@pytest.mark.every_method
def test_every_link_opens_its_records_in_the_browser(browser, runs: dict[str, Path],  # noqa: F811
                                                     tmp_path: Path) -> None:
    out = vs.write_report(list(runs.values()), tmp_path / "all.html")
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
