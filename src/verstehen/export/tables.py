"""A run folder's records and results as two files, CSV (the standard library's writer, no
extra needed; its cells neutralised for spreadsheets, see `engine.store.csv_files`) or Parquet
(pyarrow, the `frames` extra); each written whole or not at all through `safe_files`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verstehen.engine.store.csv_files import write_csv
from verstehen.engine.store.safe_files import writing
from verstehen.export.exported import ExportedRun
from verstehen.export.extras import need
from verstehen.export.frames import record_table, result_table

FORMATS = ("csv", "parquet")
ADVICE = "remove it, or pass --out with another folder"


def write_tables(run: ExportedRun, out_dir: Path, fmt: str, stem: str) -> list[Path]:
    """Write `STEM-records.FMT` and `STEM-results.FMT` into `out_dir`; their paths."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r} is not one of {FORMATS}")
    write = _write_csv if fmt == "csv" else _write_parquet
    paths = []
    for name, (columns, table) in (("records", record_table(run.run_id, run.rows)),
                                   ("results", result_table(run.run_id, run.results))):
        path = out_dir / f"{stem}-{name}.{fmt}"
        write(path, columns, table)
        paths.append(path)
    return paths


def _write_csv(path: Path, columns: Sequence[str], table: Sequence[Sequence[Any]]) -> None:
    """One header row, then a row each; None as an empty cell; text a spreadsheet would run
    as a formula behind a `'`."""
    write_csv(path, columns, table, advice=ADVICE, spreadsheet=True)


def _write_parquet(path: Path, columns: Sequence[str], table: Sequence[Sequence[Any]]) -> None:
    """One Parquet file; a column whose values mix kinds (a number and a word) is written as
    text."""
    pa = need("pyarrow", "frames", "--format parquet")
    parquet = need("pyarrow.parquet", "frames", "--format parquet")
    arrays = []
    for i, _ in enumerate(columns):
        values = [row[i] for row in table]
        try:
            arrays.append(pa.array(values))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arrays.append(pa.array([None if v is None else str(v) for v in values]))
    with writing(path, ADVICE) as handle:
        parquet.write_table(pa.Table.from_arrays(arrays, names=list(columns)), handle)
