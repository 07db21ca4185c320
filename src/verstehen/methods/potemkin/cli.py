"""`verstehen potemkin score` and `verstehen annotate export|import`: the commands that read
run folders or records files (flags and handlers); `potemkin run|incoherence|selfjudge` are
derived from their declarations."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from verstehen.methods.contract import CommandLine, OwnCommand
from verstehen.methods.potemkin.annotate import (
    audit_lens_rates,
    audit_lens_text,
    export_items,
    import_labels,
    open_run,
)
from verstehen.methods.potemkin.options import UNPARSED_HELP
from verstehen.methods.potemkin.outputs import score_files, summarize_run
from verstehen.methods.potemkin.stats import EXPANSIONS, UNPARSED
from verstehen.methods.potemkin.text import scores_text
from verstehen.readers import positive_int
from verstehen.text.tables import plural

JSON_HELP = "print one JSON object"


def add_score(parser: argparse.ArgumentParser, cli: CommandLine) -> None:
    """The arguments of `potemkin score`."""
    parser.add_argument("records", nargs="+", type=Path,
                        help="CSV or JSONL with model, domain, concept, task, keystone, "
                             "correct (or a run folder)")
    parser.add_argument("--plot", type=Path, default=None,
                        help="write the keystone plot (PNG)")
    parser.add_argument("--all-models", action="store_true",
                        help="keystone expansion over every model, not only those above chance")
    parser.add_argument("--next-uses", type=positive_int, default=10, metavar="N",
                        help="keystone expansion: understood = the next N use answers all "
                             "right (default 10, the paper's)")
    parser.add_argument("--expansion", choices=EXPANSIONS, default="paper",
                        help="keystone expansion as the paper computes it (paper: use = "
                             "classify answers, the next N drawn with replacement), or "
                             "all-uses (generate and edit answers count too, drawn without "
                             "replacement; a concept with fewer than N left is left out) "
                             "(default paper)")
    parser.add_argument("--unparsed", choices=UNPARSED, default="wrong",
                        help=f"{UNPARSED_HELP} (default wrong)")
    parser.add_argument("--json", action="store_true", help=JSON_HELP)

    def score(args: argparse.Namespace) -> int:
        """Score any records files (or run folders)."""
        scores = score_files(args.records, plot=args.plot,
                             above_chance_only=not args.all_models, next_uses=args.next_uses,
                             unparsed=args.unparsed, expansion=args.expansion)
        if args.json:
            cli.print_json(scores.to_dict())
        else:
            print(scores_text(scores))
        return 0

    parser.set_defaults(func=score)


def add_export(parser: argparse.ArgumentParser, cli: CommandLine) -> None:
    """The arguments of `annotate export`."""
    parser.add_argument("run", type=Path, help="a potemkin run folder")
    parser.add_argument("--out", type=Path, default=None,
                        help="CSV to write (default RUN/to-label.csv)")
    parser.add_argument("--all", action="store_true",
                        help="also answers the checkers and labels graded (to check them)")

    def export(args: argparse.Namespace) -> int:
        """Write the answers people should label as CSV."""
        store = open_run(args.run)
        out = args.out or store.path / "to-label.csv"
        n = export_items(store, out, everything=args.all)
        print(f"{plural(n, 'answer')} to label: {out} (fill the label column with yes or no, "
              f"then `verstehen annotate import {store.path} {out}`)")
        return 0

    parser.set_defaults(func=export)


def add_import(parser: argparse.ArgumentParser, cli: CommandLine) -> None:
    """The arguments of `annotate import`."""
    parser.add_argument("run", type=Path, help="the potemkin run folder")
    parser.add_argument("file", type=Path,
                        help="the exported CSV with its label column filled")
    parser.add_argument("--json", action="store_true", help=JSON_HELP)

    def labels(args: argparse.Namespace) -> int:
        """Read labels back into the run and print its recomputed tables (an audit's
        definitions folder: the rates the audit's table shows)."""
        store = open_run(args.run)
        read, stored = import_labels(store, args.file)
        result = summarize_run(store)
        print(f"{plural(read, 'label')} read, {stored} stored in {store.path}",
              file=sys.stderr)
        lens = audit_lens_rates(result)
        if args.json:
            cli.print_json(result.to_dict())
        elif lens is not None:
            print(audit_lens_text(result, lens))
        else:
            print(result.text())
        return 0

    parser.set_defaults(func=labels)


SCORE = OwnCommand(("potemkin", "score"),
                   "Table 1, Table 6 and keystone expansion of records", add_score)
EXPORT = OwnCommand(("annotate", "export"), "write a CSV of the answers to label", add_export)
IMPORT = OwnCommand(("annotate", "import"), "read labels back and recompute the tables",
                    add_import)
