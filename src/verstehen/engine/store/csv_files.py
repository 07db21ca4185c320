"""The CSV files verstehen writes, whole or not at all (through `safe_files.writing_text`), and
the cells of those meant for spreadsheets (`export --format csv`, `annotate export`'s
to-label.csv), where a reply such as `=HYPERLINK(...)` must stay text.

A cell is a number when its value is an int or a float (a column of numbers in the table), or
text that reads whole as a decimal number ("-12", "+0.5", "1e-3", as an arithmetic target is
stored): those are written as they are, so a negative number stays a number. Any other text
starting with `=`, `+`, `-`, `@`, a tab or a carriage return a spreadsheet would run as a
formula: it gets a leading `'` (OWASP's advice for CSV injection), and so does text starting
with `'` itself, so that `from_spreadsheet` takes back exactly the `'` that was added.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from verstehen.engine.store.safe_files import writing_text

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_ESCAPED = (*FORMULA_STARTS, "'")  # what a `'` is added before
_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def spreadsheet_cell(value: object) -> object:
    """`value` as a spreadsheet should get it: text it would run as a formula (or text
    starting with `'`) behind one more `'`; numbers, and any other value, as they are."""
    if isinstance(value, str) and value.startswith(_ESCAPED) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def from_spreadsheet(text: str) -> str:
    """A cell of a CSV written with `spreadsheet_cell`, as it was before: the `'` it added
    removed (a cell it left alone is returned unchanged)."""
    rest = text[1:]
    if text.startswith("'") and rest.startswith(_ESCAPED) and not _NUMBER.fullmatch(rest):
        return rest
    return text


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]], *,
              advice: str, spreadsheet: bool) -> None:
    """Write a header row and `rows` (None as an empty cell) to `path` whole, or leave it as
    it was; with `spreadsheet`, each cell through `spreadsheet_cell`. `advice` ends the one
    line of a refusal or a disk error (what the user should do)."""
    with writing_text(path, advice) as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for row in rows:
            writer.writerow([spreadsheet_cell(v) for v in row] if spreadsheet else row)
