"""Reading the text files a user names (prompts, scores, data sets): UTF-8 (a byte-order mark
is accepted), and otherwise one line that names the file, what it was meant to be and what is
wrong with it (a `UserError`), never a `UnicodeDecodeError` traceback.

`read_text` reads a whole file; `open_text` streams the lines of a large one (a ConceptNet
dump) with the same checks, line by line; `read_pieces` streams a large file in pieces of
whole lines, faster than line by line (a prompts file of a million lines).
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO, cast

from verstehen.errors import UserError

UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
GZIP_MAGIC = b"\x1f\x8b"
HEAD = 8192  # bytes looked at for a UTF-16 or binary file, as file(1) does
PIECE = 1 << 20  # bytes read at a time by read_pieces
UTF16_MIN_NULS = 4  # NULs in every other byte it takes to call a file without a BOM UTF-16
NOT_UTF8 = "not a UTF-8 text file"
SAVE = "save it as UTF-8"
_SURROGATE = re.compile("[\ud800-\udfff]")


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
    return text_of(data, path, what)


def text_of(data: bytes, path: Path, what: str) -> str:
    """The bytes read from `path` as UTF-8 text (its BOM left out), checked as `read_text`
    checks a file: UserError naming what is wrong."""
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


def read_pieces(path: Path, what: str) -> Iterator[str]:
    """The text of the UTF-8 file `path` (its BOM left out) in pieces of about PIECE bytes,
    each of whole lines (ending at a newline, all but the last), checked as `read_text`
    checks a whole file: a problem is a UserError naming its line and byte offset."""
    path = Path(path)
    _check_file(path, what)
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise UserError(f"{what} {path}: cannot read ({_reason(exc)})") from None
    with handle:
        line, offset, carry, first = 1, 0, b"", True
        while True:
            try:
                data = handle.read(PIECE)
            except OSError as exc:
                raise UserError(f"{what} {path}: cannot read ({_reason(exc)})") from None
            if first:
                if problem := _head_problem(data[:HEAD]):
                    raise UserError(f"{what} {path}: {problem}")
                if data.startswith(UTF8_BOM):
                    data, offset = data[len(UTF8_BOM):], len(UTF8_BOM)
                first = False
            at_end = not data
            data = carry + data
            # cut after the last newline: a piece never splits a line (nor a UTF-8 sequence)
            cut = len(data) if at_end else data.rfind(b"\n") + 1
            piece, carry = data[:cut], data[cut:]
            if piece:
                problem = _binary_problem(piece, line, offset)
                try:
                    text = piece.decode("utf-8") if problem is None else ""
                except UnicodeDecodeError as exc:
                    problem = _decode_problem(piece, exc, line, offset)
                if problem is not None:
                    raise UserError(f"{what} {path}: {problem}")
                line += piece.count(b"\n")
                offset += len(piece)
                yield text
            if at_end:
                return


class _CheckedLines(io.TextIOBase):
    """UTF-8 lines of a binary stream; a line that is not UTF-8 text ends in a UserError that
    names its line and byte offset."""

    def __init__(self, raw: gzip.GzipFile | io.BufferedReader, path: Path, what: str) -> None:
        super().__init__()
        self._raw, self._path, self._what = raw, path, what
        self._line = 0
        self._offset = 0

    def readable(self) -> bool:
        """Always: the stream is read line by line."""
        return True

    # typeshed's own TextIOBase narrows IOBase.readline's bytes to str with this same ignore
    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
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
    """UTF-16 without a byte-order mark: mostly-ASCII text leaves a NUL in every other byte.
    It takes UTF16_MIN_NULS of them in that pattern: a short text file with one NUL in it is
    text with a NUL, not UTF-16."""
    sample = data[:200]
    return any(sample[i::2].count(0) >= max(UTF16_MIN_NULS, len(sample[i::2]) * 3 // 4)
               and 0 not in sample[1 - i::2] for i in (0, 1))


def surrogate_problem(text: str, *, escaped_bytes: bool = False) -> str | None:
    """What makes `text` not text, when it holds a lone surrogate: half of a pair (a JSON
    \\ud800 escape), or with `escaped_bytes` (text Python read with surrogateescape, as argv)
    a byte that was not UTF-8."""
    found = _SURROGATE.search(text)
    if found is None:
        return None
    code, at = ord(found.group()), found.start() + 1
    if escaped_bytes and 0xDC80 <= code <= 0xDCFF:
        return f"byte 0x{code - 0xDC00:02x} at character {at} is not UTF-8"
    return f"a lone surrogate \\u{code:04x} at character {at} (half of a pair, not a character)"


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
