"""Plugins whose text holds terminal escape sequences (a title that would set the window's
title, a colour, a carriage return): each is left out, its line printed escaped."""

from __future__ import annotations

import argparse

from verstehen_echo_plugin.parity import EvenNumber
from verstehen_echo_plugin.provider import EchoModel

from verstehen.domains.plugins import ConceptDomain, PluginConcept
from verstehen.methods.contract import CommandLine, Method, OwnCommand
from verstehen.models import ProviderInfo, ProviderPlugin

TITLE = "\x1b]0;pwned\x07"


class Shout(EvenNumber):
    """The parity concept under the escaping domain's key."""

    key = "shout/even"


def _no_flags(parser: argparse.ArgumentParser, cli: CommandLine) -> None:
    """A command with no flags."""


SHOUT = OwnCommand(("shout",), "\x1b[2J cleared", _no_flags)


DOMAIN = ConceptDomain("shout", TITLE, (
    PluginConcept("Shouted Even", "Divisible by 2.", Shout()),))
PROVIDER = ProviderPlugin(ProviderInfo("shout", "shout/x", None, "\x1b[31mred\x1b[0m"),
                          EchoModel)
METHOD = Method("shout", own=(SHOUT,))
NAMED = Method("\x1b[31mred", own=(SHOUT,))
