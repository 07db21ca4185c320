"""The `verstehen` command: the parser of every subcommand, each bound to its handler.

`main(argv)` parses, calls `args.func(args)` and turns what a user can fix (`UserError`) into
one line on stderr and exit code 2; Ctrl-C ends with what was finished kept (exit 130) and
the line to type to go on; a full disk or too many open files (an `OSError` anywhere in the
chain of causes) ends in one line saying so and how to go on (exit 1). A run folder this
process was making is marked interrupted or failed in its run.json. Error text is printed with
its control characters escaped (it may quote a server). `<command> --resume RUN` is parsed as
the run's own command line. The installed method plugins are imported only for a command line
that names no built-in command (`--help`, a plugin's command): see `build_parser`.
"""

from __future__ import annotations

import argparse
import errno
import gc
import os
import signal
import sqlite3
import sys
import threading
from collections.abc import Sequence

import verstehen.cli.basic as basic
import verstehen.cli.batch as batch
import verstehen.cli.concepts as concepts
import verstehen.cli.plugins as plugin_list
import verstehen.export.cli as export
import verstehen.schema.cli as schema
import verstehen.viewer.cli as viewer
from verstehen import __version__
from verstehen.cli.derived import add_method
from verstehen.cli.flags import EXIT_USER_ERROR, Parser, engine_flags
from verstehen.cli.inputs import withheld
from verstehen.cli.parser import AddParsers
from verstehen.cli.resume import command_inputs, expand_resume
from verstehen.engine.store import stop_active_runs, stopped_runs
from verstehen.engine.store.status import Run
from verstehen.errors import UserError
from verstehen.methods import registry
from verstehen.methods.contract import Method
from verstehen.plugins import exception_line, is_printable, message
from verstehen.text.terminal import terminal_line
from verstehen.wording import flags_named

EXIT_INTERRUPTED = 130
EXIT_OUT_OF_RESOURCES = 1
# what the OS ran out of, by errno, and what frees it
OUT_OF: dict[int, tuple[str, str]] = {
    errno.ENOSPC: ("disk full", "free space"),
    errno.EDQUOT: ("disk quota exceeded", "free space or raise the quota"),
    errno.EFBIG: ("file too large for the file-size limit (ulimit -f)", "raise the limit"),
    errno.EMFILE: ("too many open files (ulimit -n)",
                   "raise `ulimit -n` or lower --max-connections"),
    errno.ENFILE: ("the system's table of open files is full", "close other programs"),
}
# the commands of no method, each with its place in `--help` among the methods' (a method's
# declaration gives its own place; lower first)
# (each with the names of the commands it adds, so that a command line's first word is known
# without building the tree; tests/cli/test_help_defaults.py checks them against the tree)
GENERAL_COMMANDS: tuple[tuple[int, tuple[str, ...], AddParsers], ...] = (
    (20, ("report", "runs"), viewer.add_parsers), (25, ("export",), export.add_parsers),
    (27, ("schema",), schema.add_parsers), (30, ("models", "ask", "cache"), basic.add_parsers),
    (40, ("batch",), batch.add_parsers), (60, ("concepts",), concepts.add_parsers),
    (95, ("plugins",), plugin_list.add_parsers))


def build_parser(argv: Sequence[str] | None = None) -> Parser:
    """The command tree: the general commands and the built-in and registered methods', then
    the installed method plugins' unless `argv` names a command of those (None: all), in
    `--help` order by place. A plugin whose commands cannot be added, or would take a name
    `verstehen` has, is left out in one line on stderr."""
    parser = _root()
    engine = engine_flags()
    methods = [m for m in registry.methods(installed=False) if registry.is_built_in(m)]
    built_in = [*((place, add) for place, _, add in GENERAL_COMMANDS),
                *((m.help_place, _adder(m)) for m in methods)]
    # the names the built-in commands take, read from their declarations (no tree is built)
    taken = {name for _, names, _ in GENERAL_COMMANDS for name in names}
    taken |= {words[0] for m in methods for words in m.command_words()}
    command = argv[0] if argv else None  # the top level takes no option with a value
    wanted = command is None or (command not in taken and command != "--version")
    plugins: list[tuple[int, AddParsers]] = []
    for method in sorted((m for m in registry.methods(installed=wanted)
                          if not registry.is_built_in(m)), key=lambda m: m.help_place):
        if problem := _plugin_problem(method, taken, engine):
            registry.leave_out(method, problem)
            continue
        taken.update(words[0] for words in method.command_words())
        plugins.append((method.help_place, _adder(method)))
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for _, add in sorted([*built_in, *plugins], key=lambda entry: entry[0]):  # stable
        add(commands, engine)
    return parser


def flag_names(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, str]:
    """Each parameter of the command `args` runs, by its name, and the long flag that gives
    it (`max_questions` -> `--max-questions`, `subjects` -> `--subject`)."""
    chosen: argparse.ArgumentParser | None = parser
    names: dict[str, str] = {}
    while chosen is not None:
        below = None
        for action in chosen._actions:  # argparse publishes no other way to read them
            if isinstance(action, argparse._SubParsersAction):
                below = action.choices.get(getattr(args, action.dest) or "")
            elif longs := [o for o in action.option_strings if o.startswith("--")]:
                names.setdefault(action.dest, longs[0])
        chosen = below
    return names


def _root() -> Parser:
    """The top of the command tree, without its commands."""
    parser = Parser(prog="verstehen", description=(
        "Does a language model understand a subject, or only pass the benchmark?"))
    parser.add_argument("--version", action="version", version=f"verstehen {__version__}")
    return parser


def _adder(method: Method) -> AddParsers:
    """What adds a method's commands to the tree, from its declaration."""
    return lambda commands, engine: add_method(method, commands, engine)


def _tried(adders: Sequence[tuple[int, AddParsers]], engine: Parser) -> dict[str, Parser]:
    """The top-level commands `adders` make, added to a tree of their own."""
    commands = _root().add_subparsers(dest="command", parser_class=Parser)
    for _, add in adders:
        add(commands, engine)
    return dict(commands.choices)


def _plugin_problem(method: Method, taken: set[str], engine: Parser) -> str | None:
    """Why the commands of a method that is not built in cannot join the tree (a command name
    taken, a name or help that is not printable text, a declaration or an `add` that raises:
    tried on a tree of its own), or None."""
    try:
        words = method.command_words()
        if clash := sorted({w[0] for w in words} & taken):
            raise ValueError(f"it takes the command {clash[0]!r}, which verstehen has")
        helps = [*((k.words, k.help) for k in method.kinds),
                 *((o.words, o.help) for o in method.own),
                 *((c.words, c.help) for c in method.commands),
                 *(((group,), text) for group, text in method.groups.items())]
        if not is_printable(*(w for ws in words for w in ws)):
            raise ValueError("a command name is not printable text")
        for named, text in helps:
            if not is_printable(text):
                raise ValueError(f"the help of its command {' '.join(named)!r} is not "
                                 "printable text")
        _tried([(method.help_place, _adder(method))], engine)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # whatever a third party's code raises, SystemExit too
        return (f"plugin method {method.name!r} left out: its commands could not be added "
                f"({exception_line(exc)})")
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `verstehen` command; returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if threading.current_thread() is threading.main_thread():
        # started in the background (`cmd &`), SIGINT comes ignored: `kill -INT` should still
        # stop a run as Ctrl-C does, with the line to resume it
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        parser = build_parser(argv)
    except KeyboardInterrupt:  # while the methods (a plugin, too) were imported
        print("verstehen: interrupted before the command started; nothing was run",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    try:
        argv = expand_resume(argv, parser)
    except UserError as exc:
        print(f"verstehen: error: {terminal_line(str(exc))}", file=sys.stderr)
        return EXIT_USER_ERROR
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a bad flag (already printed)
        return exc.code if isinstance(exc.code, int) else EXIT_USER_ERROR
    if args.command is None:
        parser.print_help()
        return EXIT_USER_ERROR
    args.argv = argv
    args.inputs = command_inputs(argv, parser)  # run.json records their content hashes
    earlier = len(stopped_runs())
    gc.freeze()  # the imported SDKs' objects need no collecting: fewer full GC passes per call
    try:
        with flags_named(flag_names(parser, args)):  # messages name the flags a user types
            code: int = args.func(args)
        return code
    except UserError as exc:
        line = withheld(message(exc))  # never what a file the user did not name holds
        stop_active_runs("failed", line)  # a plugin's error may not print
        print(f"verstehen: error: {terminal_line(line)}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        stop_active_runs("interrupted", "interrupted (Ctrl-C)")
        if outer := _outer_stopped(earlier):
            print("verstehen: interrupted; finished calls are cached and records kept; to go "
                  f"on, type: {outer.resume_command()}", file=sys.stderr)
        else:
            print("verstehen: interrupted before a run folder was made; nothing was kept "
                  "(rerun the command)", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `verstehen concepts | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # a bug: the traceback follows, the run says how it ended
        stop_active_runs("failed", f"{type(exc).__name__}: {exc}")
        if (said := out_of_resources(exc)) is None:
            raise
        outer = _outer_stopped(earlier)
        print(f"verstehen: error: {terminal_line(said[0])}: {said[1]}, then " + (
            f"resume: {outer.resume_command()}" if outer else
            "rerun the command (no run folder was made; finished calls are cached)"),
            file=sys.stderr)
        return EXIT_OUT_OF_RESOURCES


def _outer_stopped(earlier: int) -> Run | None:
    """The outermost run folder this command stopped (a job's steps lie inside its folder)."""
    stopped = stopped_runs()[earlier:]
    return min(stopped, key=lambda run: len(run.path.parts)) if stopped else None


def out_of_resources(exc: BaseException) -> tuple[str, str] | None:
    """(what ran out and where, what frees it) when `exc` or an exception it came from (its cause,
    its context, a group's members) is the OS running out of disk or file descriptors."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        one = todo.pop()
        if id(one) in seen:
            continue
        seen.add(id(one))
        if isinstance(one, OSError) and one.errno in OUT_OF:
            what, remedy = OUT_OF[one.errno]
            where = (f" {'opening' if one.errno in (errno.EMFILE, errno.ENFILE) else 'writing'}"
                     f" {one.filename}" if one.filename else "")
            return what + where, remedy
        if isinstance(one, sqlite3.OperationalError) and "disk is full" in str(one):
            return "disk full writing the call cache", "free space"
        todo.extend(e for e in (one.__cause__, one.__context__) if e is not None)
        members = getattr(one, "exceptions", ())  # an ExceptionGroup's (Python 3.11 on)
        todo.extend(e for e in members if isinstance(e, BaseException))
    return None
