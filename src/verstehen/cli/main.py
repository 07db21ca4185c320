"""The `verstehen` command: parses flags, calls procedures, turns user errors into exit 2."""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import json
import os
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from verstehen import __version__
from verstehen.errors import UserError

if TYPE_CHECKING:
    from verstehen.engine.session import Session

EXIT_USER_ERROR = 2
EXIT_CALL_FAILED = 1
EXIT_INTERRUPTED = 130


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2) instead of usage dumps."""

    def error(self, message: str) -> NoReturn:
        """Print one line naming the problem and where to look."""
        self.exit(EXIT_USER_ERROR, f"verstehen: error: {message} (see {self.prog} --help)\n")


def engine_flags() -> argparse.ArgumentParser:
    """Flags shared by every command that calls a model."""
    flags = Parser(add_help=False)
    flags.add_argument("--cache", type=Path, default=None,
                       help="cache file (default $VERSTEHEN_CACHE or "
                            "~/.cache/verstehen/calls.sqlite)")
    flags.add_argument("--base-url", default=None,
                       help="OpenAI- or Anthropic-compatible server, e.g. http://127.0.0.1:8000/v1")
    flags.add_argument("--max-connections", type=int, default=None,
                       help="concurrent calls per model (default 8 remote, 1 local)")
    flags.add_argument("--max-attempts", type=int, default=6,
                       help="attempts per call on 429, 5xx, timeouts (default 6)")
    return flags


def session_from(args: argparse.Namespace, progress_label: str | None = None) -> Session:
    """A session configured by engine_flags; progress shows unless --no-progress was given."""
    from verstehen.engine.session import Session

    if getattr(args, "no_progress", False):
        progress_label = None
    return Session.start(cache_path=args.cache, max_connections=args.max_connections,
                         max_attempts=args.max_attempts, progress_label=progress_label)


def generation_flags() -> argparse.ArgumentParser:
    """Flags that shape a generation (all of them are part of the cache key)."""
    flags = Parser(add_help=False)
    flags.add_argument("--temperature", type=float, default=0.0)
    flags.add_argument("--max-tokens", type=int, default=256)
    flags.add_argument("--seed", type=int, default=0)
    return flags


# modules that add their own subcommands (add_parsers) and handle them (cmd_<name>)
_EXTRA_COMMANDS = ("methods.certification.cli", "cli.concepts", "methods.potemkin.cli",
                   "methods.imagination.cli", "methods.consistency.cli")


def build_parser() -> Parser:
    """The whole command tree."""
    from verstehen.models import DEFAULT_MODEL

    parser = Parser(prog="verstehen", description=(
        "Does a language model understand a subject, or only pass the benchmark?"))
    parser.add_argument("--version", action="version", version=f"verstehen {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    engine, generation = engine_flags(), generation_flags()

    commands.add_parser("models", help="providers, the embedded default model, capabilities")

    ask = commands.add_parser("ask", parents=[engine, generation],
                              help="one answer from a model, through the cache")
    ask.add_argument("model", help=f"provider/model, e.g. {DEFAULT_MODEL}")
    ask.add_argument("prompt")
    ask.add_argument("--system", default=None, help="a system message")
    ask.add_argument("--sample", type=int, default=0,
                     help="sample index at temperature > 0: a new index draws a new answer")

    batch = commands.add_parser("batch", parents=[engine, generation],
                                help="answer every prompt of a file into a run folder")
    batch.add_argument("model", nargs="?", help=f"provider/model, e.g. {DEFAULT_MODEL}")
    batch.add_argument("prompts", nargs="?", type=Path,
                       help=".txt (one prompt a line) or .jsonl with prompt or messages")
    batch.add_argument("--samples", type=int, default=1, help="answers per prompt")
    batch.add_argument("--runs-dir", type=Path, default=None,
                       help="parent of run folders (default $VERSTEHEN_RUNS_DIR or ./runs)")
    batch.add_argument("--resume", type=Path, default=None,
                       help="a run folder to finish: makes only the calls it lacks")
    batch.add_argument("--no-progress", action="store_true")

    cache = commands.add_parser("cache", help="inspect or clear the call cache")
    cache.add_argument("action", choices=["stats", "clear"])
    cache.add_argument("--cache", type=Path, default=None)
    cache.add_argument("--model", default=None, help="clear only this model's entries")
    cache.add_argument("--json", action="store_true")

    for module in _EXTRA_COMMANDS:
        importlib.import_module(f"verstehen.{module}").add_parsers(commands, engine)
    return parser


def run_async(coro: Coroutine[Any, Any, int]) -> int:
    """Run a command's coroutine; Ctrl-C ends it with what was finished kept."""
    try:
        return asyncio.run(coro)
    except KeyboardInterrupt:
        print("verstehen: interrupted; finished calls are cached and records kept "
              "(rerun, or --resume the run folder, to go on)", file=sys.stderr)
        return EXIT_INTERRUPTED


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `verstehen` command."""
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USER_ERROR
    gc.freeze()  # the imported SDKs' objects need no collecting: fewer full GC passes per call
    modules = [importlib.import_module(f"verstehen.{m}") for m in ("cli.basic", *_EXTRA_COMMANDS)]
    handler = next(getattr(m, f"cmd_{args.command}") for m in modules
                   if hasattr(m, f"cmd_{args.command}"))
    try:
        return handler(args, argv)
    except UserError as exc:
        print(f"verstehen: error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except BrokenPipeError:  # `verstehen concepts | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def print_json(value: Any) -> None:
    """Pretty JSON on stdout."""
    json.dump(value, sys.stdout, indent=2)
    sys.stdout.write("\n")

