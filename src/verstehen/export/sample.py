"""What a method declares so its run folders can leave verstehen: how a folder becomes rows (one
per question asked, `SampleRow`) and what its results are (`ResultGroup`s read off its
summary.json). Each method says so in its own `rows.py` as a `RunRows`; the exporter
(`verstehen export`, `records_frame`) names no method.

Nothing here imports pandas or inspect_ai: a method's rows.py imports this module only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verstehen.engine.store import RunStore

# a result's value as the results table and the Inspect log keep it (numbers become metrics)
ResultValue = float | int | str | bool | None


@dataclass(frozen=True)
class SampleRow:
    """One question asked in a run: its id (unique in the folder), the model asked, the prompt,
    the reply (None: the call failed), the answer wanted (None: none), its score (0 to 1, None:
    not graded), the grade in words (an outcome: "correct", "unparsed", ...) and the method's
    own fields (`metadata`, each method's rows.py names them)."""

    id: str
    model: str | None
    input: str
    reply: str | None
    target: str | None
    score: float | None
    grade: str | None
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResultGroup:
    """One group of a run's results (a scope's verdict, a task's potemkin rate, ...): its name
    and its values by name (numbers, and words such as a decision)."""

    name: str
    values: Mapping[str, ResultValue]


@dataclass(frozen=True)
class RunRows:
    """How one kind of run folder is exported: `rows(run_dir)` the questions asked, `results`
    the results of its typed result (what summary.json holds, as `load_result` reads it)."""

    rows: Callable[[Path], list[SampleRow]]
    results: Callable[[Any], list[ResultGroup]]


def run_records(run_dir: Path) -> list[dict[str, Any]]:
    """The records of a run folder, in the order written (UserError: not a run folder)."""
    return list(RunStore.existing(Path(run_dir)).records())


def as_text(value: Any) -> str | None:
    """A record's value as text for a prompt, reply or target: text as it is, None kept, any
    other value (a number, a list) as JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def flag_score(flag: bool | None) -> float | None:
    """A yes/no grade as a score: 1.0, 0.0, or None when there is none."""
    return None if flag is None else float(flag)


def groups_of(prefix: str, values: Iterable[tuple[str, Mapping[str, ResultValue]]]
              ) -> list[ResultGroup]:
    """Result groups named `prefix/name` (just `name` when the prefix is empty)."""
    return [ResultGroup(f"{prefix}/{name}" if prefix else name, dict(vals))
            for name, vals in values]
