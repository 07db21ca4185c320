"""Methods whose commands `verstehen` has already (`certify`, a method's; `report`, a general
command), listed first in `--help` so that they are added before the built-in ones would be."""

from __future__ import annotations

import argparse

from verstehen.cli.flags import Parser
from verstehen.methods.contract import Method

Commands = argparse._SubParsersAction  # type: ignore[type-arg]


def _certify(commands: Commands, engine: Parser) -> None:
    commands.add_parser("certify", help="a certify of the plugin's own")


def _report(commands: Commands, engine: Parser) -> None:
    commands.add_parser("report", help="a report of the plugin's own")


CERTIFY = Method("my-certify", _certify, help_place=0)
REPORT = Method("my-report", _report, help_place=0)
