"""Text files a user names: UTF-8 or one line saying what is wrong, through every reader.

`read_text` and `open_text` on their own, then each command that reads a user's file given
a latin-1, a UTF-16, a binary file and a folder: exit 2, one line on stderr, no traceback.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from verstehen.errors import UserError
from verstehen.textfiles import open_text, read_pieces, read_text, surrogate_problem

from conftest import Cli, cli_error

TEXT = "relation\tstart\tend\nIsA\tcafé\tplace\n"
BAD = {
    "latin-1": (TEXT.encode("latin-1"), "byte 0xe9 at line 2"),
    "utf-16": (TEXT.encode("utf-16"), "it is UTF-16; save it as UTF-8"),
    "utf-16-no-bom": (TEXT.encode("utf-16-le"), "it is UTF-16"),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary data (a NUL byte at line 3"),
}


def streamed(path: Path, what: str, **kw: bool) -> str:
    """The whole text, read line by line through open_text."""
    with open_text(path, what, **kw) as stream:
        return "".join(stream)


def in_pieces(path: Path, what: str) -> str:
    """The whole text, read in pieces of whole lines through read_pieces (no gzip)."""
    return "".join(read_pieces(path, what))


READERS: list[Callable[..., str]] = [read_text, streamed, in_pieces]


@pytest.mark.parametrize("read", READERS)
def test_utf8_is_read_and_a_bom_left_out(tmp_path: Path, read: Callable[..., str]) -> None:
    path = tmp_path / "p.txt"
    path.write_bytes(b"\xef\xbb\xbf" + "one\r\ncafé\n".encode())
    assert read(path, "prompts file") == "one\r\ncafé\n"


@pytest.mark.parametrize("read", READERS)
@pytest.mark.parametrize("kind", BAD)
def test_not_utf8_is_one_line_naming_file_and_problem(tmp_path: Path, kind: str,
                                                      read: Callable[..., str]) -> None:
    data, needle = BAD[kind]
    path = tmp_path / "data.tsv"
    path.write_bytes(data)
    with pytest.raises(UserError) as info:
        read(path, "knowledge base")
    message = str(info.value)
    assert message.startswith(f"knowledge base {path}: not a UTF-8 text file")
    assert needle in message and "\n" not in message


@pytest.mark.parametrize("read", READERS)
def test_latin1_names_the_byte_its_line_and_offset(tmp_path: Path,
                                                   read: Callable[..., str]) -> None:
    path = tmp_path / "p.txt"
    path.write_bytes(b"\xef\xbb\xbfa\nb\ncaf\xe9\n")
    with pytest.raises(UserError, match=r"byte 0xe9 at line 3 \(byte offset 10\) is not UTF-8 "
                                        r"\(latin-1\?\): save it as UTF-8"):
        read(path, "prompts file")


@pytest.mark.parametrize("read", READERS)
def test_missing_file_and_folder(tmp_path: Path, read: Callable[..., str]) -> None:
    with pytest.raises(UserError, match=rf"^scores file {tmp_path}/none: no such file$"):
        read(tmp_path / "none", "scores file")
    with pytest.raises(UserError, match=rf"^scores file {tmp_path}: is a folder"):
        read(tmp_path, "scores file")


@pytest.mark.parametrize("read", [read_text, streamed])  # read_pieces reads plain files only
def test_gzip_only_when_asked(tmp_path: Path, read: Callable[..., str]) -> None:
    path = tmp_path / "kb.tsv.gz"
    path.write_bytes(gzip.compress(TEXT.encode()))
    assert read(path, "knowledge base", gzipped=True) == TEXT
    with pytest.raises(UserError, match="not a UTF-8 text file"):
        read(path, "prompts file")
    path.write_bytes(gzip.compress(TEXT.encode("latin-1")))
    with pytest.raises(UserError, match="byte 0xe9 at line 2"):
        read(path, "knowledge base", gzipped=True)


@pytest.mark.parametrize("read", READERS)
@pytest.mark.parametrize("data", [b"hi\x00\n", b"ab\x00\ncd\n", b"a\x00", b"one\ntwo\x00\n"])
def test_a_nul_byte_in_short_text_is_named_not_taken_for_utf16(
        tmp_path: Path, read: Callable[..., str], data: bytes) -> None:
    """Issue 29 item 12: "hi\\0\\n" has a NUL in one byte of two (h 0 | i \\n), which was
    taken for UTF-16; it is text with a NUL, named by its line and byte offset (both found by
    hand: the byte before the NUL, counted from 0)."""
    path = tmp_path / "prompts.txt"
    path.write_bytes(data)
    at = data.index(b"\x00")
    line = data.count(b"\n", 0, at) + 1
    with pytest.raises(UserError) as info:
        read(path, "prompts file")
    assert f"a NUL byte at line {line}, byte offset {at})" in str(info.value)
    assert "UTF-16" not in str(info.value)


@pytest.mark.parametrize("read", READERS)
def test_short_utf16_without_a_bom_is_still_utf16(tmp_path: Path,
                                                  read: Callable[..., str]) -> None:
    """Four code units of ASCII in UTF-16-LE: a NUL in every other byte, four times over."""
    path = tmp_path / "p.txt"
    path.write_bytes("abc\n".encode("utf-16-le"))
    with pytest.raises(UserError, match="it is UTF-16"):
        read(path, "prompts file")


def test_pieces_end_at_line_ends_and_keep_lines_whole(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """With 8-byte reads, a 12-byte line spans two reads and still comes whole; a bad byte in
    a later piece is named by its line and byte offset in the whole file (line 3, offset 23:
    the BOM, "ab\\n", "cafe-au-lait\\n" and "last" before it are 3 + 3 + 13 + 4 bytes)."""
    import verstehen.textfiles as textfiles

    monkeypatch.setattr(textfiles, "PIECE", 8)
    path = tmp_path / "p.txt"
    path.write_bytes(b"\xef\xbb\xbfab\ncafe-au-lait\nlast")
    pieces = list(read_pieces(path, "prompts file"))
    assert "".join(pieces) == "ab\ncafe-au-lait\nlast"
    assert all(p.endswith("\n") for p in pieces[:-1]) and pieces[-1] == "last"
    path.write_bytes(b"\xef\xbb\xbfab\ncafe-au-lait\nlast\xe9\n")
    with pytest.raises(UserError, match=r"byte 0xe9 at line 3 \(byte offset 23\)"):
        list(read_pieces(path, "prompts file"))


@pytest.mark.parametrize(("text", "escaped", "expected"), [
    ("plain café ✓", False, None),
    ("bad \ud800", False, "a lone surrogate \\ud800 at character 5"),
    ("caf\udce9", True, "byte 0xe9 at character 4 is not UTF-8"),
    ("caf\udce9", False, "a lone surrogate \\udce9 at character 4"),
])
def test_surrogate_problem_names_the_character(text: str, escaped: bool,
                                               expected: str | None) -> None:
    """A surrogateescape byte 0xe9 is U+DCE9 (0xDC00 + 0xe9, PEP 383)."""
    found = surrogate_problem(text, escaped_bytes=escaped)
    assert found == expected if expected is None else found.startswith(expected)


def test_a_broken_gzip_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "kb.tsv.gz"
    path.write_bytes(gzip.compress(TEXT.encode() * 50)[:40])
    with pytest.raises(UserError, match=f"knowledge base {path}: cannot read"):
        read_text(path, "knowledge base", gzipped=True)
    with pytest.raises(UserError, match=f"knowledge base {path}: cannot read"):
        streamed(path, "knowledge base", gzipped=True)


# ---------------------------------------------------------------- every reader, from the CLI

GOOD_QUESTION = {"id": "a", "answerKey": "A", "question": {"stem": "Where do dogs sleep?",
                 "choices": [{"label": "A", "text": "home"}, {"label": "B", "text": "away"}]}}


def _run_folder(path: Path, command: str) -> Path:
    path.mkdir()
    (path / "run.json").write_text(json.dumps({"command": command, "config": {}}))
    (path / "records.jsonl").touch()
    return path


def _batch(tmp: Path) -> tuple[Path, list[str]]:
    path = tmp / "prompts.txt"
    return path, ["batch", "openai/x", str(path), "--no-progress"]


def _scores(tmp: Path) -> tuple[Path, list[str]]:
    path = tmp / "scores.txt"
    return path, ["certify", "--scores", str(path)]


def _mcq(tmp: Path) -> tuple[Path, list[str]]:
    path = tmp / "questions.jsonl"
    return path, ["certify", "--scope", f"mcq:{path}", "--no-progress"]


def _potemkin_records(tmp: Path) -> tuple[Path, list[str]]:
    path = tmp / "records.csv"
    return path, ["potemkin", "score", str(path)]


def _benchmark(tmp: Path) -> tuple[Path, list[str]]:
    (tmp / "bench" / "BenchmarkDataset" / "define").mkdir(parents=True)
    path = tmp / "bench" / "BenchmarkDataset" / "define" / "definition_questions.json"
    return path, ["potemkin", "run", "--benchmark-dir", str(tmp / "bench"), "--no-progress"]


def _questions(tmp: Path) -> tuple[Path, list[str]]:
    kb = tmp / "kb.tsv"
    kb.write_text("relation\tstart\tend\nIsA\tdog\tanimal\n")
    path = tmp / "questions.jsonl"
    return path, ["consistency", "--questions", str(path), "--kb", str(kb), "--no-progress"]


def _knowledge(tmp: Path) -> tuple[Path, list[str]]:
    questions = tmp / "questions.jsonl"
    questions.write_text(json.dumps(GOOD_QUESTION) + "\n")
    path = tmp / "kb.tsv"
    return path, ["consistency", "--questions", str(questions), "--kb", str(path),
                  "--no-progress"]


def _labels(tmp: Path) -> tuple[Path, list[str]]:
    run = _run_folder(tmp / "run", "potemkin-run")
    path = tmp / "labels.csv"
    return path, ["annotate", "import", str(run), str(path)]


def _summary(tmp: Path) -> tuple[Path, list[str]]:
    run = _run_folder(tmp / "run", "certify")
    return run / "summary.json", ["report", str(run)]


def _run_json(tmp: Path) -> tuple[Path, list[str]]:
    run = _run_folder(tmp / "run", "batch")
    return run / "run.json", ["batch", "--resume", str(run), "--no-progress"]


COMMANDS = {"batch prompts": _batch, "certify --scores": _scores, "certify mcq:": _mcq,
            "potemkin score": _potemkin_records, "potemkin --benchmark-dir": _benchmark,
            "consistency --questions": _questions, "consistency --kb": _knowledge,
            "annotate import": _labels, "report summary.json": _summary,
            "batch --resume run.json": _run_json}


@pytest.mark.parametrize("kind", ["latin-1", "utf-16", "binary"])
@pytest.mark.parametrize("command", COMMANDS)
def test_every_reader_says_a_file_is_not_utf8(cli: Cli, tmp_path: Path, command: str,
                                              kind: str) -> None:
    path, args = COMMANDS[command](tmp_path)
    data, needle = BAD[kind]
    path.write_bytes(data)
    cli_error(cli, args, str(path), "not a UTF-8 text file", needle)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_reader_refuses_a_folder(cli: Cli, tmp_path: Path, command: str) -> None:
    path, args = COMMANDS[command](tmp_path)
    if path.exists():
        path.unlink()
    path.mkdir()
    cli_error(cli, args, path.name)
