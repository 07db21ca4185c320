"""What a method declares, once, in its own folder (`method.py`), for the CLI, `verstehen runs`,
`verstehen report` and `--resume` to read through the registry (`verstehen.methods.registry`).

A `Method` is a name, the function that adds its subcommands to `verstehen`, and the kinds of
run folder it makes: a `RunKind` per command that writes a run folder (its command words, the
typed result its summary.json holds, that result in one line, its HTML section and the view of
several such folders side by side, whether `--resume` goes on with it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

if TYPE_CHECKING:
    import argparse

    from verstehen.cli.parser import Parser
    from verstehen.export.sample import RunRows
    from verstehen.methods.options import Options, Parameters
    from verstehen.report.html import Page

R = TypeVar("R")
# adds a method's subcommands: (the tree's subcommands, the engine flags every model call takes)
AddParsers: TypeAlias = "Callable[[argparse._SubParsersAction[Parser], Parser], None]"
# draws one run folder into the page (what it returns is not used)
Section: TypeAlias = "Callable[[Path, Page], object]"
# draws several run folders of one kind side by side, before their own sections
Compare: TypeAlias = "Callable[[Sequence[Path], Page], None]"
LAST_PLACE = 1000  # a method that names no place in `--help` is listed after the built-in ones


@dataclass(frozen=True)
class RunKind(Generic[R]):
    """One kind of run folder a method makes: the command that makes it and how it is read.

    `words` are the command words (`("potemkin", "run")`); run.json's command, `kind`, is
    them joined by "-". `result` is the type summary.json holds (read back with
    `verstehen.results.load_result`) and `headline` that result in a few words for `verstehen
    runs`. `section` draws one folder in `verstehen report`, `compare` several of them side by
    side (None: no such view). `resumable`: `<words> --resume RUN` goes on with a folder.
    `drawn_as` names, from a folder's run.json, the kind it is read as when an older version
    wrote another kind's folders under this command (None: always this kind). `inner_runs`
    gives the run folders kept inside one folder, which the report draws after it, each by
    its own kind's section (None: none). `options` is the class declaring the command's
    parameters (`verstehen.methods.options`) and `api` the Python function made from it
    (None: a command whose parameters are not declared so). `rows` says how its folders
    become rows and results for `verstehen export` and `records_frame` (None: not exportable).
    `records` is the type of one line of its records.jsonl: a record TypedDict, or their
    union (`A | B`), or `typing.Never` when it writes none (None: undeclared, any JSON
    object); `verstehen schema` makes its published schema from it. `config` is the TypedDict
    of run.json's config (None: undeclared, any JSON object): a folder whose config does not
    fit it is refused by `verstehen report`, `export` and `runs`, and by `schema --check`.
    """

    words: tuple[str, ...]
    result: type[R]
    headline: Callable[[R], str]
    section: Section
    compare: Compare | None = None
    resumable: bool = True
    drawn_as: Callable[[Mapping[str, Any]], str] | None = None
    inner_runs: Callable[[Path], Sequence[Path]] | None = None
    options: type[Options] | None = None
    api: Callable[..., object] | None = None
    rows: RunRows | None = None
    records: object = None
    config: object = None

    def __post_init__(self) -> None:
        if not self.words or any(not w or "-" in w or " " in w for w in self.words):
            raise ValueError(f"command words are non-empty words without '-' or spaces, not "
                             f"{self.words!r}")

    @property
    def kind(self) -> str:
        """run.json's command for folders of this kind ("potemkin-run")."""
        return "-".join(self.words)


@dataclass(frozen=True)
class Command:
    """A command of a method that makes no run folder (`plan`, `bounds`): its words, the class
    declaring its parameters, and the Python function made from it."""

    words: tuple[str, ...]
    options: type[Parameters]
    api: Callable[..., object]


@dataclass(frozen=True)
class Method:
    """A method of `verstehen`: its name, the function adding its subcommands, the kinds of run
    folder it makes, where `verstehen --help` lists its commands (lower first), and its
    commands that make no run folder but declare their parameters (`Command`)."""

    name: str
    add_parsers: AddParsers
    kinds: tuple[RunKind[Any], ...] = field(default=())
    help_place: int = LAST_PLACE
    commands: tuple[Command, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a method has a name")
        if len({k.kind for k in self.kinds}) != len(self.kinds):
            raise ValueError(f"method {self.name}: two run kinds share a command")
