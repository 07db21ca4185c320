"""Reading the text files a user names (prompts, scores, data sets): UTF-8 (a byte-order mark
is accepted), and otherwise one line that names the file, what it was meant to be and what is
wrong with it (a `UserError`), never a `UnicodeDecodeError` traceback.

`read_text` reads a whole file; `open_text` streams the lines of a large one (a ConceptNet
dump) with the same checks, line by line.
"""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path
from typing import IO, TextIO, cast

from verstehen.errors import UserError

UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
GZIP_MAGIC = b"\x1f\x8b"
HEAD = 8192  # bytes looked at for a UTF-16 or binary file, as file(1) does
NOT_UTF8 = "not a UTF-8 text file"
SAVE = "save it as UTF-8"


def read_text(path: Path, what: str, *, gzipped: bool = False) -> str:
    """The text of the UTF-8 file `path` (its BOM left out), which the user gave as `what`
    ("prompts file"); with `gzipped`, a gzip-compressed file is decompressed first."""
    path = Path(path)
    _check_file(path, what)
    try:
        data = path.read_bytes()
        if gzipped and data[:2] == GZIP_MAGIC:
            data = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise UserError(f"{what} {path}: cannot read ({_reason(exc)})") from None
    base = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    body = data[base:]
    problem = _head_problem(data) or _binary_problem(body, 1, base)
    if problem is None:
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError as exc:
            problem = _decode_problem(body, exc, 1, base)
    raise UserError(f"{what} {path}: {problem}")


def open_text(path: Path, what: str, *, gzipped: bool = False) -> TextIO:
    """A text stream of the lines of `path` (line ends kept, as with newline=""), checked as
    `read_text` checks a whole file; with `gzipped`, a gzip-compressed file is decompressed.
    Close it (or use it in a `with`)."""
    path = Path(path)
    _check_file(path, what)
    try:
        with path.open("rb") as head:
            opener = gzip.open if gzipped and head.read(2) == GZIP_MAGIC else open
        raw = opener(path, "rb")
        start = raw.peek(HEAD)[:HEAD]
    except (OSError, EOFError, zlib.error) as exc:
        raise UserError(f"{what} {path}: cannot read ({_reason(exc)})") from None
    problem = _head_problem(start)
    if problem is not None:
        raw.close()
        raise UserError(f"{what} {path}: {problem}")
    return cast(TextIO, _CheckedLines(raw, path, what))


class _CheckedLines(io.TextIOBase):
    """UTF-8 lines of a binary stream; a line that is not UTF-8 text ends in a UserError that
    names its line and byte offset."""

    def __init__(self, raw: IO[bytes], path: Path, what: str) -> None:
        super().__init__()
        self._raw, self._path, self._what = raw, path, what
        self._line = 0
        self._offset = 0

    def readable(self) -> bool:
        """Always: the stream is read line by line."""
        return True

    def readline(self, size: int | None = -1) -> str:
        """The next line with its line end, "" at the end (`size` is ignored: whole lines)."""
        try:
            data = self._raw.readline()
        except (OSError, EOFError, zlib.error) as exc:
            raise UserError(f"{self._what} {self._path}: cannot read ({_reason(exc)})") from None
        if not data:
            return ""
        self._line += 1
        if self._line == 1 and data.startswith(UTF8_BOM):
            data, self._offset = data[len(UTF8_BOM):], len(UTF8_BOM)
        problem = _binary_problem(data, self._line, self._offset)
        if problem is None:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                problem = _decode_problem(data, exc, self._line, self._offset)
        if problem is not None:
            self._fail(problem)
        self._offset += len(data)
        return text

    def close(self) -> None:
        """Close the file underneath."""
        self._raw.close()
        super().close()

    def _fail(self, problem: str) -> None:
        raise UserError(f"{self._what} {self._path}: {problem}")


def _check_file(path: Path, what: str) -> None:
    if path.is_dir():
        raise UserError(f"{what} {path}: is a folder, not a file: give the file itself")
    if not path.exists():
        raise UserError(f"{what} {path}: no such file")


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def _head_problem(head: bytes) -> str | None:
    """What the start of a file shows it to be, when that is UTF-16 or binary data."""
    if head.startswith(UTF16_BOMS) or _looks_utf16(head):
        return f"{NOT_UTF8}: it is UTF-16; {SAVE}"
    return _binary_problem(head[:HEAD], 1, 0)


def _looks_utf16(data: bytes) -> bool:
    """UTF-16 without a byte-order mark: mostly-ASCII text leaves a NUL in every other byte."""
    sample = data[:200]
    if len(sample) < 4:
        return False
    return any(sample[i::2].count(0) >= len(sample[i::2]) * 3 // 4 and 0 not in sample[1 - i::2]
               for i in (0, 1))


def _binary_problem(data: bytes, first_line: int, base: int) -> str | None:
    at = data.find(b"\x00")
    if at < 0:
        return None
    line = first_line + data.count(b"\n", 0, at)
    return f"{NOT_UTF8}: binary data (a NUL byte at line {line}, byte offset {base + at})"


def _decode_problem(data: bytes, exc: UnicodeDecodeError, first_line: int, base: int) -> str:
    line = first_line + data.count(b"\n", 0, exc.start)
    return (f"{NOT_UTF8}: byte 0x{data[exc.start]:02x} at line {line} (byte offset "
            f"{base + exc.start}) is not UTF-8 (latin-1?): {SAVE}")
