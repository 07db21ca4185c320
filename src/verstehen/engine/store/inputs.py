"""The input files of a run, recorded in its run.json when it starts ("inputs"), so that a
resume reads a file its run.json names only when it still holds what it held then.

A flag's value names files (`Reads`): a file (`FILE`), a folder of which the command reads
some files (a benchmark checkout, an MMLU folder), a run folder whose records it reads, or a
spec such as `mcq:PATH`; a value that names no file (a scope's name, an `hf:` dataset, which is
pinned to a revision in the run's config) is no input. The content hash of an input is the
SHA-256 of its file (what `sha256sum` prints), or of several files the SHA-256 of one line per
file, in the order read: its path under the folder, a NUL, its SHA-256.

Only regular files are hashed: a FIFO or a device is refused at once, never waited on (an input
given as `<(zcat ...)` is not recorded, and a resume asks for it again).
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from verstehen.errors import UserError

PIECE = 1 << 20
_OPEN = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC  # a FIFO must not block the open


@dataclass(frozen=True)
class Reads:
    """What a flag's value names: `files(value)` gives the path it names and the files the
    command reads for it, in the order read (None: the value names no file). `what` names
    the input in messages ("knowledge base")."""

    what: str
    files: Callable[[str], tuple[Path, Sequence[Path]] | None]


def _one_file(value: str) -> tuple[Path, Sequence[Path]]:
    return Path(value), (Path(value),)


FILE = Reads("input file", _one_file)


class InputHash(TypedDict):
    """One input of a run in run.json: its flag, its value as typed, and the content hash of
    the files the value names."""

    flag: str
    value: str
    sha256: str


@dataclass(frozen=True)
class InputFile:
    """A value of an input flag on a command line (`flag` in full)."""

    flag: str
    value: str
    reads: Reads

    def named(self) -> tuple[Path, Sequence[Path]] | None:
        """The path the value names and the files read for it (None: it names no file)."""
        return self.reads.files(self.value)

    def sha256(self, *, follow: bool = True) -> str | None:
        """The content hash of the files the value names (None: it names none). A file that
        cannot be read, or is not a regular file, is an OSError or a UserError; `follow=False`
        refuses a symbolic link as the file itself."""
        named = self.named()
        if named is None:
            return None
        root, files = named
        return content_sha256(root, files, follow=follow)


def file_sha256(path: Path, *, follow: bool = True) -> str:
    """The SHA-256 of a regular file's bytes (UserError for anything else: a folder, a FIFO,
    a device, or with `follow=False` a symbolic link)."""
    try:
        fd = os.open(path, _OPEN | (0 if follow else os.O_NOFOLLOW))
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.ENODEV):
            raise UserError(f"{path} is not a regular file: give the file itself") from None
        raise
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UserError(f"{path} is not a regular file: give the file itself")
        digest = hashlib.sha256()
        while piece := handle.read(PIECE):
            digest.update(piece)
    return digest.hexdigest()


def content_sha256(root: Path, files: Sequence[Path], *, follow: bool = True) -> str:
    """The content hash of an input: its one file's SHA-256, or over several files a line
    each of path under `root`, NUL, SHA-256."""
    if list(files) == [root]:
        return file_sha256(root, follow=follow)
    digest = hashlib.sha256()
    for path in files:
        name = path.relative_to(root) if path.is_relative_to(root) else path
        line = f"{name}\0{file_sha256(path, follow=follow)}\n"
        digest.update(line.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def input_hashes(inputs: Iterable[InputFile]) -> list[InputHash]:
    """The inputs of a new run as run.json records them: one per flag and value that names a
    regular file (or files) read now; one that cannot be read is left out, and a resume asks
    for it again."""
    hashes: list[InputHash] = []
    seen: set[tuple[str, str]] = set()
    for given in inputs:
        if (given.flag, given.value) in seen:
            continue
        seen.add((given.flag, given.value))
        try:
            sha = given.sha256()
        except (OSError, UserError):
            continue
        if sha is not None:
            hashes.append(InputHash(flag=given.flag, value=given.value, sha256=sha))
    return hashes


def recorded_hashes(info: Mapping[str, Any]) -> dict[tuple[str, str], str] | None:
    """The content hashes run.json recorded, by (flag, value); None for a run made before
    they were recorded. UserError when "inputs" is not what `input_hashes` writes."""
    inputs = info.get("inputs")
    if inputs is None:
        return None
    if not isinstance(inputs, list) or not all(
            isinstance(entry, dict) and all(isinstance(entry.get(key), str)
                                            for key in InputHash.__annotations__)
            for entry in inputs):
        raise UserError("run.json: 'inputs' is not a list of {flag, value, sha256}, which "
                        "verstehen never writes: it was edited; start a new run")
    return {(entry["flag"], entry["value"]): entry["sha256"] for entry in inputs}


def unrecorded(info: Mapping[str, Any], inputs: Iterable[InputFile]) -> list[InputFile]:
    """The inputs run.json (`info`) holds no content hash of."""
    recorded = info.get("inputs")
    known = {(entry.get("flag"), entry.get("value")) for entry in recorded
             if isinstance(entry, dict)} if isinstance(recorded, list) else set()
    return [given for given in inputs if (given.flag, given.value) not in known]


def with_added(recorded: object, inputs: Sequence[InputHash]) -> list[InputHash] | None:
    """run.json's "inputs" with those of `inputs` it lacks added (by flag and value); None
    when it lacks none."""
    known: list[InputHash] = list(recorded) if isinstance(recorded, list) else []
    keys = {(entry["flag"], entry["value"]) for entry in known}
    added = [entry for entry in inputs if (entry["flag"], entry["value"]) not in keys]
    return [*known, *added] if added else None


def link_inside(folder: Path, path: Path) -> Path | None:
    """The first symbolic link on `path` at or below `folder` (each lying where the other is
    read from: paths made absolute, `..` taken lexically); None when there is none or when
    `path` lies outside `folder`."""
    base, target = Path(os.path.abspath(folder)), Path(os.path.abspath(path))
    if not target.is_relative_to(base):
        return None
    here = base
    for part in target.relative_to(base).parts:
        here = here / part
        if os.path.islink(here):
            return here
    return None
