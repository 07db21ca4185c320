"""The echo-consistency section of `verstehen report`."""

from __future__ import annotations

from pathlib import Path

from toy_method.run import EchoResult
from verstehen.report.html import Page, num, table
from verstehen.results import load_result


def section(run: Path, page: Page) -> None:
    """One echo run: prompts asked twice, how many got the same reply both times."""
    result = load_result(EchoResult, run)
    body = table(["model", "prompts asked twice", "answered the same", "share"],
                 [[result.model, str(result.prompts), str(result.identical),
                   num(result.share)]])
    page.section(f"Echo consistency of {result.model}", body, note=f"run {run.name}")
