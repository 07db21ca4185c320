"""What a method declares so its run folders can leave verstehen: how a folder becomes rows (one
per question asked, `SampleRow`) and what its results are (`ResultGroup`s read off its
summary.json). Each method says so in its own `rows.py` as a `RunRows`; the exporter
(`verstehen export`, `records_frame`) names no method.

Nothing here imports pandas or inspect_ai: a method's rows.py imports this module only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verstehen.engine.store import RunStore

# a result's value as the results table and the Inspect log keep it (numbers become metrics)
ResultValue = float | int | str | bool | None


@dataclass(frozen=True)
class SampleRow:
    """One question asked in a run: its id (unique in the folder), the model asked, the scope
    or concept it is about (its key; None: none), the prompt, the reply (None: the call
    failed), the answer expected (None: none), its score (0 to 1, None: not graded), the grade
    in words (an outcome: "correct", "unparsed", ...) and the method's own fields (`metadata`,
    each method's rows.py names them)."""

    id: str
    model: str | None
    scope: str | None
    input: str
    reply: str | None
    expected: str | None
    score: float | None
    grade: str | None
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResultGroup:
    """One group of a run's results (a scope's verdict, a task's potemkin rate, ...): its name
    (unique in the run), the model it is about (None: it pools the run's models), the scope
    or concept (its key; None: none, or pooled), and its values by name (numbers, and words
    such as a decision)."""

    name: str
    model: str | None
    scope: str | None
    values: Mapping[str, ResultValue]

    def as_values(self) -> dict[str, ResultValue]:
        """Its model and scope, then its values, by name (as an Inspect log keeps them)."""
        return {"model": self.model, "scope": self.scope, **self.values}


@dataclass(frozen=True)
class LogPart:
    """One Inspect log a run folder becomes: its samples (`rows`), the result groups they give
    (the first number of the first group leads: the score `inspect view` lists), `name` (added
    to the folder's in the file name; "" for a folder's only log), `task` (the task's name
    after `verstehen/`; "" for the run kind's), `dataset` (what was asked, such as a scope),
    `tags` (a decision in words), `about` (a line saying what the log concludes) and
    `sample_metadata` (fields each of its samples shows first, such as the verdict it counts
    toward)."""

    rows: Sequence[SampleRow]
    results: Sequence[ResultGroup]
    name: str = ""
    task: str = ""
    dataset: str = ""
    tags: tuple[str, ...] = ()
    about: str = ""
    sample_metadata: Mapping[str, ResultValue] = field(default_factory=dict)


def whole_run(rows: Sequence[SampleRow], results: Sequence[ResultGroup]) -> list[LogPart]:
    """A run folder as one Inspect log: every row, every result group."""
    return [LogPart(rows, results)]


@dataclass(frozen=True)
class RunRows:
    """How one kind of run folder is exported: `rows(run_dir)` the questions asked, `results`
    the results of its typed result (what summary.json holds, as `load_result` reads it), and
    `logs` how rows and results make Inspect logs (one log of all, unless the kind says)."""

    rows: Callable[[Path], list[SampleRow]]
    results: Callable[[Any], list[ResultGroup]]
    logs: Callable[[Sequence[SampleRow], Sequence[ResultGroup]], list[LogPart]] = whole_run


def run_records(run_dir: Path) -> list[dict[str, Any]]:
    """The records of a run folder, in the order written (UserError: not a run folder)."""
    return list(RunStore.existing(Path(run_dir)).records())


def run_model(run_dir: Path) -> str | None:
    """The model a run of one model asked, as run.json names it (None: it names none)."""
    models = RunStore.existing(Path(run_dir)).info().get("models") or []
    named = models[0].get("model") if models and isinstance(models[0], dict) else None
    return named if isinstance(named, str) else None


def as_text(value: Any) -> str | None:
    """A record's value as text for a prompt, reply or expected answer: text as it is, None
    kept, any other value (a number, a list) as JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def flag_score(flag: bool | None) -> float | None:
    """A yes/no grade as a score: 1.0, 0.0, or None when there is none."""
    return None if flag is None else float(flag)
