"""`verstehen imagine generate|answer|matrix|analyze`: shared imagination (Zhou et al.), the
flags and the handlers."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from verstehen.cli.flags import (
    Parser,
    model_flag,
    print_json,
    run_flags,
    settings_from,
)
from verstehen.cli.options import add_options, options_from
from verstehen.cli.runs import finish
from verstehen.methods.imagination.analyze import SIMILARITY, analyze_runs, pool_matrix
from verstehen.methods.imagination.options import (
    ImagineAnswerOptions,
    ImagineGenerateOptions,
    imagine_answer_run,
    imagine_generate_run,
)


def add_parsers(commands: argparse._SubParsersAction[Parser], engine: Parser) -> None:
    """Add `imagine` with its steps generate, answer, matrix and analyze."""
    top = commands.add_parser("imagine", help="shared imagination: models answer each other's "
                              "questions about made-up concepts (Zhou et al.)")
    sub = top.add_subparsers(dest="imagine_command", metavar="STEP", parser_class=Parser,
                             required=True)
    gen = sub.add_parser("generate", parents=[run_flags(engine)],
                         help="a question model writes imaginary multiple-choice questions")
    model_flag(gen, "the question model")
    add_options(gen, ImagineGenerateOptions)
    gen.set_defaults(func=cmd_generate)

    ans = sub.add_parser("answer", parents=[run_flags(engine)],
                         help="answer models answer the questions; QM x AM rates")
    add_options(ans, ImagineAnswerOptions)
    ans.set_defaults(func=cmd_answer)

    mat = sub.add_parser("matrix", help="QM x AM heatmaps of correctness and answering rates")
    mat.add_argument("runs", nargs="+", type=Path, metavar="RUN",
                     help="run folders of `imagine answer`")
    mat.add_argument("--out", type=Path, default=None,
                     help="folder for matrix.png and matrix.csv (default: a new folder "
                          "<runs>/<time>-imagine-matrix-<hex>; the RUNs are only read)")
    mat.add_argument("--json", action="store_true", help="print one JSON object")
    mat.set_defaults(func=cmd_matrix)

    ana = sub.add_parser("analyze", help="length ranks, length deciles, warm-up positions, "
                         "fictionality, question similarity")
    ana.add_argument("runs", nargs="+", type=Path, metavar="RUN",
                     help="run folders of `imagine generate` and/or `imagine answer`")
    ana.add_argument("--similarity", choices=SIMILARITY, default="tfidf",
                     help="question similarity between question models (default tfidf; "
                          "embeddings need the optional extra)")
    ana.add_argument("--out", type=Path, default=None,
                     help="folder for length-ranks.png and warm-up.png (default: a new folder "
                          "<runs>/<time>-imagine-analyze-<hex>; the RUNs are only read)")
    ana.add_argument("--json", action="store_true", help="print one JSON object")
    ana.set_defaults(func=cmd_analyze)


def cmd_generate(args: argparse.Namespace) -> int:
    """The question model writes questions; print what was kept and dropped, and why."""
    result = asyncio.run(imagine_generate_run(options_from(ImagineGenerateOptions, args),
                                              settings_from(args)))
    return finish(args, result, lambda done: print(done.text()))


def cmd_answer(args: argparse.Namespace) -> int:
    """Every answer model answers every question; print the QM x AM matrix, write PNG/CSV."""
    result = asyncio.run(imagine_answer_run(options_from(ImagineAnswerOptions, args),
                                            settings_from(args)))
    return finish(args, result, lambda done: print(done.text()))


def cmd_matrix(args: argparse.Namespace) -> int:
    """Pool answer runs into one QM x AM matrix; print it, write PNG and CSV."""
    result = pool_matrix(args.runs, args.out)
    if args.json:
        print_json(result.to_dict())
    else:
        print(result.text())
        if result.matrix_png is None:
            print("no answers in these runs", file=sys.stderr)
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    """Length ranks, length deciles, warm-up positions, fictionality, question similarity."""
    result = analyze_runs(args.runs, similarity=args.similarity, out=args.out)
    if args.json:
        print_json(result.to_dict())
    else:
        print(result.text())
    return 0
