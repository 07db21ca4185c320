"""`verstehen imagine generate|answer|matrix|analyze`: shared imagination (Zhou et al.), the
flags and the handlers."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from verstehen.cli.flags import (
    Parser,
    base_url,
    model_name,
    positive_int,
    print_json,
    run_flags,
    settings_from,
    temperature,
)
from verstehen.cli.runs import finish
from verstehen.methods.imagination.analyze import SIMILARITY, analyze_runs, pool_matrix
from verstehen.methods.imagination.answer import AnswerPlan
from verstehen.methods.imagination.choices import METHODS, VARIANTS
from verstehen.methods.imagination.run import (
    CONTENTS,
    answer_questions,
    generate_plan,
    generate_questions,
)
from verstehen.models import DEFAULT_MODEL


def add_parsers(commands: argparse._SubParsersAction, engine: Parser) -> None:
    """Add `imagine` with its steps generate, answer, matrix and analyze."""
    top = commands.add_parser("imagine", help="shared imagination: models answer each other's "
                              "questions about made-up concepts (Zhou et al.)")
    sub = top.add_subparsers(dest="imagine_command", metavar="STEP", parser_class=Parser,
                             required=True)
    gen = sub.add_parser("generate", parents=[run_flags(engine)],
                         help="a question model writes imaginary multiple-choice questions")
    gen.add_argument("--model", type=model_name, default=DEFAULT_MODEL,
                     help=f"the question model (default {DEFAULT_MODEL})")
    gen.add_argument("--topics", default=None,
                     help="comma-separated (default: the paper's 17 college subjects, or its 10 "
                          "story topics with --content story)")
    gen.add_argument("--per-topic", type=positive_int, default=None,
                     help="slots per topic and kind (default the paper's: 20 direct and 20 "
                          "context questions, 10 five-question sequential replies)")
    gen.add_argument("--tries", type=positive_int, default=1,
                     help="draw a question again when its reply does not parse, up to this "
                          "many times per question (default 1: no retry)")
    gen.add_argument("--kind", default="direct,context",
                     help="comma list of direct, context, sequential (default direct,context)")
    gen.add_argument("--content", choices=CONTENTS, default="knowledge",
                     help="knowledge questions, or story questions with the paper's story "
                          "topics (default knowledge)")
    gen.add_argument("--temperature", type=temperature, default=1.0,
                     help="sampling temperature of the question model (default 1, the paper's)")
    gen.set_defaults(func=cmd_generate)

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
    ans.add_argument("--judge", type=model_name, default=None,
                     help="grades free responses (--method free)")
    ans.add_argument("--judge-base-url", type=base_url, default=None,
                     help="server of the judge model")
    ans.add_argument("--fictionality", action="store_true",
                     help="also ask each answer model whether each context paragraph "
                          "describes a real concept")
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
    plan = generate_plan(kinds=args.kind, content=args.content, topics=args.topics,
                         per_topic=args.per_topic, tries=args.tries,
                         temperature=args.temperature, max_tokens=args.max_tokens,
                         seed=args.seed)
    result = asyncio.run(generate_questions(args.model, plan, base_url=args.base_url,
                                            settings=settings_from(args)))
    return finish(args, result, lambda done: print(done.text()))


def cmd_answer(args: argparse.Namespace) -> int:
    """Every answer model answers every question; print the QM x AM matrix, write PNG/CSV."""
    plan = AnswerPlan(method=args.method, shuffle=not args.no_shuffle, choice_e=args.choice_e,
                      variant=args.prompt_variant, fictionality=args.fictionality,
                      max_tokens=args.max_tokens, seed=args.seed)
    result = asyncio.run(answer_questions(
        args.questions, args.model, plan, judge=args.judge, judge_base_url=args.judge_base_url,
        base_url=args.base_url, settings=settings_from(args)))
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
