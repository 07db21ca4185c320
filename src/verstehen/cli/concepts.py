"""`verstehen concepts`: the concept catalog (the paper's 32 concepts and installed plugin
domains'), with how each concept is graded."""

from __future__ import annotations

import argparse
import textwrap

from verstehen.cli.flags import print_json
from verstehen.cli.parser import Subcommands
from verstehen.domains.catalog import CONCEPTS, DOMAINS, canonical_name, installed
from verstehen.errors import UserError


def add_parsers(commands: Subcommands, engine: argparse.ArgumentParser) -> None:
    """Add the `concepts` subcommand."""
    p = commands.add_parser(
        "concepts", help="the Potemkin paper's 32 concepts (and installed plugin domains') "
                         "and how verstehen grades each")
    # the domains are read (the plugin domains loaded) when the flag is given or shown
    p.add_argument("--domain", type=canonical_name, choices=DOMAINS, default=None,
                   metavar="DOMAIN", help="one domain only: %(choices)s (poetry: the paper's "
                                          "literary techniques, also taken as literary)")
    p.add_argument("--exact", action="store_true", help="only concepts graded exactly by code")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_concepts)


def cmd_concepts(args: argparse.Namespace) -> int:
    """List the catalog by domain: key, grading mode, certification scope, definition."""
    chosen = [c for c in CONCEPTS
              if (args.domain is None or c.domain == args.domain)
              and (not args.exact or c.grading == "exact")]
    if not chosen:
        raise UserError("no concept matches: drop --exact or choose another --domain")
    if args.json:
        print_json([{"key": c.key, "name": c.name, "domain": c.domain, "grading": c.grading,
                     "scope": c.scope, "definition": c.definition} for c in chosen])
        return 0
    width = max(len(c.key) for c in chosen)
    plugins = {domain.name for domain in installed().domains}
    for domain, title in DOMAINS.items():
        group = [c for c in chosen if c.domain == domain]
        if not group:
            continue
        exact = sum(c.grading == "exact" for c in group)
        where = f"{domain}, an installed plugin" if domain in plugins else domain
        print(f"{title} ({where}): {len(group)} concepts, {exact} graded exactly")
        for c in group:
            mode = f"exact, --scope {c.scope}" if c.scope else "judge or human labels"
            print(f"  {c.key:<{width}}  {c.name}  [{mode}]")
            print(textwrap.fill(c.definition, 96, initial_indent=" " * (width + 4),
                                subsequent_indent=" " * (width + 4)))
        print()
    total_exact = sum(c.grading == "exact" for c in chosen)
    print(f"{len(chosen)} concepts; {total_exact} graded exactly (certify them with --scope "
          "SCOPE, or SCOPE/classify, /generate, /edit for one task)")
    return 0
