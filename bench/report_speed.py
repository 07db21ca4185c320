"""Report speed: `verstehen report` on a run of 10,000 records, against 5 seconds and 5 MB.

Makes the run with a scripted model through the real pipeline (certification of a game-theory
concept, 10,000 questions, every answer graded by the checker), then times writing the report,
measures its size, and, when Chromium and playwright are there, times opening it and opening
the panel of all 10,000 answers. Prints the figures and their ratios to the targets.

Run: python bench/report_speed.py [--records 10000]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import verstehen as vs
from verstehen.testing.scripted import ScriptedModel

SECONDS_TARGET, MB_TARGET = 5.0, 5.0


def open_in_browser(html: Path) -> tuple[float, float] | None:
    """Seconds to load the page, and to open the panel of every answer; None without a
    browser."""
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if chromium is None:
        return None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        started = time.perf_counter()
        page.goto(html.as_uri())
        loaded = time.perf_counter() - started
        started = time.perf_counter()
        page.locator("td a.rec").nth(1).click()  # the n of the first scope: every answer
        page.locator("dialog#records[open] .record").last.wait_for()  # the first 200 drawn
        opened = time.perf_counter() - started
        browser.close()
    return loaded, opened


def main() -> int:
    """Make the run, time the report, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model = ScriptedModel("scripted/yes", reply=lambda prompt: "ANSWER: Yes, it is.")
        run = vs.certify(model, "game-theory/pure-nash", questions=opts.records, rephrase=0,
                         rid=0.05,  # reachable from 59 questions (the smoke run asks 100)
                         runs_dir=Path(tmp, "runs"), cache=Path(tmp, "calls.sqlite")).run_dir
        started = time.perf_counter()
        html = vs.write_report(run, Path(tmp, "report.html"))
        seconds = time.perf_counter() - started
        megabytes = html.stat().st_size / 1e6
        browser = open_in_browser(html)
    print(f"run of {opts.records} records (certification, game-theory/pure-nash)")
    print(f"{'figure':<36} {'value':>8} {'target':>7}  ratio")
    for name, value, target in (("report written (s)", seconds, SECONDS_TARGET),
                                ("report size (MB)", megabytes, MB_TARGET)):
        print(f"{name:<36} {value:>8.2f} {target:>7.1f}  {value / target:.3f} "
              f"{'PASS' if value <= target else 'MISS'}")
    if browser is None:
        print("no Chromium or playwright: the page was not opened")
    else:
        print(f"{'page loaded in Chromium (s)':<36} {browser[0]:>8.2f}")
        print(f"{'panel of every answer opened (s)':<36} {browser[1]:>8.2f}  (first 200 drawn)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
