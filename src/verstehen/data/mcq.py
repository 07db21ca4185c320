"""Multiple-choice question files: CSQA/ARC jsonl, MMLU csv (file or folder), MMLU jsonl(.gz).

Every loader returns `MCQItem`s with letter labels (A, B, ...) and raises `UserError` naming
file:line and the problem for a malformed row.
"""

from __future__ import annotations

import csv
import io
import json
import string
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

from verstehen.errors import UserError
from verstehen.textfiles import read_text

LETTERS = string.ascii_uppercase


@dataclass(frozen=True)
class MCQItem:
    """One multiple-choice question: its stem, labelled choices and the correct label."""

    id: str
    stem: str
    labels: list[str]
    choices: list[str]
    answer: str
    subject: str | None = None


def load_mcq(path: str | Path) -> list[MCQItem]:
    """Load a CSQA/ARC jsonl, MMLU csv, folder of MMLU csvs, or MMLU jsonl(.gz) file."""
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("*_test.csv")) or sorted(p.glob("*.csv"))
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
        items.append(_csqa_item(row, path, n) if kind == "csqa" else
                     _mmlu_json_item(row, path, n, len(items)))
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


def _letter(label: str, numeric: bool) -> str:
    return LETTERS[int(label) - 1] if numeric else label.upper()


def _csqa_item(row: dict[str, object], path: Path, n: int) -> MCQItem:
    """A CSQA or ARC row; ARC's numeric labels 1..n become A.. (the answer key with them)."""
    where = f"{path}:{n}"
    q = row.get("question")
    if not isinstance(q, dict) or not _text(q.get("stem")):
        raise UserError(f"{where}: missing question.stem")
    raw = q.get("choices")
    if not isinstance(raw, list) or len(raw) < 2 or not all(
        isinstance(c, dict) and _text(c.get("label")) and isinstance(c.get("text"), str)
        for c in raw
    ):
        raise UserError(f"{where}: question.choices must be a list of 2 or more "
                        '{"label", "text"} objects')
    labels = [c["label"].strip() for c in raw]
    numeric = all(lab.isdigit() for lab in labels)
    if numeric and not all(1 <= int(lab) <= len(LETTERS) for lab in labels):
        raise UserError(f"{where}: numeric labels must be 1 to {len(LETTERS)}: {labels}")
    if not numeric and not all(len(lab) == 1 and lab.isalpha() for lab in labels):
        raise UserError(f"{where}: labels must be all letters or all numbers: {labels}")
    letters = [_letter(lab, numeric) for lab in labels]
    if len(set(letters)) != len(letters):
        raise UserError(f"{where}: repeated choice labels: {labels}")
    key = row.get("answerKey")
    if key is None or key == "":
        raise UserError(f"{where}: {path.name} has no answer key; use a file with answers")
    key = str(key).strip()
    if key not in labels and key.upper() not in letters:
        raise UserError(f"{where}: answerKey {key!r} is not one of the labels {labels}")
    answer = letters[labels.index(key)] if key in labels else key.upper()
    ident = row.get("id")
    if not isinstance(ident, (str, int)) or ident == "":
        raise UserError(f"{where}: missing id")
    return MCQItem(str(ident), q["stem"], letters, [c["text"] for c in raw], answer)


def _mmlu_json_item(row: dict[str, object], path: Path, n: int, index: int) -> MCQItem:
    """A normalized MMLU row {"subject", "split", "idx", "question", "choices", "answer"}."""
    where = f"{path}:{n}"
    question = row.get("question")
    if not _text(question):
        raise UserError(f"{where}: missing question")
    choices = row.get("choices")
    if not isinstance(choices, list) or len(choices) < 2 or len(choices) > len(LETTERS) or \
            not all(isinstance(c, str) for c in choices):
        raise UserError(f"{where}: choices must be a list of 2 to 26 strings")
    labels = list(LETTERS[: len(choices)])
    answer = row.get("answer")
    if isinstance(answer, int) and not isinstance(answer, bool) and 0 <= answer < len(labels):
        answer = labels[answer]
    if not isinstance(answer, str) or answer.strip().upper() not in labels:
        raise UserError(f"{where}: answer {answer!r} is not one of {', '.join(labels)}")
    named = row.get("subject")
    subject = named if isinstance(named, str) else None
    if subject and isinstance(row.get("split"), str) and isinstance(row.get("idx"), int):
        ident = f"{subject}_{row['split']}:{row['idx']}"  # the id of the same row read from csv
    else:
        ident = str(row.get("id", f"{path.name.split('.')[0]}:{index}"))
    return MCQItem(ident, question, labels, choices, answer.strip().upper(), subject)


def _text(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value.strip())


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
