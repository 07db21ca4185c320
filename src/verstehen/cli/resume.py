"""`--resume RUN` for every run-making command: the run's own command line, read from its
run.json, is parsed again into the same folder, so each finished call comes from the cache.

Only flags that change how calls are made, not what is asked, may be given with it (a
shorter timeout, more connections, another cache file); the rest is the run's.

A run folder is data, never instructions: it may come from someone else (a shared drive, a
tarball). Where calls go and with which key (--base-url, --judge-base-url, --api-key-env, a
model's @URL) and which cache file is used come only from the command typed now: a run made
with one of them is resumed only when the typed command repeats it with the same value, and
refused otherwise in one line that shows the value and what to type to accept it. --cache may
differ (the typed one is used: a cache is the user's own file, and a call missing from it is
only asked again); a folder's own cache path is never used without being typed. An input file
its command line names is read only when typed again or unchanged since the run started
(`cli/inputs.py`).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

from verstehen.cli.inputs import (
    UNNAMED,
    Found,
    check_inputs,
    full_flag,
    inputs_on,
    printable,
    without_inputs,
)
from verstehen.engine.cache import cache_file
from verstehen.engine.store import RunStore
from verstehen.engine.store.inputs import InputFile
from verstehen.errors import UserError
from verstehen.methods import registry
from verstehen.models.remote import without_credentials
from verstehen.models.served_at import has_url


class ResumableCommands(AbstractSet[tuple[str, ...]]):
    """The command words whose runs can be resumed this way (batch has its own --resume): the
    resumable run kinds of the registered methods, read at each use (a method registered after
    this module was imported counts)."""

    def __contains__(self, words: object) -> bool:
        return words in registry.resumable_commands()

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        return iter(registry.resumable_commands())

    def __len__(self) -> int:
        return len(registry.resumable_commands())


RESUMABLE = ResumableCommands()

# flags a resume may add: how calls are made, never what is asked (value-taking, then not)
RESUME_VALUE_FLAGS = ("--cache", "--max-connections", "--max-attempts", "--threads",
                      "--timeout", "--fail-on")
RESUME_SWITCHES = ("--no-progress", "--json")
# where calls go and with which key: taken from the typed command only, and only when the
# run was made with the very same values; what each one lets a folder choose
DESTINATIONS = {"--base-url": "where calls go", "--judge-base-url": "where the judge's calls go",
                "--api-key-env": "which key is sent with calls",
                "--junit": "where the JUnit summary is written"}
MODEL_FLAGS = ("--model", "--judge")  # a model given as NAME@URL is a destination too
ALLOWED = ", ".join((*RESUME_VALUE_FLAGS, *RESUME_SWITCHES))
RESUME_HELP = ("go on with an interrupted run folder: its settings come from its run.json, "
               f"finished calls from the cache; only {ALLOWED} may be given with it, and the "
               "run's --base-url, --judge-base-url, --api-key-env, --junit and NAME@URL models "
               "must be typed again (a run folder never chooses where calls go or files are "
               "written); its input files are read when unchanged since it started, or when "
               "typed again as they were")


def add_resume_flag(parser: argparse.ArgumentParser) -> None:
    """Add --resume RUN to a run-making command."""
    parser.add_argument("--resume", type=Path, default=None, metavar="RUN", help=RESUME_HELP)


def expand_resume(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """The command line to parse: for `<command> --resume RUN [engine flags]`, the run's own
    command line with those flags and --resume added; any other command line as given.
    `parser` is the command line's own (its option names read abbreviations as argparse
    does). Nothing is read but the folder's run.json and the input files it names (hashed),
    and nothing is sent, before the checks."""
    UNNAMED.set(())
    at = next((i for i, token in enumerate(argv)
               if token == "--resume" or token.startswith("--resume=")), None)
    words = tuple(_leading_words(argv))
    if at is None or words not in RESUMABLE:
        return argv
    if argv[at].startswith("--resume="):
        path, rest = argv[at].split("=", 1)[1], argv[:at] + argv[at + 1:]
    elif at + 1 < len(argv):
        path, rest = argv[at + 1], argv[:at] + argv[at + 2:]
    else:
        return argv  # argparse says that --resume needs a value
    store = RunStore.existing(Path(path))
    made_by = store.made_by()
    if made_by != " ".join(words):
        raise UserError(f"{path} is a run of `verstehen {made_by}`, not of `verstehen "
                        f"{' '.join(words)}`: type verstehen {made_by} --resume {path}")
    recorded = store.info().get("argv") or []
    if not recorded:
        raise UserError(f"{path} was made from Python (its run.json has no command line): go "
                        f"on with it there, giving the same call resume={path!r}")
    if tuple(recorded[:len(words)]) != words:
        raise UserError(f"{path}/run.json: its command line is not one of `verstehen "
                        f"{' '.join(words)}`: it was edited or is not verstehen's; start a new "
                        "run")
    command = _command_parser(parser, words)
    options = frozenset(o for a in command._actions for o in a.option_strings)
    typed_inputs = inputs_on(rest[len(words):], command)
    typed = _settings(without_inputs(rest[len(words):], typed_inputs), options)
    _check_extra(typed)
    stored_inputs = inputs_on(recorded[len(words):], command)
    retyped = {f.flag for f in typed_inputs}
    # the run's occurrences of the input flags typed again give way to the typed ones
    tokens = without_inputs(recorded[len(words):],
                            [f for f in stored_inputs if f.flag in retyped])
    stored = _settings(tokens, options)
    _check_destinations(path, stored, typed)
    _check_cache(path, store, stored, typed)
    again = " ".join(["verstehen", *words, "--resume", printable(path),
                      *(printable(without_credentials(t)) for t in rest[len(words):])])
    UNNAMED.set(check_inputs(path, store, stored_inputs, typed_inputs, again))
    return [*words, *_without(tokens, stored, typed), *_typed_to_add(typed),
            *(t for f in _occurrences(typed_inputs) for t in rest[len(words):][f.start:f.stop]),
            "--resume", path]


def command_inputs(argv: Sequence[str], parser: argparse.ArgumentParser
                   ) -> tuple[InputFile, ...]:
    """The input files a resumable command line names (run.json records their content
    hashes when the run starts); none for any other command line."""
    words = tuple(_leading_words(list(argv)))
    if words not in RESUMABLE:
        return ()
    found = inputs_on(argv[len(words):], _command_parser(parser, words))
    return tuple(f.file() for f in found)


def _occurrences(found: Sequence[Found]) -> list[Found]:
    """One input of each occurrence of a flag (an nargs="+" flag's values share one)."""
    return list({(f.start, f.stop): f for f in found}.values())


@dataclass(frozen=True)
class Setting:
    """One flag of a command line with its value: tokens[start:stop] (`flag` in full, "" for
    a positional value; `value` None for a switch or a flag whose value is not known here)."""

    flag: str
    value: str | None
    start: int
    stop: int
    tokens: tuple[str, ...]

    def is_destination(self) -> bool:
        """Where calls go or with which key: a destination flag, or a model given NAME@URL."""
        return self.flag in DESTINATIONS or (self.value is not None and has_url(
            self.value) and (self.flag in MODEL_FLAGS or self.flag == ""))

    def shown(self) -> str:
        """The flag and value as one would type them (credentials and control characters
        left out)."""
        value = printable(str(without_credentials(self.value or "")))
        return f"{self.flag} {value}" if self.flag else value


def _command_parser(parser: argparse.ArgumentParser, words: tuple[str, ...]
                    ) -> argparse.ArgumentParser:
    """The parser of the command these words name (its option strings read abbreviations as
    argparse does: `--base` is --base-url where nothing else begins so)."""
    for word in words:
        [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[word]
    return parser


def _settings(tokens: Sequence[str], options: frozenset[str]) -> list[Setting]:
    """The flags of a command line (after its command words) with their values. A value of a
    flag not known to take one is read as a positional value, which is only looked at for
    NAME@URL."""
    settings: list[Setting] = []
    i = 0
    takes_value = {*DESTINATIONS, *MODEL_FLAGS, *RESUME_VALUE_FLAGS}
    while i < len(tokens):
        token = tokens[i]
        if token == "--":  # what follows is positional, never a flag
            settings += [Setting("", t, j, j + 1, tuple(tokens))
                         for j, t in enumerate(tokens[i + 1:], i + 1)]
            break
        if not token.startswith("--"):
            settings.append(Setting("", token, i, i + 1, tuple(tokens)))
            i += 1
            continue
        name, eq, value = token.partition("=")
        flag = full_flag(name, options)
        if eq or flag not in takes_value:
            settings.append(Setting(flag, value if eq else None, i, i + 1, tuple(tokens)))
            i += 1
        else:
            given = tokens[i + 1] if i + 1 < len(tokens) else None
            settings.append(Setting(flag, given, i, min(i + 2, len(tokens)), tuple(tokens)))
            i += 2
    return settings


def _values(settings: list[Setting], flag: str) -> list[str]:
    """The values given to `flag`, in order, as run.json keeps them (without credentials)."""
    return [str(without_credentials(s.value or "")) for s in settings if s.flag == flag]


def _check_destinations(run: str, stored: list[Setting], typed: list[Setting]) -> None:
    """Refuse, in one line, a resume whose typed command does not repeat where the run's calls
    went and with which key, value for value (or gives one the run was not made with)."""
    for flag, choice in DESTINATIONS.items():
        made = [s for s in stored if s.flag == flag]
        if _values(made, flag) == _values(typed, flag):
            continue
        if made:
            again = " ".join(s.shown() for s in made)
            raise UserError(f"{run} was made with {again}; a run folder cannot choose {choice}:"
                            f" add {again} to resume against it")
        given = " ".join(s.shown() for s in typed if s.flag == flag)
        raise UserError(f"{run} was made without {flag}; a resume cannot add {given}: start a "
                        "new run to use it")
    made_models = sorted(_served_models(stored))
    typed_models = sorted(_served_models(typed))
    if missing := [m for m in made_models if m not in typed_models]:
        again = " ".join(f"--model {m}" for m in missing)
        raise UserError(f"{run} was made with the model {missing[0]}, served at a URL of its "
                        f"own; a run folder cannot choose where calls go: add {again} to "
                        "resume against it")
    if extra := [m for m in typed_models if m not in made_models]:
        raise UserError(f"{run} was made without the model {extra[0]}: a resume cannot add "
                        "one; start a new run to use it")


def _served_models(settings: list[Setting]) -> list[str]:
    """The NAME@URL models of a command line, as one would type them."""
    return [printable(str(without_credentials(s.value or ""))) for s in settings
            if s.is_destination() and s.flag not in DESTINATIONS]


def _check_cache(run: str, store: RunStore, stored: list[Setting],
                 typed: list[Setting]) -> None:
    """Refuse a resume that would use a cache file the folder names but the command typed now
    does not (a typed --cache is used, whatever the run used before)."""
    typed_cache = _values(typed, "--cache")
    made = [s.value or "" for s in stored if s.flag == "--cache"]
    check_folder_cache(store, typed_cache[-1] if typed_cache else None,
                       made[-1] if made else None, run=run)


def check_folder_cache(store: RunStore, typed: str | Path | None, made: str | None = None, *,
                       run: str | None = None) -> None:
    """UserError in one line when no --cache is typed and the run names a cache file (its
    command line's --cache `made`, or run.json's "cache") other than the default one: a run
    folder never chooses which file is read and written. For `batch --resume` too."""
    if typed is not None:
        return
    used = store.info().get("cache")
    if made is None and (used is None or Path(used) == cache_file(None).absolute()):
        return
    again = Setting("--cache", made if made is not None else used, 0, 0, ()).shown()
    raise UserError(f"{run or store.path} was made with {again}; a run folder cannot choose "
                    f"which cache file is read and written: add {again} to resume with it (or "
                    "--cache PATH for another)")


def _without(tokens: list[str], stored: list[Setting], typed: list[Setting]) -> list[str]:
    """The run's command line less its destination flags, which the typed command gives
    (with the same values, credentials included), and less each flag the typed command gives
    again (--cache, --timeout, --json, ...: the typed one counts, and a flag is given once).
    NAME@URL models stay in place: their order is the run's."""
    replaced = {*DESTINATIONS, *(s.flag for s in typed
                                 if s.flag in RESUME_VALUE_FLAGS or s.flag in RESUME_SWITCHES)}
    dropped = {i for s in stored if s.flag in replaced for i in range(s.start, s.stop)}
    return [t for i, t in enumerate(tokens) if i not in dropped]


def _typed_to_add(typed: list[Setting]) -> list[str]:
    """The typed flags to put after the run's own: all but NAME@URL models, which the run's
    command line holds already, in its order, with the same values."""
    return [t for s in typed if s.flag in DESTINATIONS or not s.is_destination()
            for t in s.tokens[s.start:s.stop]]


def _leading_words(argv: list[str]) -> list[str]:
    """The command words at the start of a command line (up to the first flag, at most 2)."""
    words: list[str] = []
    for token in argv[:2]:
        if token.startswith("-"):
            break
        words.append(token)
    return words if len(words) < 2 or tuple(words) in RESUMABLE else words[:1]


def _check_extra(typed: list[Setting]) -> None:
    """Refuse, in one line, anything but the flags a resume may add (and the run's own
    destinations, typed again)."""
    for setting in typed:
        if (setting.flag in RESUME_SWITCHES or setting.flag in RESUME_VALUE_FLAGS
                or setting.is_destination()):
            continue
        token = setting.tokens[setting.start]
        raise UserError(f"{token} cannot be given with --resume: the run's settings "
                        f"come from its run.json (only {ALLOWED}, and the run's own "
                        "--base-url, --judge-base-url, --api-key-env and NAME@URL models, may "
                        "be given); start a new run to change it")
