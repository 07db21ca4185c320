"""Multiple-choice question files: CSQA/ARC jsonl, MMLU csv (file or folder), MMLU jsonl(.gz),
`hf:DATASET[:CONFIG][@REVISION][#SPLIT]`, a Hugging Face dataset in the local cache
(`verstehen.data.hf`), and `hf:PATH[#SPLIT]`, one saved on disk (`verstehen.data.hf_local`);
rows of all are read by the same readers, `verstehen.data.items`.

Every loader returns `MCQItem`s with letter labels (A, B, ...) and raises `UserError` naming
file:line (or dataset and row) and the problem for a malformed row.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

from verstehen.data.hf import load_hf_mcq, pin_hf_spec
from verstehen.data.hf_local import is_local_spec, load_local_mcq, local_files, pin_local_spec
from verstehen.data.items import MCQItem, MCQSource, csqa_item, mmlu_item
from verstehen.engine.store.inputs import Reads
from verstehen.errors import UserError
from verstehen.textfiles import read_text

__all__ = ["MCQ_SOURCE", "MCQItem", "MCQSource", "is_hf_spec", "load_mcq", "load_mmlu_csv",
           "mcq_files", "pinned_source", "read_mcq"]


def is_hf_spec(source: str | Path) -> bool:
    """Whether `source` names a Hugging Face dataset (`hf:...`) rather than a file."""
    return str(source).startswith("hf:")


def read_mcq(source: str | Path) -> MCQSource:
    """The questions of a file (as `load_mcq` reads it) or of an `hf:` spec, with the source
    pinned (an `hf:` spec to the config, revision and split actually read, or a folder's to
    its content hash and split)."""
    if is_local_spec(source):
        return load_local_mcq(str(source))
    if is_hf_spec(source):
        return load_hf_mcq(str(source))
    return MCQSource(load_mcq(source), str(source))


def pinned_source(source: str | Path) -> str:
    """The source as run.json should record it: a path as given, an `hf:` spec pinned to the
    config, revision and split that `read_mcq` reads (from the cache, without loading rows), a
    dataset folder's `hf:` spec to its content hash and split."""
    if is_local_spec(source):
        return pin_local_spec(str(source))
    if is_hf_spec(source):
        return pin_hf_spec(str(source))
    return str(source)


def mcq_files(source: str) -> tuple[Path, list[Path]] | None:
    """The path a questions source names and the files `load_mcq` reads of it (a folder's
    MMLU csv files); a dataset folder's `hf:PATH` its files; None for an `hf:` spec of the
    cache, which names no file (run.json pins its revision)."""
    if is_local_spec(source):
        return local_files(source)
    if is_hf_spec(source):
        return None
    path = Path(source)
    return path, (_folder_files(path) if path.is_dir() else [path])


# a questions source as an input of a run (run.json records the content hash of its files)
MCQ_SOURCE = Reads("questions", mcq_files)


def _folder_files(folder: Path) -> list[Path]:
    """The MMLU csv files of a folder that `load_mcq` reads: *_test.csv, else every *.csv."""
    return sorted(folder.glob("*_test.csv")) or sorted(folder.glob("*.csv"))


def load_mcq(path: str | Path) -> list[MCQItem]:
    """Load a CSQA/ARC jsonl, MMLU csv, folder of MMLU csvs, or MMLU jsonl(.gz) file, or the
    questions of an `hf:` spec (see `read_mcq`)."""
    if is_hf_spec(path):
        return read_mcq(path).items
    p = Path(path)
    if p.is_dir():
        files = _folder_files(p)
        if not files:
            raise UserError(f"{p}: no *.csv files in this folder (expected MMLU csv files)")
        items = [item for f in files for item in load_mmlu_csv(f)]
    elif not p.exists():
        raise UserError(f"{p}: no such file or folder")
    elif p.name.lower().endswith(".csv"):
        items = load_mmlu_csv(p)
    else:
        items = _load_jsonl(p)
    return _check_unique(items, p)


def _check_unique(items: list[MCQItem], path: Path) -> list[MCQItem]:
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise UserError(f"{path}: question id {item.id!r} appears twice")
        seen.add(item.id)
    return items


# ---------------------------------------------------------------- jsonl


def _read_text(path: Path) -> str:
    """The file's text; gzip-compressed files (by their magic bytes) are decompressed."""
    return read_text(path, "questions file", gzipped=True)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of the non-blank lines."""
    for n, line in enumerate(_read_text(path).split("\n"), 1):
        if line.strip():
            yield n, line


def _load_jsonl(path: Path) -> list[MCQItem]:
    items: list[MCQItem] = []
    kind = None
    for n, line in _lines(path):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            if kind is None:
                raise UserError(f"{path}:{n}: unknown format: expected CSQA/ARC or MMLU JSON "
                                "lines, or an MMLU .csv file") from e
            raise UserError(f"{path}:{n}: invalid JSON: {e.msg}") from e
        if kind is None:
            kind = _kind(row, path, n)
        if not isinstance(row, dict):
            raise UserError(f"{path}:{n}: expected a JSON object, got {type(row).__name__}")
        where = f"{path}:{n}"
        items.append(
            csqa_item(row, where, f"{path.name} has no answer key; use a file with answers")
            if kind == "csqa" else
            mmlu_item(row, where, f"{path.name.split('.')[0]}:{len(items)}"))
    if kind is None:
        raise UserError(f"{path}: empty file")
    return items


def _kind(row: object, path: Path, n: int) -> str:
    if isinstance(row, dict) and isinstance(row.get("question"), dict):
        return "csqa"
    if isinstance(row, dict) and isinstance(row.get("question"), str) and "choices" in row:
        return "mmlu"
    raise UserError(f"{path}:{n}: unknown format: expected CSQA/ARC rows "
                    '{"id", "question": {"stem", "choices"}, "answerKey"} or MMLU rows '
                    '{"question", "choices", "answer"}')


# ---------------------------------------------------------------- csv


def _subject(path: Path) -> str:
    stem = path.stem
    for suffix in ("_test", "_dev", "_val"):
        stem = stem.removesuffix(suffix)
    return stem


def load_mmlu_csv(path: Path) -> list[MCQItem]:
    """An MMLU csv without header: question, A, B, C, D, answer letter; subject from the name."""
    items: list[MCQItem] = []
    subject = _subject(path)
    reader = csv.reader(io.StringIO(_read_text(path), newline=""))
    start = 1
    try:
        for row in reader:
            line, start = start, reader.line_num + 1  # a quoted field can span lines
            if any(cell.strip() for cell in row):
                items.append(_csv_item(row, path, line, subject, len(items)))
    except csv.Error as e:
        raise UserError(f"{path}:{reader.line_num}: bad csv: {e}") from e
    if not items:
        raise UserError(f"{path}: empty file")
    return items


def _csv_item(row: list[str], path: Path, line: int, subject: str, index: int) -> MCQItem:
    where = f"{path}:{line}"
    if len(row) != 6:
        raise UserError(f"{where}: expected 6 fields (question, A, B, C, D, answer), "
                        f"got {len(row)}")
    if not row[0].strip():
        raise UserError(f"{where}: empty question")
    answer = row[5].strip().upper()
    if answer not in ("A", "B", "C", "D"):
        raise UserError(f"{where}: answer {row[5]!r} is not one of A, B, C, D")
    return MCQItem(f"{path.stem}:{index}", row[0], list("ABCD"), row[1:5], answer, subject)
