"""A run folder as it leaves verstehen: its kind, run.json, rows and the result groups of its
typed result (read with `load_result`), and the results as a data frame."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verstehen.export.extras import need
from verstehen.export.frames import result_table
from verstehen.export.kinds import kind_of, rows_of
from verstehen.export.sample import ResultGroup, SampleRow
from verstehen.methods.contract import RunKind
from verstehen.results import load_result
from verstehen.schema.folders import require_fit


@dataclass(frozen=True)
class ExportedRun:
    """A run folder as it leaves verstehen: its kind, run.json, rows and result groups."""

    run_dir: Path
    kind: RunKind[Any]
    info: dict[str, Any]
    rows: list[SampleRow]
    results: list[ResultGroup]


def exported(run_dir: Path | str) -> ExportedRun:
    """A finished run folder's rows and results (UserError when it is not one)."""
    run_dir = Path(run_dir)
    kind, info = kind_of(run_dir)
    require_fit(run_dir)  # the published schema: a folder edited by hand is named, not exported
    declared = rows_of(kind)
    result = load_result(kind.result, run_dir)
    return ExportedRun(run_dir, kind, info, declared.rows(run_dir), declared.results(result))


def results_frame(run_dir: Path | str) -> Any:  # a pandas.DataFrame (pandas ships no types)
    """A finished run folder's results as a pandas DataFrame, one row per result group."""
    pd = need("pandas", "frames", "a data frame")
    columns, table = result_table(exported(run_dir).results)
    return pd.DataFrame(table, columns=columns)
