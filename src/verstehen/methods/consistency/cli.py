"""`verstehen consistency`: conceptual consistency (Sahu et al., ICLR 2023), flags and handler."""

from __future__ import annotations

import argparse
import asyncio

from verstehen.cli.flags import Parser, model_flag, run_flags, settings_from
from verstehen.cli.options import add_options, options_from
from verstehen.cli.runs import finish
from verstehen.methods.consistency.options import ConsistencyOptions, run_options


def add_parsers(commands: argparse._SubParsersAction[Parser], engine: Parser) -> None:
    """Add `consistency`, its flags from ConsistencyOptions."""
    cc = commands.add_parser("consistency", parents=[run_flags(engine)],
                             help="does knowing the background facts predict answering the "
                                  "question? (conceptual consistency, Sahu et al. 2023)")
    model_flag(cc)
    add_options(cc, ConsistencyOptions)
    cc.set_defaults(func=cmd_consistency)


def cmd_consistency(args: argparse.Namespace) -> int:
    """Ask the background facts and the anchor questions; print CC, S_B, S_A and the tables."""
    result = asyncio.run(run_options(options_from(ConsistencyOptions, args),
                                     settings_from(args)))
    return finish(args, result, lambda done: print(done.text()))
