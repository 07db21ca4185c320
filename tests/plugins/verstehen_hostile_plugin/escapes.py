"""Plugins whose text holds terminal escape sequences (a title that would set the window's
title, a colour, a carriage return): each is left out, its line printed escaped."""

from __future__ import annotations

import argparse

from verstehen_echo_plugin.parity import EvenNumber
from verstehen_echo_plugin.provider import EchoModel

from verstehen.cli.flags import Parser
from verstehen.domains.plugins import ConceptDomain, PluginConcept
from verstehen.methods.contract import Method
from verstehen.models import ProviderInfo, ProviderPlugin

TITLE = "\x1b]0;pwned\x07"


class Shout(EvenNumber):
    """The parity concept under the escaping domain's key."""

    key = "shout/even"


def _commands(commands: argparse._SubParsersAction, engine: Parser) -> None:  # type: ignore[type-arg]
    commands.add_parser("shout", help="\x1b[2J cleared")


DOMAIN = ConceptDomain("shout", TITLE, (
    PluginConcept("Shouted Even", "Divisible by 2.", Shout()),))
PROVIDER = ProviderPlugin(ProviderInfo("shout", "shout/x", None, "\x1b[31mred\x1b[0m"),
                          EchoModel)
METHOD = Method("shout", _commands)
NAMED = Method("\x1b[31mred", _commands)
