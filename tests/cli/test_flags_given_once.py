"""A flag is repeatable or refused when repeated (issue 44, item 1): argparse keeps the last
value of a flag given twice and drops the first without a word, which made `certify --model A
--model B` certify B alone. Every flag of every command is found by walking the parser; each
one that stores one value is given twice and must end the parse in one line naming it (exit
2), and each that takes several values must say so (an append or extend action, or an action
declared `repeatable`)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from verstehen.cli.flags import Parser
from verstehen.cli.main import build_parser

from conftest import Cli, cli_error

# what argparse itself gives several values or ends the parse with
SEVERAL = (argparse._AppendAction, argparse._AppendConstAction, argparse._ExtendAction,
           argparse._CountAction)
ENDS = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)
# values that one flag type or another reads: a count, a number in (0, 1), a model, a URL, a
# verdict, a variable's name, a word
CANDIDATES = ("1", "0.5", "openai/m", "http://127.0.0.1:9/v1", "inconclusive", "NAME", "x")


def walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
         ) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, argparse.Action]]:
    """(command words, its parser, one of its flags) for every flag of every command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from walk(sub, (*path, name))
        elif action.option_strings and not isinstance(action, ENDS):
            yield path, parser, action


def repeatable(action: argparse.Action) -> bool:
    """True for a flag declared to take several values."""
    return isinstance(action, SEVERAL) or getattr(action, "repeatable", False)


FLAGS = [(path, action) for path, _, action in walk(build_parser())]
ONCE = [(path, action) for path, action in FLAGS if not repeatable(action)]


def a_value(action: argparse.Action) -> list[str]:
    """The tokens after the flag that it reads without complaint (none for a switch)."""
    if action.nargs == 0:
        return []
    if action.choices:
        return [str(next(iter(action.choices)))]
    for text in CANDIDATES:
        try:
            if action.type is not None:
                action.type(text)  # type: ignore[operator]  # argparse's type is callable
        except (argparse.ArgumentTypeError, TypeError, ValueError):
            continue
        return [text]
    raise AssertionError(f"no value found for {action.option_strings}")


def test_the_walk_finds_the_flags_and_the_repeatable_ones() -> None:
    """The table is the parser's: many flags checked; those that take several are the
    declared ones, certify's --model and --scope among them."""
    assert len(ONCE) > 200
    several = {(" ".join(path), action.option_strings[0]) for path, action in FLAGS
               if repeatable(action)}
    assert {("certify", "--model"), ("certify", "--scope"), ("audit", "--model"),
            ("certify", "--base-url")} <= several


@pytest.mark.parametrize(("path", "action"), ONCE,
                         ids=[f"{' '.join(p)} {a.option_strings[-1]}" for p, a in ONCE])
def test_a_flag_given_twice_is_one_line_exit_2(path: tuple[str, ...], action: argparse.Action,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Given twice, the flag is refused while parsing, before anything runs: one line naming
    it, whatever the rest of the command line lacks."""
    flag, value = action.option_strings[-1], a_value(action)
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args([*path, flag, *value, flag, *value])
    assert stopped.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert flag in lines[0] and "given twice" in lines[0], lines[0]


def test_two_names_of_one_setting_are_refused_together() -> None:
    """A flag and another that sets the same value (an old name, a negation) count as one."""
    parser = Parser(prog="verstehen x")
    parser.add_argument("--shuffle", dest="shuffle", action="store_true")
    parser.add_argument("--no-shuffle", dest="shuffle", action="store_false")
    assert parser.parse_args(["--no-shuffle"]).shuffle is False
    with pytest.raises(SystemExit):
        parser.parse_args(["--shuffle", "--no-shuffle"])


def test_the_parse_leaves_no_trace_of_the_check() -> None:
    """The namespace a command gets holds its flags only."""
    args = build_parser().parse_args(["certify", "--scope", "arithmetic", "--questions", "3"])
    assert all(" " not in name for name in vars(args))


def test_certify_refuses_a_flag_given_twice_from_main(cli: Cli) -> None:
    """Through `main`: one line, exit 2, no run."""
    cli_error(cli, ["certify", "--scope", "arithmetic", "--questions", "3", "--questions", "4"],
              "--questions", "given twice")
