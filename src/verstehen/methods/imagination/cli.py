"""`verstehen imagine matrix|analyze`: the steps that read run folders (their flags and
handlers); `imagine generate` and `imagine answer` are derived from their declarations."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from verstehen.methods.contract import CommandLine, OwnCommand
from verstehen.methods.imagination.analyze import SIMILARITY, analyze_runs, pool_matrix

JSON_HELP = "print one JSON object"


def add_matrix(parser: argparse.ArgumentParser, cli: CommandLine) -> None:
    """The flags of `imagine matrix`."""
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN",
                        help="run folders of `imagine answer`")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for matrix.png and matrix.csv (default: a new folder "
                             "<runs>/<time>-imagine-matrix-<hex>; the RUNs are only read)")
    parser.add_argument("--json", action="store_true", help=JSON_HELP)

    def matrix(args: argparse.Namespace) -> int:
        """Pool answer runs into one QM x AM matrix; print it, write PNG and CSV."""
        result = pool_matrix(args.runs, args.out)
        if args.json:
            cli.print_json(result.to_dict())
        else:
            print(result.text())
            if result.matrix_png is None:
                print("no answers in these runs", file=sys.stderr)
        return 0

    parser.set_defaults(func=matrix)


def add_analyze(parser: argparse.ArgumentParser, cli: CommandLine) -> None:
    """The flags of `imagine analyze`."""
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN",
                        help="run folders of `imagine generate` and/or `imagine answer`")
    parser.add_argument("--similarity", choices=SIMILARITY, default="tfidf",
                        help="question similarity between question models (default tfidf; "
                             "embeddings need the optional extra)")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for length-ranks.png and warm-up.png (default: a new "
                             "folder <runs>/<time>-imagine-analyze-<hex>; the RUNs are only "
                             "read)")
    parser.add_argument("--json", action="store_true", help=JSON_HELP)

    def analyze(args: argparse.Namespace) -> int:
        """Length ranks, length deciles, warm-up positions, fictionality, similarity."""
        result = analyze_runs(args.runs, similarity=args.similarity, out=args.out)
        if args.json:
            cli.print_json(result.to_dict())
        else:
            print(result.text())
        return 0

    parser.set_defaults(func=analyze)


MATRIX = OwnCommand(("imagine", "matrix"), "QM x AM heatmaps of correctness and answering rates",
                    add_matrix)
ANALYZE = OwnCommand(("imagine", "analyze"), "length ranks, length deciles, warm-up positions, "
                     "fictionality, question similarity", add_analyze)
