"""`verstehen imagine generate|answer|matrix|analyze`: shared imagination (Zhou et al.)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from verstehen.cli.flags import Parser


def add_parsers(commands: Any, engine: argparse.ArgumentParser) -> None:
    """Add `imagine` with its steps generate, answer, matrix and analyze."""
    from verstehen.cli.flags import run_flags
    from verstehen.methods.imagination.choices import METHODS, VARIANTS
    from verstehen.models import DEFAULT_MODEL

    top = commands.add_parser("imagine", help="shared imagination: models answer each other's "
                              "questions about made-up concepts (Zhou et al.)")
    top.set_defaults(func=lambda args: cmd_imagine(args, args.argv))
    sub = top.add_subparsers(dest="imagine_command", metavar="STEP", parser_class=Parser,
                             required=True)
    gen = sub.add_parser("generate", parents=[run_flags(engine)],
                         help="a question model writes imaginary multiple-choice questions")
    gen.add_argument("--model", default=DEFAULT_MODEL,
                     help=f"the question model (default {DEFAULT_MODEL})")
    gen.add_argument("--topics", default=None,
                     help="comma-separated (default: the paper's 17 college subjects, or its 10 "
                          "story topics with --content story)")
    gen.add_argument("--per-topic", type=int, default=20,
                     help="questions per topic and kind (default 20, the paper's)")
    gen.add_argument("--tries", type=int, default=1,
                     help="draw a question again when its reply does not parse, up to this "
                          "many times per question (default 1: no retry)")
    gen.add_argument("--kind", default="direct,context",
                     help="comma list of direct, context, sequential (default direct,context)")
    gen.add_argument("--content", choices=["knowledge", "story"], default="knowledge")
    gen.add_argument("--temperature", type=float, default=1.0,
                     help="sampling temperature of the question model (default 1, the paper's)")

    ans = sub.add_parser("answer", parents=[run_flags(engine)],
                         help="answer models answer the questions; QM x AM rates")
    ans.add_argument("--questions", nargs="+", type=Path, required=True, metavar="RUN",
                     help="run folders of `imagine generate`")
    ans.add_argument("--model", action="append", default=None,
                     help="an answer model, repeatable; NAME@URL for a server "
                          f"(default {DEFAULT_MODEL})")
    ans.add_argument("--method", choices=METHODS, default="generate",
                     help="generate (Table 4), letter (next-token probability after "
                          "'Answer:'), perplexity (likeliest choice text), free (no choices, "
                          "judged 0-100); default generate")
    ans.add_argument("--no-shuffle", action="store_true",
                     help="show the choices in the question model's order")
    ans.add_argument("--choice-e", action="store_true",
                     help="add 'E. This question cannot be answered since the concept does "
                          "not exist.'")
    ans.add_argument("--prompt-variant", choices=VARIANTS, default="1",
                     help="Table 14 wording 1-4 or cot (default 1)")
    ans.add_argument("--judge", default=None, help="grades free responses (--method free)")
    ans.add_argument("--judge-base-url", default=None, help="server of the judge model")
    ans.add_argument("--fictionality", action="store_true",
                     help="also ask each answer model whether each context paragraph "
                          "describes a real concept")

    mat = sub.add_parser("matrix", help="QM x AM heatmaps of correctness and answering rates")
    mat.add_argument("runs", nargs="+", type=Path, metavar="RUN",
                     help="run folders of `imagine answer`")
    mat.add_argument("--out", type=Path, default=None,
                     help="folder for matrix.png and matrix.csv (default: the first RUN)")
    mat.add_argument("--json", action="store_true")

    ana = sub.add_parser("analyze", help="length ranks, length deciles, warm-up positions, "
                         "fictionality, question similarity")
    ana.add_argument("runs", nargs="+", type=Path, metavar="RUN",
                     help="run folders of `imagine generate` and/or `imagine answer`")
    ana.add_argument("--similarity", choices=["tfidf", "embeddings", "none"], default="tfidf",
                     help="question similarity between question models (default tfidf; "
                          "embeddings need the optional extra)")
    ana.add_argument("--out", type=Path, default=None,
                     help="folder for length-ranks.png (default: the first RUN)")
    ana.add_argument("--json", action="store_true")


def cmd_imagine(args: argparse.Namespace, argv: list[str]) -> int:
    """Dispatch to the imagine step."""
    from verstehen.methods.imagination import show as steps

    return getattr(steps, f"imagine_{args.imagine_command}")(args, argv)
