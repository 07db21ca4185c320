"""The report in a real browser (headless Chromium): the audit's page shows every target with
its verdict and bounds as summary.json has them, a verdict opens the answers behind it, and
the screenshot is not blank.

Chromium comes from the Debian package (`.ci/run` installs it). Without it these tests skip,
unless VERSTEHEN_REQUIRE_BROWSER is set (as CI sets it), where they fail instead.
"""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest
from matplotlib.image import imread

import verstehen as vs
from verstehen.auditing.example import CONCEPTS, oracle
from verstehen.testing.scripted import ScriptedModel

from audit.test_audit import where

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module."""
    if CHROMIUM is None:
        if os.environ.get("VERSTEHEN_REQUIRE_BROWSER"):
            pytest.fail("VERSTEHEN_REQUIRE_BROWSER is set but chromium is not installed")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> vs.AuditResult:
    """Two scripted models on two concepts: one right every time, one that says Yes."""
    tmp = tmp_path_factory.mktemp("audit")
    return vs.audit([ScriptedModel("scripted/oracle", reply=oracle(CONCEPTS)),
                     ScriptedModel("scripted/yes", reply=lambda p: "ANSWER: Yes")],
                    subjects=",".join(CONCEPTS), **where(tmp))


def test_the_audit_page_shows_each_target_and_opens_its_records(browser, audited, tmp_path):
    summary = json.loads((audited.run_dir / "summary.json").read_text())
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto((audited.run_dir / "report.html").as_uri())
    table = page.locator("table.audit")
    assert table.locator("th").all_inner_texts() == ["target", "scripted/oracle", "scripted/yes"]
    rows = table.locator("tbody tr")
    assert rows.count() == len(CONCEPTS)
    for i, line in enumerate(t for t in summary["targets"] if t["model"] == "scripted/oracle"):
        cells = rows.nth(i).locator("td")
        assert line["name"] in cells.nth(0).inner_text()
        for column, model in ((1, "scripted/oracle"), (2, "scripted/yes")):
            mine = next(t for t in summary["targets"]
                        if t["model"] == model and t["key"] == line["key"])
            v = mine["verdict"]
            text = cells.nth(column).inner_text()
            assert v["decision"].replace("_", " ") in text
            assert (f"score {v['mean_score']:.2f} [{v['score_lower']:.2f}, "
                    f"{v['score_upper']:.2f}], n={v['n']}") in text

    records = [json.loads(x) for x in (audited.runs[1].certify / "records.jsonl").read_text()
               .splitlines()]
    asked = [r for r in records if r["scope"] == "game-theory/strict-dominance"
             and r["kind"] == "answer" and r["model"] == "scripted/yes"]
    wrong = [r for r in asked if r["score"] == 0.0]
    rows.nth(0).locator("td").nth(2).locator(".badge a.rec").click()
    dialog = page.locator("dialog#records[open]")
    dialog.wait_for()
    cards = dialog.locator(".record")
    # every answer the verdict rests on (n of them), those that decided it (scored 0) first
    assert cards.count() == len(asked) > len(wrong) > 0
    assert wrong[0]["prompt"][:60] in cards.nth(0).inner_text()
    for i in range(cards.count()):
        assert ("score 0" in cards.nth(i).locator(".grade").inner_text()) == (i < len(wrong))

    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=False)
    pixels = imread(shot)
    assert pixels.std() > 0.05 and len(np.unique(pixels.reshape(-1, pixels.shape[-1]),
                                                 axis=0)) > 50
    assert all(url.startswith(("file:", "data:")) for url in requests), requests
    page.close()


def test_a_large_group_opens_in_chunks_and_every_record_can_be_shown(browser, tmp_path):
    model = ScriptedModel("scripted/yes", reply=lambda p: "ANSWER: Yes")
    run = vs.certify(model, "game-theory/zero-sum/classify", questions=250, rephrase=0, rid=0.05,
                     **where(tmp_path)).run_dir
    page = browser.new_page()
    page.goto(vs.write_report(run).as_uri())
    page.get_by_role("link", name="250", exact=True).click()
    dialog = page.locator("dialog#records[open]")
    dialog.locator(".record").first.wait_for()
    assert dialog.locator(".record").count() == 200
    dialog.locator("button.more", has_text="50 left").click()
    assert dialog.locator(".record").count() == 250
    assert dialog.locator("button.more").count() == 0
    assert dialog.locator("h3").inner_text() == "game-theory/zero-sum/classify: every answer (250)"
    page.close()
