"""Potemkin benchmark records: one graded "use" answer per row, read from CSV or JSON lines.

Each row names the model, domain, concept and task (classify, generate or edit), whether the
model passed the keystone (defined the concept correctly) and whether the answer was correct
(empty when it could not be parsed). Every problem raises `UserError` naming file:line.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from verstehen.domains.catalog import canonical_name
from verstehen.engine.store.csv_files import write_csv
from verstehen.errors import UserError
from verstehen.methods.potemkin.stats import OVERALL, TASKS, UseRecord
from verstehen.textfiles import read_text

RECORDS_FILE = "potemkin-records.csv"  # a run folder's records, what a folder stands for
FIELDS = ("model", "domain", "concept", "task", "keystone", "correct")
_NEEDS = "a records file needs model, domain, concept, task, keystone, correct"
_TRUE = {"1", "true", "yes"}
_FALSE = {"0", "false", "no"}


def read_records(path: Path) -> list[UseRecord]:
    """Read a records file: JSON lines for a .jsonl/.json suffix, else CSV with a header row."""
    path = Path(path)
    text = _read_text(path)
    jsonl = path.suffix.lower() in (".jsonl", ".json")
    records = list(_jsonl_records(path, text) if jsonl else _csv_records(path, text))
    if not records:
        kind = "one JSON object a line" if jsonl else "a header row and one row an answer"
        raise UserError(f"{path}: no records: {_NEEDS}, as {kind}")
    return records


def read_record_files(paths: Sequence[Path]) -> list[UseRecord]:
    """The records of several files; a run folder stands for its potemkin-records.csv."""
    records = []
    for path in map(Path, paths):
        if path.is_dir():
            file = path / RECORDS_FILE
            if file.is_file() and len(file.read_text(encoding="utf-8").splitlines()) < 2:
                if _asked_only_definitions(path):
                    raise UserError(
                        f"{path} asked only for definitions: no use answers to score (an "
                        "audit's Potemkin folder: its rates are of the audit's certification "
                        f"answers; `verstehen report {path.parent.parent}` shows them)")
                raise UserError(f"{path} has no graded use answers yet: grade its definitions "
                                f"(`verstehen annotate export {path}`, or rerun with --judge)")
            path = file
        records += read_records(path)
    return records


def _asked_only_definitions(run: Path) -> bool:
    """Whether a run folder's run.json says it asked only `define` (as an audit's does)."""
    try:
        info = json.loads(read_text(run / "run.json", "run.json"))
    except (UserError, json.JSONDecodeError):
        return False
    return isinstance(info, dict) and info.get("config", {}).get("tasks") == ["define"]


def write_records(path: Path, records: Iterable[UseRecord]) -> None:
    """Write records as CSV with the six columns; booleans as 1/0, an unparsed answer empty."""
    write_csv(Path(path), FIELDS, ([r.model, r.domain, r.concept, r.task, int(r.keystone),
                                    "" if r.correct is None else int(r.correct)]
                                   for r in records),
              advice="remove it, or make the folder writable", spreadsheet=False)


def _read_text(path: Path) -> str:
    if not path.exists():
        raise UserError(f"{path}: no such file: check the path to the records file")
    if path.is_dir():
        raise UserError(f"{path}: is a folder: give the records file itself")
    return read_text(path, "records file")


def _csv_records(path: Path, text: str) -> Iterator[UseRecord]:
    reader = csv.reader(io.StringIO(text, newline=""))
    header: list[str] | None = None
    try:
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if header is None:
                header = [cell.strip().lower() for cell in row]
                for name in FIELDS:
                    if name not in header:
                        raise UserError(f"{path}: no column {name!r} ({_NEEDS})")
                continue
            n = reader.line_num
            if len(row) > len(header):
                raise UserError(f"{path}:{n}: {len(row)} values but {len(header)} columns: "
                                "quote values that contain commas")
            short = [f for f in FIELDS if f != "correct" and header.index(f) >= len(row)]
            if short:
                raise UserError(f"{path}:{n}: {len(row)} values but {len(header)} columns "
                                f"(no {short[0]}): fill in the missing values")
            yield _record(dict(zip(header, row, strict=False)), path, n)
    except csv.Error as e:
        raise UserError(f"{path}:{reader.line_num}: not valid CSV ({e}): fix the row") from e


def _jsonl_records(path: Path, text: str) -> Iterator[UseRecord]:
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise UserError(f"{path}:{n}: invalid JSON ({e.msg}): fix the line or drop it") from e
        if not isinstance(row, dict):
            raise UserError(f"{path}:{n}: expected one JSON object a line, got "
                            f"{type(row).__name__}")
        yield _record(row, path, n)


def _record(row: Mapping[str, Any], path: Path, n: int) -> UseRecord:
    where = f"{path}:{n}"
    names = [_name(row, field, where) for field in ("model", "domain", "concept", "task")]
    model, domain, concept, task = names
    if model == OVERALL:
        raise UserError(f"{where}: model name {OVERALL!r} is reserved for the pooled row: "
                        "rename the model")
    task = task.lower()
    if task not in TASKS:
        raise UserError(f"{where}: task {names[3]!r} is not classify, generate or edit: "
                        "fix the row or drop it")
    if "keystone" not in row:
        raise UserError(f"{where}: no field 'keystone' ({_NEEDS})")
    keystone = _flag(row["keystone"])
    if keystone is None:
        raise UserError(f"{where}: keystone {row['keystone']!r} is not 1/0, true/false or "
                        "yes/no: fix the row")
    value = row.get("correct")
    correct = _flag(value)
    if correct is None and not _blank(value):
        raise UserError(f"{where}: correct {value!r} is not 1/0, true/false, yes/no or empty "
                        "(unparsed): fix the row")
    # a domain as verstehen names it now: a file written when poetry was literary reads as one
    return UseRecord(model, canonical_name(domain), concept, task, keystone, correct)


def _name(row: Mapping[str, Any], field: str, where: str) -> str:
    if field not in row or row[field] is None:
        raise UserError(f"{where}: no field {field!r} ({_NEEDS})")
    value = row[field]
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise UserError(f"{where}: {field} {value!r} must be a non-empty name: fix the row")
    return value.strip()


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _flag(value: Any) -> bool | None:
    """True/False for 1/0, true/false, yes/no (any case, or a JSON bool or number); else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return value == 1
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
    return None
