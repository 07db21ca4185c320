"""The report section of a run kind that declares none: its result's `to_dict()` as a table of
names and values (a nested value flattened to `outer.inner`, a list shown by its length)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from verstehen.methods.contract import RunKind
from verstehen.report.html import Page, table
from verstehen.results import load_result

MAX_ROWS = 200  # a result with more values shows its first ones, saying so


def flattened(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """(name, value shown) for each scalar of a JSON value, nested names joined by ".", a list
    by its length."""
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield from flattened(inner, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        yield prefix, f"{len(value)} items"
    else:
        yield prefix, "" if value is None else (f"{value:.4g}" if isinstance(value, float)
                                                else str(value))


def default_section(kind: RunKind[Any], run: Path, page: Page) -> None:
    """Draw one run folder of `kind` as a table of its result's values."""
    result = load_result(kind.result, run)
    to_dict = getattr(result, "to_dict", None)
    values = list(flattened(to_dict() if callable(to_dict) else {}))
    shown = values[:MAX_ROWS]
    more = f"; {len(values) - MAX_ROWS} more values in summary.json" if len(values) > MAX_ROWS \
        else ""
    page.section(f"{kind.kind}: {kind.headline(result)}",
                 table(["value", ""], [[name, text] for name, text in shown]),
                 note=f"run {run.name}{more}")
