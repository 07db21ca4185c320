"""Run folders of every run kind, made once per test session by each kind's own example
(`RunKind.example`, scripted models, no embedded model): the exporter's, the schema's and the
viewer's tests read them. A kind declaring no example has none here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verstehen.methods import registry
from verstehen.methods.certification.example import QUESTIONS, REPHRASED

__all__ = ["OTHER", "QUESTIONS", "REPHRASED", "made_runs", "other_runs", "records", "summary"]
_MADE: dict[str, Path] = {}
_OTHER: dict[str, Path] = {}
OTHER = "-other"  # what the second set's model names end with


def made_runs(factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One finished run folder of each kind, by run kind (made at the first call)."""
    if not _MADE:
        _MADE.update(_make(factory.mktemp("export-runs")))
    return _MADE


def other_runs(factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A second finished run folder of each kind, asked the same questions (so the same ids
    within each folder) of models whose names end with OTHER."""
    if not _OTHER:
        _OTHER.update(_make(factory.mktemp("export-other-runs"), OTHER))
    return _OTHER


def _make(base: Path, tag: str = "") -> dict[str, Path]:
    """One run folder of each kind that has an example; every model's name ends with `tag`."""
    made = {}
    for kind in registry.run_kinds():
        run = registry.example_run(kind, base / "runs", base / "calls.sqlite", tag)
        if run is not None:
            made[kind.kind] = run
    return made


def records(run: Path) -> list[dict]:
    """The records of a run folder, read here (not through the exporter)."""
    return [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines() if x]


def summary(run: Path) -> dict:
    """summary.json of a run folder."""
    return json.loads((run / "summary.json").read_text())
