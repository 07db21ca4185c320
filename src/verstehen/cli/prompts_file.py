"""Prompts files of `verstehen batch`: .txt (one prompt a line) or .jsonl (one {"prompt"} or
{"messages"} object a line, with an optional "id").

A file is read through once and checked (`scan_prompts`: text, every line a good prompt,
distinct ids; a prompt or id holding a lone surrogate is refused naming its line), then
streamed again for the calls (`PromptsFile.items`), in pieces of whole lines: a file of
millions of prompts is never held in memory.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from verstehen.errors import UserError
from verstehen.models.base import Message, user
from verstehen.textfiles import read_pieces, surrogate_problem

SUFFIXES = {".txt": "one prompt a line", ".jsonl": 'one {"prompt"} or {"messages"} object a line'}
HASH_PIECE = 1 << 20


@dataclass(frozen=True)
class PromptItem:
    """One prompt of a prompts file."""

    id: str
    messages: list[Message]


@dataclass(frozen=True)
class PromptsFile:
    """A prompts file read through once and found good: its prompts are streamed from it again
    (`items`), never held all at once; `kept_ids`, the id of every prompt, where the scan was
    asked to keep them (a resume checks records against them)."""

    path: Path
    count: int
    sha256: str
    kept_ids: frozenset[str] | None = None

    def items(self) -> Iterator[PromptItem]:
        """Its prompts, in order, read line by line."""
        return _items(self.path)

    def ids(self) -> frozenset[str]:
        """The id of every prompt (read from the file again unless the scan kept them)."""
        if self.kept_ids is not None:
            return self.kept_ids
        return frozenset(item.id for item in self.items())


def scan_prompts(path: Path, *, keep_ids: bool = False) -> PromptsFile:
    """Check every line of a .txt (one prompt a line) or .jsonl ({"id", "prompt" or
    "messages"}) prompts file and count its prompts; the ids of a .txt (its line numbers) are
    kept only when asked (`keep_ids`)."""
    seen: set[str] = set()
    if _suffix(path) == ".txt":  # every non-blank line of text is a prompt
        if keep_ids:
            seen.update(str(n) for n, _ in _lines(path))
            count = len(seen)
        else:
            count = sum(1 for _ in _lines(path))
    else:
        for n, line in _lines(path):
            given = _jsonl_item(path, n, line).id
            if given in seen:
                _repeated_id(path, given)
            seen.add(given)
        count = len(seen)
    if not count:
        raise UserError(f"prompts file {path} holds no prompts: write one a line")
    return PromptsFile(path, count, prompts_sha256(path), frozenset(seen) if keep_ids else None)


def load_prompts(path: Path) -> list[PromptItem]:
    """Every prompt of a prompts file, checked as `scan_prompts` checks them (a small file's)."""
    return list(scan_prompts(path).items())


def _suffix(path: Path) -> str:
    """.txt or .jsonl (UserError naming both for any other file)."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        kinds = "; ".join(f"{name} ({what})" for name, what in SUFFIXES.items())
        raise UserError(f"prompts file {path}: a {suffix or 'suffix-less'} file is not a "
                        f"prompts file: give {kinds}")
    return suffix


def _items(path: Path) -> Iterator[PromptItem]:
    suffix = _suffix(path)
    for n, line in _lines(path):
        yield PromptItem(str(n), user(line)) if suffix == ".txt" else _jsonl_item(path, n, line)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line, without its line end. Lines end at \\n
    only: str.splitlines would also split a prompt at \\f or U+2028."""
    n = 0
    for piece in read_pieces(path, "prompts file"):
        lines = piece.split("\n")
        if piece.endswith("\n"):
            lines.pop()  # the empty text after the last line end
        for line in lines:
            n += 1
            if line.strip():
                yield n, line.removesuffix("\r")


def _repeated_id(path: Path, given: str) -> NoReturn:
    """Stop at the second line with id `given`, naming the first (looked for only now)."""
    lines = [n for n, line in _lines(path) if _jsonl_item(path, n, line).id == given]
    raise UserError(f"{path}:{lines[1]}: id {given!r} is the id of line {lines[0]} too; give "
                    "every prompt a distinct id")


def _jsonl_item(path: Path, n: int, line: str) -> PromptItem:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}:{n}: not JSON ({exc.msg}); write one object a line") from None
    if not isinstance(row, dict) or not ("prompt" in row or "messages" in row):
        raise UserError(f'{path}:{n}: needs a "prompt" string or a "messages" list')
    if "messages" in row:
        messages = row["messages"]
        if not isinstance(messages, list) or not messages or not all(
            isinstance(m, dict) and m.get("role") in {"system", "user", "assistant"}
            and isinstance(m.get("content"), str) for m in messages
        ):
            raise UserError(f"{path}:{n}: messages must be a non-empty list "
                            "[{role, content}, ...]")
        texts = [("message", m["content"]) for m in messages]
    elif isinstance(row["prompt"], str) and row["prompt"].strip():
        messages = user(row["prompt"])
        texts = [("prompt", row["prompt"])]
    else:
        raise UserError(f'{path}:{n}: "prompt" must be a non-empty string, not '
                        f"{json.dumps(row['prompt'])[:40]}")
    given = row.get("id", n)
    if not isinstance(given, str | int) or isinstance(given, bool) or given == "":
        raise UserError(f'{path}:{n}: "id" must be a non-empty string or an integer, not '
                        f"{json.dumps(given)[:40]}")
    for what, text in [*texts, ("id", str(given))]:
        if problem := surrogate_problem(text):
            raise UserError(f"{path}:{n}: the {what} is not text: {problem}; write the "
                            "character itself, not a \\u escape of half of it")
    return PromptItem(str(given), messages)


def prompts_sha256(path: Path) -> str:
    """The SHA-256 of a prompts file's bytes, as run.json keeps it (read in pieces)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while piece := handle.read(HASH_PIECE):
            digest.update(piece)
    return digest.hexdigest()
