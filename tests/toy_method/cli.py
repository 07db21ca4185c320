"""`verstehen echo`: flags and handler."""

from __future__ import annotations

import argparse
import asyncio

from toy_method.run import PROMPTS, EchoResult, run_echo
from verstehen.cli.flags import Parser, model_flag, positive_int, run_flags, settings_from
from verstehen.cli.runs import finish


def add_parsers(commands: argparse._SubParsersAction[Parser], engine: Parser) -> None:
    """Add `echo`."""
    echo = commands.add_parser("echo", parents=[run_flags(engine)],
                               help="echo consistency: is a prompt answered the same twice?")
    model_flag(echo)
    echo.add_argument("--prompts", type=positive_int, default=3,
                      help=f"the first N of {len(PROMPTS)} short prompts (default 3)")
    echo.add_argument("--temperature", type=float, default=1.0,
                      help="sampling temperature, above 0 (default 1)")
    echo.set_defaults(func=cmd_echo)


def cmd_echo(args: argparse.Namespace) -> int:
    """Ask each prompt twice; print the share answered the same."""
    result = asyncio.run(run_echo(args.model, args.prompts, temperature=args.temperature,
                                  base_url=args.base_url, settings=settings_from(args)))
    return finish(args, result, _show)


def _show(result: EchoResult) -> None:
    print(result.text())
