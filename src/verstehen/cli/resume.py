"""`--resume RUN` for every run-making command: the run's own command line, read from its
run.json, is parsed again into the same folder, so each finished call comes from the cache.

Only flags that change how calls are made, not what is asked, may be given with it (a
shorter timeout, more connections, another cache file); the rest is the run's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from verstehen.engine.store import RunStore
from verstehen.errors import UserError

# command words whose runs can be resumed this way (batch has its own --resume)
RESUMABLE = {("certify",), ("audit",), ("consistency",), ("potemkin", "run"),
             ("potemkin", "incoherence"), ("potemkin", "selfjudge"), ("imagine", "generate"),
             ("imagine", "answer")}
# flags a resume may add: how calls are made, never what is asked (value-taking, then not)
RESUME_VALUE_FLAGS = ("--cache", "--max-connections", "--max-attempts", "--threads",
                      "--timeout", "--api-key-env")
RESUME_SWITCHES = ("--no-progress", "--json")
ALLOWED = ", ".join(RESUME_VALUE_FLAGS + RESUME_SWITCHES)
RESUME_HELP = ("go on with an interrupted run folder: its settings come from its run.json, "
               f"finished calls from the cache; only {ALLOWED} may be given with it")


def add_resume_flag(parser: argparse.ArgumentParser) -> None:
    """Add --resume RUN to a run-making command."""
    parser.add_argument("--resume", type=Path, default=None, metavar="RUN", help=RESUME_HELP)


def expand_resume(argv: list[str]) -> list[str]:
    """The command line to parse: for `<command> --resume RUN [engine flags]`, the run's own
    command line with those flags and --resume added; any other command line as given."""
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
    _check_extra(rest[len(words):])
    return [*recorded, *rest[len(words):], "--resume", path]


def _leading_words(argv: list[str]) -> list[str]:
    """The command words at the start of a command line (up to the first flag, at most 2)."""
    words: list[str] = []
    for token in argv[:2]:
        if token.startswith("-"):
            break
        words.append(token)
    return words if len(words) < 2 or tuple(words) in RESUMABLE else words[:1]


def _check_extra(tokens: list[str]) -> None:
    """Refuse, in one line, anything but the flags a resume may add."""
    i = 0
    while i < len(tokens):
        flag = tokens[i].split("=", 1)[0]
        if flag in RESUME_SWITCHES:
            i += 1
        elif flag in RESUME_VALUE_FLAGS:
            i += 1 if "=" in tokens[i] else 2
        else:
            raise UserError(f"{tokens[i]} cannot be given with --resume: the run's settings "
                            f"come from its run.json (only {ALLOWED} may change); start a new "
                            "run to change it")
