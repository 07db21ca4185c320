"""Input files on a command line, and what a resume may read of those its run.json names.

A flag whose value names input files is declared so (`option(reads=...)`, or `declare_reads`
for a flag written by hand). When a run starts, run.json records the content hash of each
(`engine/store/inputs.py`). A run folder is data, so a path in its run.json is data too: a
resume reads an input file only when the command typed now names it again, or when it holds
what it held when the run started (the hash decides: a planted path to a file the planter
cannot read has another hash). A run.json without a hash for an input (an older run) is
refused for it, in one line giving the command to type. Inside the run folder no link is
followed: a path there with a symbolic link on it is refused unless typed again. Outside it the
hash decides alone (the user's own paths may run through links).

An input typed again must repeat the run's value; when its content changed since the run
started, the resume is refused like any other change of config: a changed input starts a new
run. Error lines never quote a file the user did not name now: `withheld` replaces a line that
names one with the file and line only (`UNNAMED` holds them while a command runs).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from verstehen.engine.store import RunStore
from verstehen.engine.store.inputs import InputFile, Reads, link_inside, recorded_hashes
from verstehen.errors import UserError

READS = "verstehen_reads"  # the attribute of an argparse action that names input files


@dataclass(frozen=True)
class Withheld:
    """An input read on a run folder's word: the forms its path may take in a message, and the
    command to type to name it (and see what a reader says of it)."""

    forms: tuple[str, ...]
    again: str


UNNAMED: ContextVar[tuple[Withheld, ...]] = ContextVar("unnamed_inputs", default=())


@dataclass(frozen=True)
class Found:
    """An input flag's value on a command line, in the occurrence tokens[start:stop]."""

    flag: str
    value: str
    reads: Reads
    start: int
    stop: int

    def file(self) -> InputFile:
        """The input as the run store hashes it."""
        return InputFile(self.flag, self.value, self.reads)


def declare_reads(action: argparse.Action, reads: Reads) -> argparse.Action:
    """Mark a flag whose value names input files (what `option(reads=...)` does)."""
    setattr(action, READS, reads)
    return action


def reads_of(action: argparse.Action) -> Reads | None:
    """What a flag's value names, when it names input files."""
    reads = getattr(action, READS, None)
    return reads if isinstance(reads, Reads) else None


def printable(text: str) -> str:
    """Text quoted for a shell, control characters escaped (a folder's text may hold
    terminal escape sequences)."""
    return shlex.quote("".join(c if c.isprintable() else repr(c)[1:-1] for c in text))


def full_flag(flag: str, options: frozenset[str]) -> str:
    """The option an (abbreviated) long flag names, as argparse reads it; else as given."""
    if flag in options or not flag.startswith("--"):
        return flag
    matches = [o for o in options if o.startswith(flag)]
    return matches[0] if len(matches) == 1 else flag


def _is_flag(token: str) -> bool:
    return token.startswith("-") and len(token) > 1 and not token[1].isdigit()


def inputs_on(tokens: Sequence[str], parser: argparse.ArgumentParser) -> list[Found]:
    """The values of input flags on a command line (after its command words), as argparse
    reads them: abbreviations, `--flag=value`, several values after an nargs="+" flag."""
    actions = {o: a for a in parser._actions for o in a.option_strings}
    options = frozenset(actions)
    found: list[Found] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--":
            break
        name, eq, value = token.partition("=")
        action = actions.get(full_flag(name, options)) if _is_flag(token) else None
        if action is None or (not eq and action.nargs == 0):
            i += 1
            continue
        many = action.nargs in ("+", "*")
        stop, values = i + 1, [value] if eq else []
        while not eq and stop < len(tokens) and not _is_flag(tokens[stop]) and (
                many or not values):
            values.append(tokens[stop])
            stop += 1
        if (reads := reads_of(action)) is not None:
            flag = full_flag(name, options)
            found += [Found(flag, v, reads, i, stop) for v in values]
        i = stop
    return found


def without_inputs(tokens: Sequence[str], found: Sequence[Found]) -> list[str]:
    """The tokens less the occurrences of the found input flags."""
    dropped = {i for f in found for i in range(f.start, f.stop)}
    return [t for i, t in enumerate(tokens) if i not in dropped]


def check_inputs(run: str, store: RunStore, stored: Sequence[Found], typed: Sequence[Found],
                 again: str) -> tuple[Withheld, ...]:
    """Refuse, in one line, a resume that would read an input file the run's command line
    names unless it is typed again (`typed`, which must repeat the run's values) or holds what
    run.json recorded; `again` is the command typed, to which a refusal adds the flags to type.
    Returns the inputs read on the folder's word (to withhold from error lines)."""
    typed_flags = _check_typed(run, stored, typed)
    try:
        recorded = recorded_hashes(store.info()) or {}
    except UserError as exc:
        raise UserError(f"{store.path}/{exc}") from None
    named = [(f, n) for f in stored if (n := f.file().named()) is not None]
    for found, (root, files) in named:  # a link first: the line to type must not hide it
        links = [link for path in (root, *files) if (link := link_inside(store.path, path))]
        if links and found.flag not in typed_flags:
            raise UserError(f"{run}/run.json names {found.flag} {printable(found.value)}, "
                            f"through {printable(str(links[0]))}, a symbolic link in the run "
                            "folder: a resume never follows one there; to read it anyway, type "
                            f"{again} {_retyped(stored, {found.flag})}, or start a new run")
    missing = [f for f, _ in named if f.flag not in typed_flags
               and (f.flag, f.value) not in recorded]
    if missing:
        first = missing[0]
        raise UserError(f"{run}/run.json records no content hash of its {first.reads.what} "
                        f"{first.flag} {printable(first.value)} (a run made before verstehen "
                        "recorded them, or an edited one), and a resume reads an input file only "
                        "when it holds what the run started with or is typed again: to read it, "
                        f"type {again} {_retyped(stored, {f.flag for f in missing})}")
    withheld = []
    for found, (root, _) in named:
        sha = recorded.get((found.flag, found.value))
        if found.flag in typed_flags:
            if sha is not None:
                _check_typed_unchanged(run, found, sha)
            continue
        assert sha is not None  # an input without a recorded hash was refused above
        require_unchanged(f"{found.flag} {printable(found.value)}", run, store, root, sha,
                          found.file().sha256)
        forms = {found.value, str(root), os.path.abspath(root)} - {""}
        withheld.append(Withheld(tuple(sorted(forms, key=len, reverse=True)),
                                 f"{again} {_retyped(stored, {found.flag})}"))
    return tuple(withheld)


def require_unchanged(what: str, run: str, store: RunStore, root: Path, sha: str,
                      digest: Callable[..., str | None]) -> None:
    """UserError in one line unless the input `what` that run.json names (its flag and value,
    or "the prompts file X") still holds the content hash the run recorded; `digest(follow=)`
    hashes it, never through a link when it lies inside the run folder."""
    inside = Path(os.path.abspath(root)).is_relative_to(os.path.abspath(store.path))
    try:
        now = digest(follow=not inside)
    except (OSError, UserError) as exc:
        reason = getattr(exc, "strerror", None) or "not a regular file"
        raise UserError(f"{what}, named by {run}/run.json, cannot be read now ({reason}): put "
                        "the run's file back, or start a new run") from None
    if now != sha:
        raise UserError(f"{what}, named by {run}/run.json, does not hold what the run started "
                        "with (its content hash differs from the one run.json recorded): resume "
                        "with the run's own file, or start a new run")


def _check_typed(run: str, stored: Sequence[Found], typed: Sequence[Found]) -> set[str]:
    """The input flags typed again, each refused in one line unless it repeats the run's
    values."""
    flags = {f.flag for f in typed}
    for flag in sorted(flags):
        made = [f.value for f in stored if f.flag == flag]
        given = [f.value for f in typed if f.flag == flag]
        if made == given:
            continue
        shown = " ".join(printable(v) for v in given)
        if not made:
            raise UserError(f"{run} was made without {flag}; a resume cannot add {flag} "
                            f"{shown}: start a new run to use it")
        raise UserError(f"{run} was made with {_retyped(stored, {flag})}; a resume reads the "
                        f"run's own inputs, typed again as they were, not {flag} {shown}: start "
                        "a new run to use another")
    return flags


def _check_typed_unchanged(run: str, found: Found, sha: str) -> None:
    """Refuse an input typed again whose content changed since the run started (the user
    named it: both hashes may be shown). One that cannot be read is left to its reader."""
    try:
        now = found.file().sha256()
    except (OSError, UserError):
        return
    if now is not None and now != sha:
        raise UserError(f"{found.flag} {printable(found.value)} changed since run {run} "
                        f"started (sha256 {sha[:12]}... then, {now[:12]}... now): its records "
                        "were made from the other content; resume with the original file, or "
                        "start a new run")


def _retyped(stored: Sequence[Found], flags: set[str]) -> str:
    """The run's occurrences of these input flags, as one would type them again."""
    parts: list[str] = []
    for flag in sorted(flags):
        values = [printable(f.value) for f in stored if f.flag == flag]
        parts.append(" ".join([flag, *values]))
    return " ".join(parts)


def withheld(message: str) -> str:
    """An error line as said, unless it names an input file read on a run folder's word: then
    that file (and line) only, never what the file holds."""
    for item in UNNAMED.get():
        for form in item.forms:
            found = re.search(re.escape(form) + r"[^\s:]*(?::\d+| line \d+)?", message)
            if found is not None:
                return (f"{found.group(0)}: cannot be read as this run needs it; its text is not "
                        "shown, as the run folder's run.json named the file, not this command "
                        f"line: to see why, type {item.again}")
    return message
