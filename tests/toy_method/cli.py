"""`verstehen echo`: flags (from EchoOptions) and handler."""

from __future__ import annotations

import argparse
import asyncio

from toy_method.run import EchoOptions, EchoResult, run_echo
from verstehen.cli.flags import Parser, model_flag, run_flags, settings_from
from verstehen.cli.options import add_options, options_from
from verstehen.cli.runs import finish


def add_parsers(commands: argparse._SubParsersAction[Parser], engine: Parser) -> None:
    """Add `echo`."""
    echo = commands.add_parser("echo", parents=[run_flags(engine)],
                               help="echo consistency: is a prompt answered the same twice?")
    model_flag(echo)
    add_options(echo, EchoOptions)
    echo.set_defaults(func=cmd_echo)


def cmd_echo(args: argparse.Namespace) -> int:
    """Ask each prompt twice; print the share answered the same."""
    result = asyncio.run(run_echo(options_from(EchoOptions, args), settings_from(args)))
    return finish(args, result, _show)


def _show(result: EchoResult) -> None:
    print(result.text())
