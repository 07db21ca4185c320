"""Methods whose commands `verstehen` has already (`certify`, a method's; `report`, a general
command), listed first in `--help` so that they are added before the built-in ones would be."""

from __future__ import annotations

import argparse

from verstehen.methods.contract import CommandLine, Method, OwnCommand


def _no_flags(parser: argparse.ArgumentParser, cli: CommandLine) -> None:
    """A command with no flags."""


CERTIFY = Method("my-certify", own=(OwnCommand(("certify",), "a certify of the plugin's own",
                                               _no_flags),), help_place=0)
REPORT = Method("my-report", own=(OwnCommand(("report",), "a report of the plugin's own",
                                             _no_flags),), help_place=0)
