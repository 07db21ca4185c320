"""`verstehen plugins`: what verstehen knows of each kind of plugin (methods, providers, concept
domains): the built-in entries, the installed packages' (with the entry point each came from),
and those left out, each with why."""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass

from verstehen.cli.flags import print_json
from verstehen.cli.parser import Parser, Subcommands
from verstehen.domains.catalog import BUILT_IN_DOMAINS, DOMAIN_PLUGINS
from verstehen.methods.registry import METHODS
from verstehen.models.providers import PLUGINS as PROVIDER_PLUGINS
from verstehen.models.providers import PROVIDERS
from verstehen.text.tables import table
from verstehen.text.terminal import terminal_line


@dataclass(frozen=True)
class Entry:
    """One entry of a kind: its name and where it comes from ("built in", an entry point
    `name = module:object`, or "registered")."""

    kind: str
    name: str
    source: str


@dataclass(frozen=True)
class Listing:
    """Every entry of every kind, and a line for each installed plugin left out."""

    entries: tuple[Entry, ...]
    left_out: tuple[str, ...]


def listing() -> Listing:
    """What is installed, read now (every installed plugin is loaded)."""
    methods = [Entry("method", m.name, METHODS.source(m)) for m in METHODS.entries()]
    providers = [*(Entry("provider", name, "built in") for name in PROVIDERS),
                 *(Entry("provider", PROVIDER_PLUGINS.name(p), PROVIDER_PLUGINS.source(p))
                   for p in PROVIDER_PLUGINS.entries())]
    domains = [*(Entry("domain", name, "built in") for name in BUILT_IN_DOMAINS),
               *(Entry("domain", DOMAIN_PLUGINS.name(d), DOMAIN_PLUGINS.source(d))
                 for d in DOMAIN_PLUGINS.entries())]
    problems = (*METHODS.problems(), *PROVIDER_PLUGINS.problems(), *DOMAIN_PLUGINS.problems())
    return Listing((*methods, *providers, *domains), tuple(dict.fromkeys(problems)))


def add_parsers(commands: Subcommands, engine: Parser) -> None:
    """Add the `plugins` subcommand."""
    p = commands.add_parser("plugins", help="the methods, providers and concept domains "
                            "verstehen knows, installed plugins' too, and those left out")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_plugins)


def cmd_plugins(args: argparse.Namespace) -> int:
    """Print every entry by kind, then the plugins left out and why."""
    found = listing()
    if args.json:
        print_json({"entries": [asdict(e) for e in found.entries],
                    "left_out": list(found.left_out)})
        return 0
    print(table(["kind", "name", "from"], [[e.kind, terminal_line(e.name),
                                            terminal_line(e.source)] for e in found.entries]))
    plugins = sum(e.source != "built in" for e in found.entries)
    print(f"\n{plugins} from installed packages or registered; {len(found.left_out)} left out"
          + (":" if found.left_out else ""))
    for line in found.left_out:
        print(f"  {terminal_line(line)}")
    return 0
