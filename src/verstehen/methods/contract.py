"""What a method declares, once, in its own folder (`method.py`), for the CLI, the Python API,
`verstehen runs`, `verstehen report`, `export`, `schema` and `--resume` to read through the
registry (`verstehen.methods.registry`).

A `Method` is a name and the kinds of run folder it makes: a `RunKind` per command that writes
a run folder (its command words, its options class and entry point, from which the command
line derives the subcommand, its flags and its handler; the typed result its summary.json
holds, that result in one line, its HTML section, whether `--resume` goes on with it). A
`Command` declares a command that makes no run folder from its parameters class and entry
point; an `OwnCommand` is one whose flags the method adds itself (positional arguments,
unusual output), through the public `argparse` API and the `CommandLine` it is handed, so no
method imports the command line.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Generic,
    Literal,
    Protocol,
    TypeAlias,
    TypeVar,
    runtime_checkable,
)

if TYPE_CHECKING:
    from verstehen.engine.session import RunSettings
    from verstehen.engine.store.inputs import Reads
    from verstehen.methods.options import Options, Parameters
    from verstehen.report.html import Page
    from verstehen.rows import RunRows

R = TypeVar("R")
P = TypeVar("P", bound="Parameters")
Res = TypeVar("Res", bound="RunResult")
# draws one run folder into the page (what it returns is not used)
Section: TypeAlias = "Callable[[Path, Page], object]"
# draws several run folders of one kind side by side, before their own sections
Compare: TypeAlias = "Callable[[Sequence[Path], Page], None]"
LAST_PLACE = 1000  # a method that names no place in `--help` is listed after the built-in ones
# the flags a command's parser starts from: none, the engine's (how calls are made), or the
# engine's and a run's (--max-tokens, --seed, --runs-dir, --no-progress, --json, --resume)
Parents = Literal["none", "engine", "run"]


@runtime_checkable
class RunResult(Protocol):
    """What every run-making entry point returns: its run folder, the calls that failed, and a
    JSON form (what `--json` prints)."""

    @property
    def run_dir(self) -> Path:
        """The run folder (what `--resume` goes on with)."""
        ...

    @property
    def failed_calls(self) -> int:
        """Calls that failed after every retry (a rerun tries them again)."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, as in summary.json."""
        ...


class CommandLine(Protocol):
    """What the command line hands a method's own commands (`OwnCommand.add`): its shared
    flags, how flags become options and settings, and how a command ends."""

    no_progress_help: str

    def add_options(self, parser: argparse.ArgumentParser, options: type[Parameters]) -> None:
        """Add a flag for each parameter of `options` that has one of its own."""

    def options_from(self, options: type[P], args: argparse.Namespace, **given: Any) -> P:
        """The options the parsed flags give; `given` adds or replaces values."""

    def settings_from(self, args: argparse.Namespace) -> RunSettings:
        """The run settings of the parsed engine and run flags."""

    def declare_reads(self, action: argparse.Action, reads: Reads) -> argparse.Action:
        """Mark a flag whose value names input files (hashed into run.json for --resume)."""

    def add_resume_flag(self, parser: argparse.ArgumentParser) -> None:
        """Add --resume RUN."""

    def add_verdict_flags(self, parser: argparse.ArgumentParser) -> None:
        """Add --fail-on and --junit to a command that decides verdicts."""

    def finish(self, args: argparse.Namespace, result: Res,
               show: Callable[[Res], None]) -> int:
        """Print a run's result (in words, or JSON with --json); 1 when calls failed."""

    def end_with_verdicts(self, args: argparse.Namespace, suite: Any, code: int) -> int:
        """Write --junit, then the exit code: `code` unless 0, else 3 for a verdict in
        --fail-on, else 0 (`suite`: certification's `VerdictSuite`)."""

    def print_json(self, value: object) -> None:
        """Pretty JSON on stdout."""


@dataclass(frozen=True)
class RunKind(Generic[R]):
    """One kind of run folder a method makes: the command that makes it and how it is read.

    `words` are the command words (`("potemkin", "run")`); run.json's command, `kind`, is
    them joined by "-". `options` is the class declaring the command's parameters
    (`verstehen.methods.options`) and `entry` the procedure both faces call,
    `entry(options, settings)`; from them the command line derives the subcommand (`help`,
    `epilog`), its flags and its handler, and `api` is the Python function made from them
    (`api_functions`). `result` is the type summary.json holds (read back with
    `verstehen.results.load_result`) and `headline` that result in a few words for `verstehen
    runs`. `section` draws one folder in `verstehen report` (None: the result's `to_dict()`
    as a table), `compare` several of them side by side (None: no such view). `resumable`:
    `<words> --resume RUN` goes on with a folder. `drawn_as` names, from a folder's run.json,
    the kind it is read as when an older version wrote another kind's folders under this
    command (None: always this kind). `inner_runs` gives the run folders kept inside one
    folder, which the report draws after it (None: none). `rows` says how its folders become
    rows and results for `verstehen export` and `records_frame` (None: not exportable).
    `records` is the type of one line of its records.jsonl: a record TypedDict, or their
    union (`A | B`), or `typing.Never` when it writes none (None: undeclared, any JSON
    object); `verstehen schema` makes its published schema from it. `config` is the TypedDict
    of run.json's config (None: undeclared). `example` names, as `module:function`, a
    function making one small finished run folder of this kind with scripted models,
    `example(runs_dir, cache, tag)` -> the folder, which the test suite runs for every kind
    (None: the kind is tested by hand).
    """

    words: tuple[str, ...]
    result: type[R]
    headline: Callable[[R], str]
    section: Section | None = None
    compare: Compare | None = None
    resumable: bool = True
    drawn_as: Callable[[Mapping[str, Any]], str] | None = None
    inner_runs: Callable[[Path], Sequence[Path]] | None = None
    options: type[Options] | None = None
    entry: Callable[[Any, RunSettings], Coroutine[Any, Any, R]] | None = None
    api: Callable[..., object] | None = None
    help: str = ""
    epilog: str | None = None
    rows: RunRows | None = None
    records: object = None
    config: object = None
    example: str | None = None

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
    declaring its parameters, the Python function made from it, and the entry point the
    command line calls, `entry(parameters)`, whose result it prints (`text()`, or `to_dict()`
    with --json). A command whose words a run kind or an own command of the method also has
    is a mode of that command (`certify --scores`): it gets no subcommand of its own."""

    words: tuple[str, ...]
    options: type[Parameters]
    api: Callable[..., object]
    entry: Callable[[Any], Any] | None = None
    help: str = ""


@dataclass(frozen=True)
class OwnCommand:
    """A command whose flags and handler the method adds itself: `add(parser, cli)` adds the
    arguments with the public `argparse` API and sets the handler (`parser.set_defaults(
    func=...)`, a function of the parsed arguments returning the exit code). `parents`: the
    shared flags the parser starts from."""

    words: tuple[str, ...]
    help: str
    add: Callable[[argparse.ArgumentParser, CommandLine], None]
    parents: Parents = "none"
    epilog: str | None = None


@dataclass(frozen=True)
class Method:
    """A method of `verstehen`: its name, the kinds of run folder it makes, where `verstehen
    --help` lists its commands (lower first), its commands that make no run folder
    (`Command`), those it adds itself (`OwnCommand`), the help of each command group (the
    first word of commands of two words: `potemkin`), and the order its commands are listed
    in (None: the run kinds', then its own, then the other commands', as declared)."""

    name: str
    kinds: tuple[RunKind[Any], ...] = field(default=())
    help_place: int = LAST_PLACE
    commands: tuple[Command, ...] = field(default=())
    own: tuple[OwnCommand, ...] = field(default=())
    groups: Mapping[str, str] = field(default_factory=dict)
    order: tuple[tuple[str, ...], ...] | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a method has a name")
        if len({k.kind for k in self.kinds}) != len(self.kinds):
            raise ValueError(f"method {self.name}: two run kinds share a command")

    def command_words(self) -> tuple[tuple[str, ...], ...]:
        """The words of every subcommand the method adds, in `--help` order (a command that
        is a mode of another is not one)."""
        made = [*(k.words for k in self.kinds), *(o.words for o in self.own)]
        made += [c.words for c in self.commands if c.words not in made]
        listed = list(dict.fromkeys(made))
        if self.order is None:
            return tuple(listed)
        if sorted(self.order) != sorted(listed):
            raise ValueError(f"method {self.name}: its order lists {sorted(self.order)}, "
                             f"its commands are {sorted(listed)}")
        return self.order
