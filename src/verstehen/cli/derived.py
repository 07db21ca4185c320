"""A method's commands, derived from its declaration (`verstehen.methods.contract`): for each
run kind the subcommand, its flags (the run flags, `--model` where its options declare a shared
model, then a flag per parameter), and a handler that calls the kind's entry point and ends as
every run-making command ends; for each `Command` its flags and a handler printing the result;
each `OwnCommand` added by the method itself through `CommandLine`.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from typing import Any

from verstehen.cli.flags import (
    NO_PROGRESS_HELP,
    model_flag,
    print_json,
    run_flags,
    settings_from,
)
from verstehen.cli.inputs import declare_reads
from verstehen.cli.options import add_options, options_from
from verstehen.cli.parser import Parser, Subcommands
from verstehen.cli.resume import add_resume_flag
from verstehen.cli.runs import finish
from verstehen.cli.verdicts import add_verdict_flags, end_with_verdicts
from verstehen.methods.contract import Command, Method, OwnCommand, Parents, RunKind
from verstehen.methods.options import SHARED, parameters

JSON_HELP = "print one JSON object"


class Services:
    """The `CommandLine` a method's own commands are handed: the command line's shared flags,
    readers of parsed flags and endings, so that no method imports the command line."""

    no_progress_help = NO_PROGRESS_HELP
    add_options = staticmethod(add_options)
    options_from = staticmethod(options_from)
    settings_from = staticmethod(settings_from)
    declare_reads = staticmethod(declare_reads)
    add_resume_flag = staticmethod(add_resume_flag)
    add_verdict_flags = staticmethod(add_verdict_flags)
    finish = staticmethod(finish)
    end_with_verdicts = staticmethod(end_with_verdicts)
    print_json = staticmethod(print_json)


SERVICES = Services()


class Tree:
    """Where a method's commands go: the top-level subcommands, and a group of subcommands
    (`potemkin run`) made at its first command, under the method's help for the group."""

    def __init__(self, commands: Subcommands, engine: Parser) -> None:
        self.commands, self.engine = commands, engine
        self.groups: dict[str, Subcommands] = {}

    def parser(self, method: Method, words: tuple[str, ...], help: str, parents: Parents,
               epilog: str | None = None) -> Parser:
        """A new parser for the command `words`, starting from the `parents` flags."""
        start = {"none": [], "engine": [self.engine],
                 "run": [run_flags(self.engine)]}[parents]
        if len(words) == 1:
            return self.commands.add_parser(words[0], parents=start, help=help, epilog=epilog)
        group = words[0]
        if group not in self.groups:
            top = self.commands.add_parser(group, help=method.groups.get(group, ""))
            self.groups[group] = top.add_subparsers(dest=f"{group}_command", metavar="STEP",
                                                    parser_class=Parser, required=True)
        return self.groups[group].add_parser(words[1], parents=start, help=help, epilog=epilog)


def add_method(method: Method, commands: Subcommands, engine: Parser) -> None:
    """Add every command of `method` to the command tree, in its `--help` order."""
    tree = Tree(commands, engine)
    kinds = {kind.words: kind for kind in method.kinds}
    own = {command.words: command for command in method.own}
    plain = {command.words: command for command in method.commands}
    for words in method.command_words():
        if words in own:
            add_own(tree, method, own[words])
        elif words in kinds:
            add_run_kind(tree, method, kinds[words])
        else:
            add_command(tree, method, plain[words])


def add_own(tree: Tree, method: Method, command: OwnCommand) -> None:
    """A command the method adds itself."""
    parser = tree.parser(method, command.words, command.help, command.parents, command.epilog)
    command.add(parser, SERVICES)


def add_run_kind(tree: Tree, method: Method, kind: RunKind[Any]) -> None:
    """A run-making command from its declaration: the run flags, --model where the options
    declare a shared `model`, a flag per parameter, and the handler."""
    if kind.options is None or kind.entry is None:
        raise TypeError(f"run kind {kind.kind!r} declares no options and entry point, and "
                        f"method {method.name!r} adds no command of its own for it")
    parser = tree.parser(method, kind.words, kind.help, "run", kind.epilog)
    model = next((meta for field, meta in parameters(kind.options)
                  if field.name == "model" and meta.flag == SHARED), None)
    if model is not None:
        model_flag(parser, model.help)
    add_options(parser, kind.options)
    parser.set_defaults(func=run_handler(kind))


def run_handler(kind: RunKind[Any]) -> Callable[[argparse.Namespace], int]:
    """The handler of a derived run-making command: the entry point with the options and
    settings of the flags, then the result printed (in words, or JSON) and the exit code."""
    options, entry = kind.options, kind.entry
    assert options is not None and entry is not None

    def handle(args: argparse.Namespace) -> int:
        result = asyncio.run(entry(options_from(options, args), settings_from(args)))
        return finish(args, result, lambda done: print(done.text()))

    handle.__doc__ = f"`{' '.join(kind.words)}`: run it and print the result."
    return handle


def add_command(tree: Tree, method: Method, command: Command) -> None:
    """A command that makes no run folder, from its parameters: a flag per parameter and
    --json; the handler prints the entry point's result."""
    entry = command.entry
    if entry is None:
        raise TypeError(f"command {' '.join(command.words)!r} of method {method.name!r} "
                        "declares no entry point")
    parser = tree.parser(method, command.words, command.help, "none")
    add_options(parser, command.options)
    parser.add_argument("--json", action="store_true", help=JSON_HELP)

    def handle(args: argparse.Namespace) -> int:
        out = entry(options_from(command.options, args))
        if args.json:
            print_json(out.to_dict())
        else:
            print(out.text())
        return 0

    parser.set_defaults(func=handle)
