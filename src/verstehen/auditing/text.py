"""The audit for the terminal: per model, one line per target across the lenses, then the
answers that decided each verdict (the text is `AuditResult.text()`)."""

from __future__ import annotations

from verstehen.auditing.results import AuditResult


def show(result: AuditResult) -> None:
    """Print each model's table, the deciding answers, and where the report is."""
    print(result.text())
