"""The default a flag's help states is the default its command uses."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

from verstehen.cli.main import build_parser

STATED = re.compile(r"default:? (-?\d+(?:\.\d+)?)\b")


def numeric_defaults() -> Iterator[tuple[str, str, float, float]]:
    """(command, flag, the default in effect, the number the help states) of every flag whose
    help states a number as its default."""
    def walk(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, str, float, float]]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, f"{path} {name}".strip())
            elif action.option_strings and action.help and (m := STATED.search(action.help)):
                used = parser.get_default(action.dest)  # set_defaults included
                yield path, action.option_strings[-1], used, float(m.group(1))
    yield from walk(build_parser(), "")


def test_help_states_the_default_in_effect() -> None:
    """E.g. `audit --rephrase` shares its argument with certify but not its default."""
    rows = list(numeric_defaults())
    # a None default is settled at run time (8 remote, 16 local; 60 s): the help states the rule
    wrong = [(cmd, flag, used, said) for cmd, flag, used, said in rows
             if used is not None and float(used) != said]
    assert wrong == []
    assert len(rows) > 40  # the walk reads the help of the numeric flags (about 60 today)
    assert ("audit", "--rephrase", 0, 0.0) in rows


def flags_without_help() -> list[str]:
    """`command flag` of every option whose --help line says nothing (issue 30: --seed,
    --no-progress, --temperature, `cache --cache` had none)."""
    def walk(parser: argparse.ArgumentParser, path: str) -> Iterator[str]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, f"{path} {name}".strip())
            elif action.option_strings and not action.help and not isinstance(
                    action, argparse._HelpAction | argparse._VersionAction):
                yield f"{path} {action.option_strings[-1]}"
    return sorted(walk(build_parser(), ""))


def test_every_flag_says_what_it_does() -> None:
    assert flags_without_help() == []


def test_the_general_commands_declare_the_names_they_add() -> None:
    """GENERAL_COMMANDS names the commands each entry adds (build_parser reads a command line's
    first word from these names, without building a tree first): each entry, added to a tree
    of its own, adds exactly those."""
    from verstehen.cli import main as cli_main
    from verstehen.cli.parser import Parser

    engine = cli_main.engine_flags()
    for _, names, add in cli_main.GENERAL_COMMANDS:
        commands = Parser(prog="x").add_subparsers(dest="command", parser_class=Parser)
        add(commands, engine)
        assert tuple(commands.choices) == names, add
