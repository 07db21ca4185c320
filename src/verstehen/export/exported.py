"""A run folder as it leaves verstehen: its kind, run.json, rows and the result groups of its
typed result (read with `load_result`), its seconds and usage, and the results as a data
frame."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from verstehen.engine.usage import ModelUsage
from verstehen.export.extras import need
from verstehen.export.frames import result_table
from verstehen.export.kinds import kind_of, rows_of, run_id_of
from verstehen.methods.contract import RunKind
from verstehen.results import RunOutcome, load_result
from verstehen.rows import ResultGroup, SampleRow
from verstehen.schema.folders import require_fit


@dataclass(frozen=True)
class ExportedRun:
    """A run folder as it leaves verstehen: its kind, run.json, rows and result groups, and
    its wall seconds and each model's calls and tokens as summary.json keeps them (None and
    empty when it kept none)."""

    run_dir: Path
    kind: RunKind[Any]
    info: dict[str, Any]
    rows: list[SampleRow]
    results: list[ResultGroup]
    seconds: float | None = None
    usage: Mapping[str, ModelUsage] = field(default_factory=dict)

    @property
    def run_id(self) -> str:
        """The run's id, as its run.json keeps it."""
        return run_id_of(self.run_dir, self.info)


def exported(run_dir: Path | str) -> ExportedRun:
    """A finished run folder's rows and results (UserError when it is not one)."""
    run_dir = Path(run_dir)
    kind, info = kind_of(run_dir)
    require_fit(run_dir)  # the published schema: a folder edited by hand is named, not exported
    declared = rows_of(kind)
    result = load_result(kind.result, run_dir)
    # the folder read is the run's: summary.json's `run` is data (a moved or edited folder
    # names another), and a method's result groups may read records through it
    outcome = replace(result, run_dir=run_dir) if isinstance(result, RunOutcome) else None
    result = outcome or result
    return ExportedRun(run_dir, kind, info, declared.rows(run_dir), declared.results(result),
                       seconds=outcome.seconds if outcome else None,
                       usage=(outcome.usage or {}) if outcome else {})


def results_frame(run_dir: Path | str) -> Any:  # a pandas.DataFrame (pandas ships no types)
    """A finished run folder's results as a pandas DataFrame, one row per result group."""
    pd = need("pandas", "frames", "a data frame")
    run = exported(run_dir)
    columns, table = result_table(run.run_id, run.results)
    return pd.DataFrame(table, columns=columns)
