"""A run folder's records and results as two files, CSV (the standard library's writer, no
extra needed) or Parquet (pyarrow, the `frames` extra)."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verstehen.export.exported import ExportedRun
from verstehen.export.extras import need
from verstehen.export.frames import record_table, result_table

FORMATS = ("csv", "parquet")


def write_tables(run: ExportedRun, out_dir: Path, fmt: str, stem: str) -> list[Path]:
    """Write `STEM-records.FMT` and `STEM-results.FMT` into `out_dir`; their paths."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r} is not one of {FORMATS}")
    write = _write_csv if fmt == "csv" else _write_parquet
    paths = []
    for name, (columns, table) in (("records", record_table(run.rows)),
                                   ("results", result_table(run.results))):
        path = out_dir / f"{stem}-{name}.{fmt}"
        write(path, columns, table)
        paths.append(path)
    return paths


def _write_csv(path: Path, columns: Sequence[str], table: Sequence[Sequence[Any]]) -> None:
    """One header row, then a row each; None as an empty cell."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows([["" if v is None else v for v in row] for row in table])


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
    parquet.write_table(pa.Table.from_arrays(arrays, names=list(columns)), path)
